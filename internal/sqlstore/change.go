package sqlstore

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/askonce/askonce"
)

// Inserted returns c.Job as CreateJob stores it: Version 1, CreatedAt
// and UpdatedAt its CreatedAt in the store's precision (round), or now
// when zero, the usage sums and AttemptCount those of c.Attempts, and
// queued when c.Dispatch. A change without a job id is EINVALID.
func Inserted(c *askonce.Change, now time.Time, round func(time.Time) time.Time) (*askonce.Job, error) {
	if c == nil || c.Job == nil || c.Job.ID == "" {
		return nil, askonce.Errorf(askonce.EINVALID, "create job: the job has no id")
	}
	ins := *c.Job
	created := now
	if !ins.CreatedAt.IsZero() {
		created = round(ins.CreatedAt)
	}
	ins.Version, ins.Usage, ins.AttemptCount = 1, AttemptsUsage(c.Attempts), len(c.Attempts)
	ins.CreatedAt, ins.UpdatedAt = created, created
	if c.Dispatch {
		ins.Dispatch = askonce.DispatchQueued
	}
	return &ins, nil
}

// Created hands back to c, once CreateJob committed ins (Inserted), what
// the store assigned: the job's version, times, usage and dispatch, the
// events' ids and times, the history entry's fields.
func Created(c *askonce.Change, ins *askonce.Job, appended []askonce.Event, hist *askonce.HistoryEntry) {
	j := c.Job
	j.Version = 1
	j.CreatedAt, j.UpdatedAt = ins.CreatedAt, ins.UpdatedAt
	j.Usage, j.AttemptCount, j.Dispatch = ins.Usage, ins.AttemptCount, ins.Dispatch
	Wrote(c, appended, hist)
}

// Written returns c.Job as UpdateJob writes it: queued when c.Dispatch
// (c.Job itself when it is so already, as the engine's are; a copy
// otherwise). A change without a job is EINVALID.
func Written(c *askonce.Change) (*askonce.Job, error) {
	if c == nil || c.Job == nil {
		return nil, askonce.Errorf(askonce.EINVALID, "update job: the change has no job")
	}
	if !c.Dispatch || c.Job.Dispatch == askonce.DispatchQueued {
		return c.Job, nil
	}
	w := *c.Job
	w.Dispatch = askonce.DispatchQueued
	return &w, nil
}

// Updated hands back to c, once UpdateJob committed, what the store
// assigned: the job's version, time, usage sums and attempt count, its
// dispatch, the events' ids and times, the history entry's fields.
func Updated(c *askonce.Change, version int64, now time.Time, usage askonce.Usage, count int, appended []askonce.Event, hist *askonce.HistoryEntry) {
	j := c.Job
	j.Version, j.UpdatedAt, j.Usage, j.AttemptCount = version, now, usage, count
	if c.Dispatch {
		j.Dispatch = askonce.DispatchQueued
	}
	Wrote(c, appended, hist)
}

// LinkSecret returns the database's answer-link secret (the settings row
// answer_link_secret), creating it, 32 bytes from crypto/rand, the first
// time: for askonce.Engine.LinkSecret. Of two processes opening a new
// database at once, the first insert wins, and both read its row in a
// statement of their own, which sees it. exec and queryRow run a
// statement written in p's placeholders on the store's driver.
func LinkSecret(p Placeholders, exec func(q string, args ...any) error, queryRow func(q string, args ...any) Scanner) ([]byte, error) {
	const name = "answer_link_secret"
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("answer link secret: %w", err)
	}
	if err := exec(p.Rebind(`INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING`), name, fresh); err != nil {
		return nil, fmt.Errorf("answer link secret: %w", err)
	}
	var secret []byte
	if err := queryRow(p.Rebind(`SELECT value FROM settings WHERE name = $1`), name).Scan(&secret); err != nil {
		return nil, fmt.Errorf("answer link secret: %w", err)
	}
	if len(secret) < 32 {
		return nil, fmt.Errorf("answer link secret: %d bytes stored, want 32", len(secret))
	}
	return secret, nil
}
