package askonce_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// TestCreate checks what creating a job stores and refuses, one behaviour per subtest.
func TestCreate(t *testing.T) {
	t.Parallel()
	t.Run("CallerChosenIDIsAUUIDUsedOnce", testCreateCallerChosenIDIsAUUIDUsedOnce)
	t.Run("FilesArePathsABuilderCanUse", testCreateFilesArePathsABuilderCanUse)
	t.Run("UnusableSpecSchemaIsInvalidBeforeAnyInterpreterRuns", testCreateUnusableSpecSchemaIsInvalidBeforeAnyInterpreterRuns)
	t.Run("CommittedJobIsNeverReportedAsAFailure", testCreateCommittedJobIsNeverReportedAsAFailure)
	t.Run("LostCreateReturnsTheStoresOwnError", testCreateLostCreateReturnsTheStoresOwnError)
}

// A job's files are paths a builder will use: a bad entry is EINVALID
// naming the entry and the problem, and no job is stored.
func testCreateFilesArePathsABuilderCanUse(t *testing.T) {
	t.Parallel()
	s := scripted()
	e := newEngine(t, s)
	cases := []struct {
		name, file, want string
	}{
		{"LeadingTilde", "~/notes.md", `files[1]: "~/notes.md" starts with ~`},
		{"Newline", "a.md\nb.md", "control character or line break"},
		{"ControlCharacter", "a\x1b[31m.md", "control character or line break"},
		{"BidiOverride", "invoice\u202efdp.exe", "control character or line break"},
		{"Over1024Bytes", strings.Repeat("d/", 512) + "f", "path is 1025 bytes; the limit is 1024"},
		{"Absolute", "/etc/passwd", "is absolute"},
		{"OutsideTheRoot", "docs/../../etc/passwd", "leaves the project root"},
		{"Empty", "", "is not a path"},
		{"NotUTF8", "a\xff.md", "not valid UTF-8"},
	}
	for _, c := range cases {
		_, err := e.Create(ctx, askonce.CreateRequest{Goal: "fix the typo", Files: []string{"ok.md", c.file}})
		if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), c.want) {
			t.Errorf("%s: Create = %v; want invalid saying %q", c.name, err, c.want)
		}
	}
	page, err := e.List(ctx, "", askonce.JobFilter{})
	if err != nil || len(page.Jobs) != 0 || len(s.requests()) != 0 {
		t.Fatalf("a rejected create left %d jobs (%v) and %d interpreter calls", len(page.Jobs), err, len(s.requests()))
	}
	ok := []string{"README.md", "docs/ノート.md", "./src/main.go", ".", strings.Repeat("d/", 511) + "fg"}
	e = newEngine(t, scripted(reply(planRaw, u1)))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "fix the typo", Files: ok})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("usable files rejected: %v", err)
	}
}

// specSchema is checked when the job is created: an unusable schema is
// EINVALID naming the problem, before any interpreter runs, not a
// validation_error blamed on the interpreter after three attempts.
func testCreateUnusableSpecSchemaIsInvalidBeforeAnyInterpreterRuns(t *testing.T) {
	t.Parallel()
	s := scripted(reply(planRaw, u1))
	e := newEngine(t, s)
	for schema, want := range map[string]string{
		`{"type":"objekt"}`:                                       "specSchema is not a usable JSON Schema: at /type",
		`{"$ref":"https://example.com/s.json"}`:                   `$ref "https://example.com/s.json" points outside the schema`,
		`{"properties":{"a":{"$ref":"a.json"}}}`:                  `$ref "a.json" points outside the schema`,
		`{"$ref":"#/definitions/nowhere"}`:                        "#/definitions/nowhere",
		`"object"`:                                                "specSchema must be a JSON object",
		`{"required":"name"}`:                                     "at /required",
		`{"properties":{"n":{"minimum":"one"}}}`:                  "at /properties/n/minimum",
		`{"pattern":"[a-"}`:                                       "is not valid regex",
		`{"$schema":"http://example.com/draft"}`:                  "points outside the schema",
		`{"$defs":{"a":{"$ref":"#/$defs/b"}},"$ref":"#/$defs/a"}`: "#/$defs/b",
	} {
		_, err := e.Create(ctx, askonce.CreateRequest{Goal: "make a block", SpecSchema: json.RawMessage(schema)})
		if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), want) {
			t.Errorf("specSchema %s: Create = %v; want invalid saying %q", schema, err, want)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("the interpreter ran %d times for rejected schemas", n)
	}
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make a block", SpecSchema: json.RawMessage(`{"$defs":{"k":{"type":"string"}},"properties":{"kind":{"$ref":"#/$defs/k"}}}`)})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("a schema with a local $ref: %v %+v", err, j)
	}
}

// brokenCommit is a store whose CreateJob commits and then reports the
// connection lost (EUNAVAILABLE), as a commit cut off before its reply
// does; its reads fail while down is set. With updates set its UpdateJob
// does the same, and with lost too it reports the connection lost
// without committing; rival, when set, is another change that commits
// instead, once, before the connection is reported lost.
type brokenCommit struct {
	askonce.Store
	down, updates, lost bool
	rival               func()
	// createLost: CreateJob reports the connection lost without
	// committing.
	createLost bool
}

func (b *brokenCommit) CreateJob(ctx context.Context, c *askonce.Change) error {
	if b.createLost {
		return askonce.Unavailable(errors.New("connection reset by peer"))
	}
	if err := b.Store.CreateJob(ctx, c); err != nil {
		return err
	}
	return askonce.Unavailable(errors.New("connection reset by peer"))
}

func (b *brokenCommit) UpdateJob(ctx context.Context, c *askonce.Change) error {
	if !b.updates {
		return b.Store.UpdateJob(ctx, c)
	}
	if b.rival != nil {
		rival := b.rival
		b.rival = nil
		rival()
	} else if !b.lost {
		if err := b.Store.UpdateJob(ctx, c); err != nil {
			return err
		}
	}
	return askonce.Unavailable(errors.New("connection reset by peer"))
}

func (b *brokenCommit) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	if b.down {
		return nil, askonce.Unavailable(errors.New("connection refused"))
	}
	return b.Store.GetJob(ctx, tenant, id)
}

// A create whose commit went through although the store reported the
// connection lost is a success with the stored job, never a failure;
// when the store cannot tell, the error is EUNAVAILABLE naming the job
// id, so the caller can look it up.
func testCreateCommittedJobIsNeverReportedAsAFailure(t *testing.T) {
	t.Parallel()
	for _, goal := range []string{"hot frozen cheese", "write chapter 1 then review it"} {
		st := &brokenCommit{Store: openStore(t, filepath.Join(t.TempDir(), "a.db"))}
		e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: goal, SessionID: "s1"})
		if err != nil || j.ID == "" || j.Status == askonce.StatusPlanning {
			t.Fatalf("create %q whose commit went through: %+v, %v; want the stored job", goal, j, err)
		}
		st.down = true
		id := "01a21340-0000-7000-8000-000000000001"
		_, err = e.Create(ctx, askonce.CreateRequest{ID: id, Goal: goal, SessionID: "s2"})
		if askonce.ErrorCode(err) != askonce.EUNAVAILABLE || !strings.Contains(askonce.ErrorMessage(err), id) {
			t.Fatalf("create %q while the store cannot say: %v; want unavailable naming the job id", goal, err)
		}
	}
}

// An answer, a decline or a cancel whose commit went through although
// the store reported the connection lost is a success with the stored
// job, never a 503 that a retry then meets as a conflict; one that did
// not commit is EUNAVAILABLE, and the retry succeeds; when the store
// cannot tell, the error is EUNAVAILABLE naming the job id; and when
// another change committed instead, it is not taken for this one. With the
// rules interpreter (fast: the change commits with its planning) and a
// scripted one (the change commits, then the planning).
func TestTransition_CommittedChangeIsNeverReportedAsAFailure(t *testing.T) {
	t.Parallel()
	ops := map[string]func(e *askonce.Engine, id string) (*askonce.Job, error){
		"answer": func(e *askonce.Engine, id string) (*askonce.Job, error) {
			j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: id, Answer: askonce.TextAnswer("hot")})
			return j, err
		},
		"decline": func(e *askonce.Engine, id string) (*askonce.Job, error) {
			j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActDecline, ID: id})
			return j, err
		},
		"cancel": func(e *askonce.Engine, id string) (*askonce.Job, error) {
			j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: id})
			return j, err
		},
	}
	interpreters := map[string]func() askonce.Interpreter{
		"rules":    func() askonce.Interpreter { return rulesInterpreter(t) },
		"scripted": func() askonce.Interpreter { return scripted(reply(askTemp, u1), reply(planRaw, u1)) },
	}
	for iname, interp := range interpreters {
		for name, op := range ops {
			pending := func() (*brokenCommit, *askonce.Engine, *askonce.Job) {
				st := &brokenCommit{Store: openStore(t, filepath.Join(t.TempDir(), "a.db"))}
				e := &askonce.Engine{Store: st, Interpreter: interp()}
				j := create(t, e, "hot frozen cheese")
				if j.Status != askonce.StatusPending {
					t.Fatalf("%s: create: %s, want pending", iname, j.Status)
				}
				st.updates = true
				return st, e, j
			}

			st, e, j := pending()
			got, err := op(e, j.ID)
			if err != nil {
				t.Fatalf("%s %s whose commit went through: %v; want success", iname, name, err)
			}
			stored, err := st.Store.GetJob(ctx, j.TenantID, j.ID)
			if err != nil || got.Status == askonce.StatusPending || got.Status != stored.Status || got.Version != stored.Version {
				t.Fatalf("%s %s: returned %s v%d, stored %+v, %v; want the stored job", iname, name, got.Status, got.Version, stored, err)
			}

			st, e, j = pending()
			st.lost = true
			if _, err := op(e, j.ID); askonce.ErrorCode(err) != askonce.EUNAVAILABLE {
				t.Fatalf("%s %s that did not commit: %v; want unavailable", iname, name, err)
			}
			if stored, err := st.Store.GetJob(ctx, j.TenantID, j.ID); err != nil || stored.Status != askonce.StatusPending {
				t.Fatalf("%s %s that did not commit left %+v, %v", iname, name, stored, err)
			}
			st.updates = false
			if got, err := op(e, j.ID); err != nil || got.Status == askonce.StatusPending {
				t.Fatalf("%s %s retried: %+v, %v; want success", iname, name, got, err)
			}

			st, e, j = pending()
			other := &askonce.Engine{Store: st.Store, Interpreter: rulesInterpreter(t)}
			st.rival = func() {
				var err error
				if name == "cancel" {
					_, _, err = other.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("frozen")})
				} else {
					_, _, err = other.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID})
				}
				if err != nil {
					t.Errorf("%s %s: the rival change: %v", iname, name, err)
				}
			}
			if got, err := op(e, j.ID); askonce.ErrorCode(err) != askonce.EUNAVAILABLE {
				t.Fatalf("%s %s when another change committed instead: %+v, %v; want unavailable", iname, name, got, err)
			}

			st, e, j = pending()
			st.down = true
			_, err = op(e, j.ID)
			if askonce.ErrorCode(err) != askonce.EUNAVAILABLE || !strings.Contains(askonce.ErrorMessage(err), "GET /jobs/"+j.ID) {
				t.Fatalf("%s %s while the store cannot say: %v; want unavailable naming the job id", iname, name, err)
			}
		}
	}
}

// A create whose read-back finds nothing did not commit: it returns the
// store's own error (a retry may clear it), not the message that the job
// may exist.
func testCreateLostCreateReturnsTheStoresOwnError(t *testing.T) {
	t.Parallel()
	st := &brokenCommit{Store: openStore(t, filepath.Join(t.TempDir(), "a.db")), createLost: true}
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
	_, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
	if askonce.ErrorCode(err) != askonce.EUNAVAILABLE || !strings.Contains(err.Error(), "connection reset by peer") || strings.Contains(askonce.ErrorMessage(err), "may not have been created") {
		t.Fatalf("a create that did not commit: %v; want the store's own unavailable error", err)
	}
}

// A change whose read-back finds the job two versions ahead (another
// change and its planning committed meanwhile) cannot tell whether it
// was applied: it is EUNAVAILABLE naming the job, never a success.
func TestChangeReadBackTwoVersionsAheadIsUnavailableNamingTheJob(t *testing.T) {
	t.Parallel()
	st := &brokenCommit{Store: openStore(t, filepath.Join(t.TempDir(), "a.db"))}
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
	j := create(t, e, "hot frozen cheese")
	st.updates = true
	other := &askonce.Engine{Store: st.Store, Interpreter: scripted(reply(planRaw, u1))}
	st.rival = func() {
		if _, _, err := other.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("frozen")}); err != nil {
			t.Errorf("the rival answer: %v", err)
		}
	}
	got, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID})
	if askonce.ErrorCode(err) != askonce.EUNAVAILABLE || !strings.Contains(askonce.ErrorMessage(err), "GET /jobs/"+j.ID) {
		t.Fatalf("a cancel that finds the job two versions ahead: %+v, %v; want unavailable naming the job", got, err)
	}
	if stored, err := st.Store.GetJob(ctx, j.TenantID, j.ID); err != nil || stored.Version != j.Version+2 {
		t.Fatalf("stored %+v, %v; want the rival's two versions", stored, err)
	}
}
