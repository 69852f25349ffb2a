package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/google/uuid"
)

// NewTenant returns a tenant name that no other test uses.
func NewTenant() string { return "tenant-" + uuid.NewString() }

// NewID returns a fresh UUIDv7, as job ids are.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Now returns the current time in UTC, truncated to microseconds: the
// finest precision the suite asks a store to keep (that of common SQL
// timestamp types, such as PostgreSQL's timestamptz), so that
// the times a test writes compare equal when read back.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// NewJob returns a new job of tenant, ready for CreateJob: a fresh UUIDv7
// id, its own session, managed mode, status planning, clarification none,
// the fallback hard cap and a title derived from its goal.
func NewJob(tenant string) *askonce.Job {
	goal := "Add a copper ore block that smelts into ingots"
	return &askonce.Job{
		ID:                  NewID(),
		TenantID:            tenant,
		SessionID:           "session-" + uuid.NewString(),
		Mode:                askonce.ModeManaged,
		Goal:                goal,
		HardCap:             askonce.HardCapFallback,
		Title:               askonce.DeriveTitle(goal),
		Status:              askonce.StatusPlanning,
		ClarificationStatus: askonce.ClarificationNone,
	}
}

// FullJob returns a job of tenant with every field a caller can set
// filled in, as a gate-mode job whose question was answered and planned:
// files, candidates, a spec schema, its memory and the remembered answer, a question with options, default, expiry, the
// cosmetic flag and fields, the answer and its time, both flags, a plan with spec,
// tasks and assumptions, a result and an error. CreatedAt is an hour ago.
func FullJob(tenant string) *askonce.Job {
	now := Now()
	expires := now.Add(time.Hour)
	answered := now.Add(-30 * time.Minute)
	j := NewJob(tenant)
	j.Mode = askonce.ModeGate
	j.Goal = "Make a hot frozen cheese block\nwith a ルート config"
	j.Profile = "minecraft-mod"
	j.Files = []string{"src/main/Cheese.java", "docs/notes.md"}
	j.Candidates = []string{"black pepper", "bell pepper", "黒胡椒"}
	j.HardCap = askonce.HardCapFail
	j.Notify = &askonce.Recipients{Slack: &askonce.SlackRecipient{Channel: "C0123ABCD"}, Email: []string{"ops@example.com", "b@example.org"}}
	j.SpecSchema = json.RawMessage(`{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}`)
	j.Title = "Hot cheese block"
	j.Status = askonce.StatusSuccess
	j.ClarificationStatus = askonce.ClarificationAnswered
	j.Question = &askonce.Question{
		Type:       askonce.QuestionSelectOne,
		Text:       "Should the cheese be hot or frozen?",
		Options:    []string{"hot", "frozen"},
		Reason:     "action_ambiguous",
		Default:    "hot",
		ExpiresAt:  &expires,
		Cosmetic:   true,
		AllowOther: true,
		Fields: []askonce.QuestionField{
			{Name: "temperature", Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}, Default: "hot", AllowOther: true, Required: true},
			{Name: "名前", Type: askonce.QuestionFreeText, Text: "ブロックの名前は?"},
		},
	}
	j.Answer = askonce.TextAnswer("hot")
	j.AnswerSource = askonce.SourceUser
	j.AnsweredAt = &answered
	j.AnsweredVia, j.AnsweredBy = askonce.ViaSlack, "U0123ABCD"
	j.Memory = &askonce.Memory{Scope: askonce.MemoryProject, Project: "askonce — ルート", TTL: "720h0m0s", Fresh: true}
	j.AnswerMemory = &askonce.MemoryRef{Scope: askonce.MemoryProject, Project: "askonce — ルート",
		QuestionHash: askonce.QuestionHash(j.Question.Text), JobID: NewID(), At: answered.Add(-72 * time.Hour)}
	j.ResolvedPrompt = askonce.ResolvedPrompt(j.Goal, j.Answer.Prompt())
	j.FallbackUsed = true
	j.AnswerDelivered = true
	j.Plan = &askonce.Plan{
		Title: "Hot cheese block",
		Spec:  json.RawMessage(`{"name": "hot_cheese", "hardness": 1.5, "tags": ["food", "block"]}`),
		Tasks: []askonce.Task{
			{ID: "t1", Title: "Block", Instruction: "Register the block", DependsOn: nil},
			{ID: "t2", Title: "Texture", Instruction: "Draw a hot texture", DependsOn: []string{"t1"}},
			{ID: "t3", Title: "Recipe", Instruction: "Add the smelting recipe", DependsOn: []string{"t1", "t2"}},
		},
		Assumptions: []string{"hot wins over frozen: the answer said so"},
	}
	j.Result = `{"raw": "output"}`
	j.Error = "an earlier attempt failed"
	j.Dispatch, j.DeliveryAttempts, j.DeliveryError = askonce.DispatchFailed, 2, "connection refused"
	j.CreatedAt = now.Add(-time.Hour)
	return j
}

// JobDiff returns one line per field in which got differs from want, or
// nil when they are equal. It compares what a store must keep, not how:
// times by instant, JSON by value (a store may reformat it), and nil
// lists equal to empty ones.
func JobDiff(want, got *askonce.Job) []string {
	if want == nil || got == nil {
		if want != got {
			return []string{fmt.Sprintf("job: want %v, got %v", want, got)}
		}
		return nil
	}
	w, g := reflect.ValueOf(normJob(want)).Elem(), reflect.ValueOf(normJob(got)).Elem()
	var diffs []string
	for i := range w.NumField() {
		wf, gf := w.Field(i).Interface(), g.Field(i).Interface()
		if !reflect.DeepEqual(wf, gf) {
			diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", w.Type().Field(i).Name, show(wf), show(gf)))
		}
	}
	return diffs
}

// checkJob fails the test when got differs from want.
func checkJob(t *testing.T, what string, want, got *askonce.Job) {
	t.Helper()
	for _, d := range JobDiff(want, got) {
		t.Errorf("%s: %s", what, d)
	}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func normJob(j *askonce.Job) *askonce.Job {
	c := j.Clone()
	c.Files = normList(c.Files)
	c.Candidates = normList(c.Candidates)
	c.SpecSchema = normJSON(c.SpecSchema)
	if c.Question != nil {
		c.Question.Options = normList(c.Question.Options)
		c.Question.ExpiresAt = normTimePtr(c.Question.ExpiresAt)
	}
	c.AnsweredAt = normTimePtr(c.AnsweredAt)
	if c.AnswerMemory != nil {
		c.AnswerMemory.At = normTime(c.AnswerMemory.At)
	}
	if c.Plan != nil {
		c.Plan.Spec = normJSON(c.Plan.Spec)
		c.Plan.Assumptions = normList(c.Plan.Assumptions)
		c.Plan.Tasks = normList(c.Plan.Tasks)
		for i := range c.Plan.Tasks {
			c.Plan.Tasks[i].DependsOn = normList(c.Plan.Tasks[i].DependsOn)
		}
	}
	c.CreatedAt = normTime(c.CreatedAt)
	c.UpdatedAt = normTime(c.UpdatedAt)
	c.Lease.Until = normTime(c.Lease.Until)
	return c
}

func normList[T any](v []T) []T {
	if len(v) == 0 {
		return nil
	}
	return v
}

// normTime drops the monotonic reading and the location, which say
// nothing about the instant.
func normTime(t time.Time) time.Time { return t.Round(0).UTC() }

func normTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	n := normTime(*t)
	return &n
}

// normJSON re-encodes JSON canonically (compact, object keys sorted).
func normJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	return slices.Equal(normJSON(a), normJSON(b))
}

// wantCode fails the test unless err is an *askonce.Error with code, and
// returns it.
func wantCode(t *testing.T, what string, err error, code string) *askonce.Error {
	t.Helper()
	if got := askonce.ErrorCode(err); got != code {
		t.Fatalf("%s: error code %q (%v), want %q", what, got, err, code)
	}
	var e *askonce.Error
	errors.As(err, &e)
	return e
}
