package sqlstore

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askonce/askonce"
)

// The filters of a ListJobs query, as bits: a store may keep one
// prepared statement for each set.
const (
	ListByStatus = 1 << iota
	ListBySession
	ListAfter
	ListActive // the status is one of the partial index jobs_active's
	ListEnded  // the status is one of the partial index jobs_ended's
	ListQueries
)

// statusIndex is ListActive or ListEnded for a status whose jobs a
// partial index holds, 0 for success (nearly every job's, read through
// jobs_by_tenant).
func statusIndex(st askonce.Status) int {
	switch st {
	case askonce.StatusPlanning, askonce.StatusPending:
		return ListActive
	case askonce.StatusValidationError, askonce.StatusFailed, askonce.StatusCancelled, askonce.StatusExpired:
		return ListEnded
	}
	return 0
}

// ListArgs returns ListQuery's filter bits for f and the query's
// arguments, the last the page's limit plus one. A cursor no store made
// is EINVALID.
func ListArgs(e Encoding, tenant string, f askonce.JobFilter) (int, []any, error) {
	var bits int
	args := []any{tenant}
	if f.Status != "" {
		bits |= ListByStatus | statusIndex(f.Status)
		args = append(args, string(f.Status))
	}
	if f.SessionID != "" {
		bits |= ListBySession
		args = append(args, f.SessionID)
	}
	if f.Cursor != "" {
		at, id, ok := DecodeCursor(f.Cursor)
		if !ok {
			return 0, nil, askonce.Errorf(askonce.EINVALID, "cursor %q is not a cursor of this list", f.Cursor)
		}
		bits |= ListAfter
		args = append(args, e.Time(time.Unix(0, at).UTC()), id)
	}
	return bits, append(args, f.PageLimit()+1), nil
}

// ListQuery is the ListJobs query for a set of filters: selectFrom (the
// job columns of j, and their FROM) with the filters' WHERE, newest
// first. A status a partial index holds repeats the index's WHERE, so
// that the planner uses it (SQLite always, PostgreSQL in a generic plan).
func ListQuery(p Placeholders, selectFrom string, bits int) string {
	n := 0
	param := func() string { n++; return p.Next(n) }
	var q strings.Builder
	q.WriteString(selectFrom + " WHERE j.tenant_id = " + param())
	if bits&ListByStatus != 0 {
		q.WriteString(" AND j.status = " + param())
	}
	if bits&ListActive != 0 {
		q.WriteString(" AND j.status IN ('planning', 'pending')")
	}
	if bits&ListEnded != 0 {
		// Comparisons, not IN: SQLite's jobs_ended is written so (its
		// migration 00019 tells why) and is used only for the same
		// WHERE; PostgreSQL's, written with IN, is implied by it
		// (TestListJobsReadsAnIndexForEveryFilter in postgres/).
		q.WriteString(" AND (j.status = 'validation_error' OR j.status = 'failed' OR j.status = 'cancelled' OR j.status = 'expired')")
	}
	if bits&ListBySession != 0 {
		q.WriteString(" AND j.session_id = " + param())
	}
	if bits&ListAfter != 0 {
		q.WriteString(" AND (j.created_at, j.id) < (" + param() + ", " + param() + ")")
	}
	q.WriteString(" ORDER BY j.created_at DESC, j.id DESC LIMIT " + param())
	return q.String()
}

// Page is the page of ListJobs of jobs, read with ListArgs's limit plus
// one: a job past limit means another page, which starts after the last
// job of this one.
func Page(jobs []*askonce.Job, limit int) *askonce.JobPage {
	page := &askonce.JobPage{Jobs: jobs}
	if len(jobs) > limit {
		page.Jobs = jobs[:limit]
		last := page.Jobs[limit-1]
		page.NextCursor = EncodeCursor(last.CreatedAt.UnixNano(), last.ID)
	}
	return page
}

// A cursor is the base64 of "<created_at unix ns>.<job id>": the
// position of the previous page's last job, so that pages neither skip
// nor repeat jobs created meanwhile.
func EncodeCursor(createdAt int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(createdAt, 10) + "." + id))
}

// DecodeCursor reads EncodeCursor's cursor. An id that is not UTF-8 or
// holds a NUL byte is no job's (PostgreSQL could not even compare it).
func DecodeCursor(c string) (int64, string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", false
	}
	at, id, ok := strings.Cut(string(b), ".")
	if !ok || id == "" || !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return 0, "", false
	}
	n, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return 0, "", false
	}
	return n, id, true
}
