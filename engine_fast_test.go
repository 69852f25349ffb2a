package askonce_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// writePaths are the engine's two ways of writing a change and the
// planning it leads to: row-first (each state stored before the next
// interpreter call) for an interpreter that does not declare itself Fast,
// and one transaction per change for one that does.
var writePaths = []struct {
	name string
	fast bool
}{{"RowFirst", false}, {"Fast", true}}

// onPath returns interp as the engine sees it on a write path: declaring
// itself fast or not. The rules interpreter keeps its gating and profiles.
func onPath(interp askonce.Interpreter, fast bool) askonce.Interpreter {
	if r, ok := interp.(*rules.Interpreter); ok {
		return rulesOnPath{r, fast}
	}
	return declared{interp, fast}
}

type rulesOnPath struct {
	*rules.Interpreter
	fast bool
}

func (r rulesOnPath) Fast() bool { return r.fast }

type declared struct {
	askonce.Interpreter
	fast bool
}

func (d declared) Fast() bool { return d.fast }

// recorder is an Observer that keeps what it was told, in order.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) Transition(j *askonce.Job, fx *askonce.Effects) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var evs []askonce.EventType
	for _, e := range fx.Events {
		evs = append(evs, e.Type)
	}
	r.calls = append(r.calls, fmt.Sprintf("transition %s->%s %v hardcap=%q", fx.From, j.Status, evs, fx.HardCap))
}

func (r *recorder) Attempt(j *askonce.Job, a askonce.Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("attempt %d %s %s", a.N, a.Reason, a.Outcome))
}

// stored is what a job left in the store, without what differs between
// any two runs (ids, times, the version count).
type stored struct {
	Job      askonce.Job
	Attempts []string
	Events   []askonce.EventType
	History  []string
	Observed []string
}

func storedOf(t *testing.T, e *askonce.Engine, obs *recorder, j *askonce.Job) stored {
	t.Helper()
	got, err := e.Get(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	atts, err := e.Attempts(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := e.History(ctx, j.TenantID, j.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	s := stored{Job: *got, Events: eventTypes(t, e, j), Observed: obs.calls}
	for _, a := range atts {
		s.Attempts = append(s.Attempts, fmt.Sprintf("%d %s %s %+v", a.N, a.Reason, a.Outcome, a.Usage))
	}
	for _, h := range hist {
		s.History = append(s.History, h.Question+" = "+h.Answer)
	}
	s.Job.ID, s.Job.Version = "", 0
	s.Job.CreatedAt, s.Job.UpdatedAt, s.Job.AnsweredAt = time.Time{}, time.Time{}, nil
	if s.Job.Question != nil {
		q := s.Job.Question.Clone()
		q.ExpiresAt = nil
		s.Job.Question = &q
	}
	return s
}

// The fast path stores what the row-first path stores: the same job, the
// same attempts (numbered the same, with their usage), the same events in
// the same order, the same history, and the Observer hears the same
// transitions and attempts, for every kind of chain: a question and its
// answer, an answer settled by the history, by the goal, a gated
// question, retries, the hard cap's fallback and failure, a decline.
func TestFastPathStoresWhatTheRowFirstPathStores(t *testing.T) {
	t.Parallel()
	type scenario struct {
		name    string
		interp  func() askonce.Interpreter
		profile string
		goal    string
		hardCap askonce.HardCap
		// then acts on the created job (answer, decline); nil does nothing.
		then func(e *askonce.Engine, j *askonce.Job) error
	}
	answer := func(a string) func(e *askonce.Engine, j *askonce.Job) error {
		return func(e *askonce.Engine, j *askonce.Job) error {
			_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: j.TenantID, ID: j.ID, Answer: askonce.TextAnswer(a)})
			return err
		}
	}
	decline := func(e *askonce.Engine, j *askonce.Job) error {
		_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActDecline, TenantID: j.TenantID, ID: j.ID})
		return err
	}
	rulesOf := func() askonce.Interpreter { return rulesInterpreter(t) }
	scriptOf := func(raws ...string) func() askonce.Interpreter {
		return func() askonce.Interpreter {
			var rs []func(*askonce.Request) (*askonce.Response, error)
			for i, r := range raws {
				rs = append(rs, reply(r, askonce.Usage{PromptTokens: int64(10 + i), CompletionTokens: 1}))
			}
			return scripted(rs...)
		}
	}
	withDefault := `{"question":{"type":"CONFIRM","text":"Delete the old recipes?","reason":"target_file_exists","default":"no"}}`
	for _, sc := range []scenario{
		{name: "AskThenAnswer", interp: rulesOf, goal: "hot frozen cheese", then: answer("hot")},
		{name: "PlanAtOnce", interp: rulesOf, goal: "write a README then add tests"},
		{name: "ResolvedByTheGoal", interp: rulesOf, goal: "delete the build folder. Yes, I am sure"},
		{name: "Gated", interp: rulesOf, profile: "minecraft-mod", goal: "a hot frozen ore block"},
		{name: "AnswerThatSettlesNothing", interp: rulesOf, goal: "hot frozen cheese", then: answer("lukewarm, maybe")},
		{name: "RetriesThenAsksThenRetriesAfterTheAnswer", interp: scriptOf("bad", cycleRaw, askTemp, "worse", planRaw), goal: "make a plan", then: answer("frozen")},
		{name: "RetriesUntilInvalid", interp: scriptOf("x", "y", "z"), goal: "make a plan"},
		{name: "HardCapFallbackThenPlan", interp: scriptOf(askTemp, askTemp, planRaw), goal: "g", then: answer("hot")},
		{name: "HardCapFail", interp: scriptOf(askTemp, askTemp), goal: "g", hardCap: askonce.HardCapFail, then: answer("hot")},
		{name: "DeclineAppliesTheDefault", interp: scriptOf(withDefault, planRaw), goal: "g", then: decline},
		{name: "DeclineWithoutDefaultFallsBack", interp: scriptOf(askTemp, planRaw), goal: "g", then: decline},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			var got [2]stored
			for i, p := range writePaths {
				obs := &recorder{}
				e := newEngine(t, onPath(sc.interp(), p.fast))
				e.Observer = obs
				j, err := e.Create(ctx, askonce.CreateRequest{Goal: sc.goal, Profile: sc.profile, SessionID: "s", HardCap: sc.hardCap})
				if err != nil {
					t.Fatalf("%s: create: %v", p.name, err)
				}
				if sc.then != nil {
					if err := sc.then(e, j); err != nil {
						t.Fatalf("%s: %v", p.name, err)
					}
				}
				got[i] = storedOf(t, e, obs, j)
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Errorf("row-first stored\n%+v\nfast stored\n%+v", got[0], got[1])
			}
		})
	}
}

// With a fast interpreter a clarification round trip is two durable
// transactions: the job with its question, the answer with its plan.
// The row-first path takes four.
func TestFastPathCommitsEachChangeWithItsOutcome(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
			e := &askonce.Engine{Store: st, Interpreter: onPath(rulesInterpreter(t), p.fast)}
			before := st.Commits()
			j := create(t, e, "hot frozen cheese")
			created := st.Commits()
			if j.Status != askonce.StatusPending {
				t.Fatalf("created job is %s, want pending", j.Status)
			}
			if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil {
				t.Fatal(err)
			}
			want := [2]int64{2, 2} // row-first: the job, then its question; the answer, then its plan
			if p.fast {
				want = [2]int64{1, 1}
			}
			if got := [2]int64{created - before, st.Commits() - created}; got != want {
				t.Errorf("commits for create and answer %v, want %v", got, want)
			}
		})
	}
}

// panics is an interpreter whose calls panic: the process dying inside
// the call.
func panics(context.Context, *askonce.Request) (*askonce.Response, error) {
	panic("process died")
}

// Rule 13 with a fast interpreter: a crash before the commit acknowledges
// nothing and leaves nothing half done. A create leaves no job (its
// caller got no id); an answer leaves the job pending with its question,
// no answer and no history, and the answer can be given again.
func TestRule13_FastPathCrashBeforeTheCommitAcknowledgesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	st := openStore(t, path)
	crash := func(f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Fatal("the interpreter did not run")
			}
		}()
		f()
	}
	dying := &askonce.Engine{Store: st, Interpreter: declared{askonce.InterpreterFunc(panics), true}}
	crash(func() { dying.Create(ctx, askonce.CreateRequest{Goal: "write docs then ship", SessionID: "s"}) })
	page, err := st.ListJobs(ctx, askonce.DefaultTenant, askonce.JobFilter{})
	if err != nil || len(page.Jobs) != 0 {
		t.Fatalf("jobs after a crash inside create: %v, %v; want none", page, err)
	}

	alive := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
	j := create(t, alive, "hot frozen cheese")
	crash(func() {
		dying.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	})
	st.Close()

	e := &askonce.Engine{Store: openStore(t, path), Interpreter: rulesInterpreter(t)}
	after, err := e.Get(ctx, "", j.ID)
	if err != nil || after.Status != askonce.StatusPending || after.Answer.String() != "" || after.Version != j.Version {
		t.Fatalf("job after a crash inside answer: %+v, %v; want it pending as it was", after, err)
	}
	if h, err := e.History(ctx, "", "s1"); err != nil || len(h) != 0 {
		t.Fatalf("history after the crash: %v, %v; want none", h, err)
	}
	if n, err := e.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("recovered %d, %v; a pending job has nothing to recover", n, err)
	}
	done, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil || done.Status != askonce.StatusSuccess {
		t.Fatalf("answer after the crash: %v, %v; want success", done, err)
	}
}

// Start, an Act in the background and the answer link with a fast interpreter have
// nothing to run in the background: the returned job is the outcome, as
// stored, and the Run has ended with it.
func TestFastPathStartsEndAtOnce(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	e.LinkSecret = []byte("a secret of the test's own")
	j, run, err := e.Start(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPending || e.AnswerToken(j) == "" {
		t.Fatalf("Start returned %s, want pending with an answer link", j.Status)
	}
	if done, err := run.Result(); err != nil || done != j {
		t.Fatalf("run result %v, %v; want the returned job", done, err)
	}
	next, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: e.AnswerToken(j), Answer: askonce.TextAnswer("hot"), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil || next.Status != askonce.StatusSuccess || stored.Status != askonce.StatusSuccess || next.Version != stored.Version {
		t.Fatalf("answer by link returned %s v%d, stored %v; want success as stored", next.Status, next.Version, stored)
	}
	if done, _ := run.Result(); done != next {
		t.Fatalf("run result %v, want the returned job", done)
	}
	if _, err := e.JobByAnswerToken(ctx, e.AnswerToken(j)); err != nil {
		t.Fatalf("the link's row, written with the create: %v", err)
	}
}

// The engine's write path follows what the interpreter declares.
func TestOnlyDeclaredFastInterpretersTakeTheFastPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		interp askonce.Interpreter
		fast   bool
	}{
		{"Rules", rulesInterpreter(t), true},
		{"RulesDeclaredSlow", onPath(rulesInterpreter(t), false), false},
		{"Func", askonce.InterpreterFunc(rulesInterpreter(t).Interpret), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "askonce.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			e := &askonce.Engine{Store: st, Interpreter: tc.interp}
			before := st.Commits()
			create(t, e, "hot frozen cheese")
			if fast := st.Commits()-before == 1; fast != tc.fast {
				t.Errorf("%d commits for a create that asks; fast path %v, want %v", st.Commits()-before, fast, tc.fast)
			}
		})
	}
}
