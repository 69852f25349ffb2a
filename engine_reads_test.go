package askonce_test

import (
	"context"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
)

// readCounter is a Store that counts its GetJob and LookupHistory calls.
type readCounter struct {
	askonce.Store
	reads, lookups atomic.Int64
}

func (r *readCounter) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	r.reads.Add(1)
	return r.Store.GetJob(ctx, tenant, id)
}

func (r *readCounter) LookupHistory(ctx context.Context, q askonce.HistoryQuery) (*askonce.HistoryEntry, error) {
	r.lookups.Add(1)
	return r.Store.LookupHistory(ctx, q)
}

// countingEngine is an engine with the rules interpreter, on the fast
// path or not, over a store that counts its reads.
func countingEngine(t *testing.T, fast bool) (*readCounter, *askonce.Engine) {
	st := &readCounter{Store: openStore(t, filepath.Join(t.TempDir(), "askonce.db"))}
	return st, &askonce.Engine{Store: st, Interpreter: onPath(rulesInterpreter(t), fast)}
}

// The repeat guard looks a new job's question up in its session's
// history, unless the session was named for the job when it was created:
// no history holds an answer for it yet.
func TestRule5_QuestionInASessionNamedForTheJobIsNotLookedUp(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			st, e := countingEngine(t, p.fast)
			for _, c := range []struct {
				session string
				lookups int64
			}{{"", 0}, {"s1", 1}} {
				st.lookups.Store(0)
				j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: c.session})
				if err != nil || j.Status != askonce.StatusPending {
					t.Fatalf("create in session %q: %v %v", c.session, err, j)
				}
				if n := st.lookups.Load(); n != c.lookups {
					t.Errorf("session %q: %d history lookups, want %d", c.session, n, c.lookups)
				}
			}
		})
	}
}

// An answer to a job this engine left pending starts from the job as it
// committed it: the store is not asked for the job, and the answer
// returns the job exactly as the store then holds it.
func TestAnswerToAJobThisEngineLeftPendingDoesNotReadItBack(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			st, e := countingEngine(t, p.fast)
			j := create(t, e, "hot frozen cheese")
			if j.Status != askonce.StatusPending {
				t.Fatalf("created %s, want pending", j.Status)
			}
			got, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
			if err != nil || got.Status != askonce.StatusSuccess {
				t.Fatalf("answer: %v %v", err, got)
			}
			if n := st.reads.Load(); n != 0 {
				t.Errorf("the answer read the job %d times, want 0", n)
			}
			stored, err := e.Get(ctx, "", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, stored) {
				t.Errorf("answer returned\n%+v\nstore holds\n%+v", got, stored)
			}
		})
	}
}

// A job this engine left pending but another engine (another process on
// the same store) moved on since is decided by the stored job: the
// answer is a conflict carrying the stored state, and changes nothing.
func TestRule2_AnswerToAJobMovedOnElsewhereIsDecidedByTheStoredJob(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		for _, other := range []struct {
			name   string
			act    func(e *askonce.Engine, id string) (*askonce.Job, error)
			status askonce.Status
		}{
			{"Cancelled", func(e *askonce.Engine, id string) (*askonce.Job, error) {
				j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: id})
				return j, err
			}, askonce.StatusCancelled},
			{"Answered", func(e *askonce.Engine, id string) (*askonce.Job, error) {
				j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: id, Answer: askonce.TextAnswer("frozen")})
				return j, err
			}, askonce.StatusSuccess},
		} {
			t.Run(p.name+"/"+other.name, func(t *testing.T) {
				t.Parallel()
				st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
				a := &askonce.Engine{Store: st, Interpreter: onPath(rulesInterpreter(t), p.fast)}
				b := &askonce.Engine{Store: st, Interpreter: onPath(rulesInterpreter(t), p.fast)}
				j := create(t, a, "hot frozen cheese")
				moved, err := other.act(b, j.ID)
				if err != nil || moved.Status != other.status {
					t.Fatalf("other engine: %v %v", err, moved)
				}
				_, _, err = a.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
				var ae *askonce.Error
				if !asError(err, &ae) || ae.Code != askonce.ECONFLICT || ae.Job == nil || ae.Job.Status != other.status {
					t.Fatalf("answer after the job moved on: %v, want a conflict carrying the %s job", err, other.status)
				}
				stored, err := a.Get(ctx, "", j.ID)
				if err != nil {
					t.Fatal(err)
				}
				if stored.Version != moved.Version || !stored.Answer.Equal(moved.Answer) {
					t.Errorf("stored version %d answer %q, want %d %q", stored.Version, stored.Answer, moved.Version, moved.Answer)
				}
				evs := eventTypes(t, a, j)
				if n := count(evs, askonce.EventAnswered); n > 1 {
					t.Errorf("%d answered events: %v", n, evs)
				}
			})
		}
	}
}

// An answer, a decline or a cancel given the job as its caller just read
// it (a Slack click reads it to find the option) starts from that job:
// the store is not asked for it again. A job that moved on since it was
// read is decided by the stored job, as for one this engine remembers.
func TestActionOnTheJobInHand(t *testing.T) {
	t.Parallel()
	actions := []struct {
		name   string
		act    func(e *askonce.Engine, j *askonce.Job) (*askonce.Job, error)
		status askonce.Status
	}{
		{"Reply", func(e *askonce.Engine, j *askonce.Job) (*askonce.Job, error) {
			next, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Job: j, Answer: askonce.TextAnswer("hot"), Background: true})
			if err != nil {
				return nil, err
			}
			run.Wait(ctx)
			return next, nil
		}, askonce.StatusPlanning},
		{"Decline", func(e *askonce.Engine, j *askonce.Job) (*askonce.Job, error) {
			next, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActDecline, Job: j, Background: true})
			if err != nil {
				return nil, err
			}
			run.Wait(ctx)
			return next, nil
		}, askonce.StatusPlanning},
		{"Cancel", func(e *askonce.Engine, j *askonce.Job) (*askonce.Job, error) {
			j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActCancel, Job: j})
			return j, err
		}, askonce.StatusCancelled},
	}
	for _, a := range actions {
		t.Run(a.name+"/IsNotReadAgain", func(t *testing.T) {
			t.Parallel()
			st, e := countingEngine(t, false)
			j := create(t, e, "hot frozen cheese")
			held, err := e.Get(ctx, "", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			st.reads.Store(0)
			got, err := a.act(e, held)
			if err != nil || got.Status != a.status {
				t.Fatalf("%s: %v %v; want %s", a.name, err, got, a.status)
			}
			if n := st.reads.Load(); n != 0 {
				t.Errorf("the %s read the job %d times, want 0", a.name, n)
			}
		})
		t.Run(a.name+"/MovedOnSinceReadIsDecidedByTheStoredJob", func(t *testing.T) {
			t.Parallel()
			st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
			e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
			other := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
			j := create(t, e, "hot frozen cheese")
			held, err := e.Get(ctx, "", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			moved, _, err := other.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID})
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.act(e, held)
			var ae *askonce.Error
			if !asError(err, &ae) || ae.Code != askonce.ECONFLICT || ae.Job == nil || ae.Job.Status != askonce.StatusCancelled {
				t.Fatalf("%s of a job cancelled since it was read: %v, want a conflict carrying the cancelled job", a.name, err)
			}
			stored, err := e.Get(ctx, "", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if stored.Version != moved.Version {
				t.Errorf("stored version %d, want %d", stored.Version, moved.Version)
			}
		})
	}
}

// An act that is not answer, decline or cancel is refused before
// anything is read or written.
func TestActOfAnUnknownKindIsInvalidAndChangesNothing(t *testing.T) {
	t.Parallel()
	st, e := countingEngine(t, false)
	j := create(t, e, "hot frozen cheese")
	st.reads.Store(0)
	for _, do := range []askonce.ActKind{"", "approve"} {
		_, _, err := e.Act(ctx, askonce.Act{Do: do, ID: j.ID, Answer: askonce.TextAnswer("hot")})
		if askonce.ErrorCode(err) != askonce.EINVALID {
			t.Errorf("act %q: %v, want EINVALID", do, err)
		}
	}
	if n := st.reads.Load(); n != 0 {
		t.Errorf("the refused acts read the job %d times", n)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil || stored.Version != j.Version || stored.Status != askonce.StatusPending {
		t.Fatalf("job after the refused acts: %v %v; want it pending at version %d", stored, err, j.Version)
	}
}

// Act's three targets each read the job at most once: a job in hand not
// at all, an answer link's token once (its lookup), and an id once when
// this engine did not leave the job pending itself.
func TestJobReadOnce_EachTargetOfAnAct(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		target func(e *askonce.Engine, j *askonce.Job) askonce.Act
		reads  int64
	}{
		{"Job", func(_ *askonce.Engine, j *askonce.Job) askonce.Act { return askonce.Act{Job: j} }, 0},
		{"Token", func(e *askonce.Engine, j *askonce.Job) askonce.Act { return askonce.Act{Token: e.AnswerToken(j)} }, 1},
		{"ID", func(_ *askonce.Engine, j *askonce.Job) askonce.Act {
			return askonce.Act{TenantID: j.TenantID, ID: j.ID}
		}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, j, e := answertest.AskedElsewhere(t, "hot frozen cheese")
			a := c.target(e, j)
			a.Do, a.Answer = askonce.ActAnswer, askonce.TextAnswer("hot")
			got, run, err := e.Act(ctx, a)
			if err != nil || got.Status != askonce.StatusSuccess {
				t.Fatalf("act on a %s: %v %v; want success", c.name, got, err)
			}
			if done, _ := run.Result(); done != got {
				t.Errorf("the Run of a synchronous act ended with %v, want the job returned", done)
			}
			if n := st.Jobs(); n != c.reads {
				t.Errorf("the act on a %s read the job %d times; want %d", c.name, n, c.reads)
			}
		})
	}
}

// A gate report given the job in hand (as an answer just left it) is
// applied to it: the store is not asked for the job. A job that moved on
// since it was read is decided by the stored job: the report answers
// what the stored job says.
func TestReportOnTheJobInHand(t *testing.T) {
	t.Parallel()
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}
	asked := func(t *testing.T, e *askonce.Engine) *askonce.Job {
		t.Helper()
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", Mode: askonce.ModeGate})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := e.Report(ctx, "", j.ID, askonce.Report{Question: &q})
		if err != nil || rr.Action != askonce.ActionAsk {
			t.Fatalf("first report: %v %v; want ask", rr, err)
		}
		return rr.Job
	}
	t.Run("IsNotReadAgain", func(t *testing.T) {
		t.Parallel()
		st := answertest.Counting(t)
		e := &askonce.Engine{Store: st}
		j := asked(t, e)
		answered, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Job: j, Answer: askonce.AnswerOf(askonce.OptionValue("hot"))})
		if err != nil {
			t.Fatal(err)
		}
		st.Reset()
		rr, err := e.Report(ctx, "", j.ID, askonce.Report{Question: &q, Job: answered})
		if err != nil || rr.Action != askonce.ActionResume || rr.Answer != "hot" {
			t.Fatalf("report after the answer: %+v %v; want resume with hot", rr, err)
		}
		if n := st.Jobs(); n != 0 {
			t.Errorf("the report read the job %d times; want 0", n)
		}
	})
	t.Run("MovedOnSinceReadIsDecidedByTheStoredJob", func(t *testing.T) {
		t.Parallel()
		st := answertest.Counting(t)
		e := &askonce.Engine{Store: st}
		held := asked(t, e)
		if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: held.ID, Answer: askonce.AnswerOf(askonce.OptionValue("frozen"))}); err != nil {
			t.Fatal(err)
		}
		rr, err := e.Report(ctx, "", held.ID, askonce.Report{Question: &q, Job: held})
		if err != nil || rr.Action != askonce.ActionResume || rr.Answer != "frozen" {
			t.Fatalf("report on the job as read before the answer: %+v %v; want resume with frozen", rr, err)
		}
	})
}
