package askonce_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// blocked returns a reply that waits for release before answering raw.
func blocked(release <-chan struct{}, raw string) func(*askonce.Request) (*askonce.Response, error) {
	return func(*askonce.Request) (*askonce.Response, error) {
		<-release
		return &askonce.Response{Raw: []byte(raw)}, nil
	}
}

func TestRule1_StartStoresThePlanningJobBeforeTheInterpreterAnswers(t *testing.T) {
	release := make(chan struct{})
	e := newEngine(t, scripted(blocked(release, planRaw)))
	j, run, err := e.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPlanning {
		t.Fatalf("Start returned status %s, want planning", j.Status)
	}
	stored, err := e.Get(ctx, j.TenantID, j.ID)
	if err != nil || stored.Status != askonce.StatusPlanning {
		t.Fatalf("stored job before planning ended: %v, %v; want planning", stored, err)
	}
	if got, _ := run.Result(); got != nil {
		t.Fatal("Result returned a job before the run ended")
	}
	close(release)
	<-run.Done()
	done, err := run.Result()
	if err != nil || done.Status != askonce.StatusSuccess {
		t.Fatalf("run ended with %v, %v; want success", done, err)
	}
	if stored, _ = e.Get(ctx, j.TenantID, j.ID); stored.Status != askonce.StatusSuccess {
		t.Errorf("stored status %s after the run, want success", stored.Status)
	}
}

func TestStartIsNotCancelledWithTheRequestContext(t *testing.T) {
	release := make(chan struct{})
	e := newEngine(t, scripted(blocked(release, planRaw)))
	rctx, cancel := context.WithCancel(ctx)
	_, run, err := e.Start(rctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the client went away
	close(release)
	<-run.Done()
	if j, err := run.Result(); err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("after the request context was cancelled the run ended %v, %v; want success", j, err)
	}
}

func TestStartRejectsInvalidRequestsAtOnceAndStoresNothing(t *testing.T) {
	e := newEngine(t, scripted())
	_, _, err := e.Start(ctx, askonce.CreateRequest{Goal: "  ", SessionID: "empty"})
	if askonce.ErrorCode(err) != askonce.EINVALID {
		t.Fatalf("empty goal: %v, want EINVALID", err)
	}
	page, err := e.List(ctx, "", askonce.JobFilter{SessionID: "empty"})
	if err != nil || len(page.Jobs) != 0 {
		t.Fatalf("jobs stored after a rejected Start: %v, %v", page, err)
	}
}

func TestActInTheBackgroundCommitsTheAnswerThenPlans(t *testing.T) {
	release := make(chan struct{})
	e := newEngine(t, scripted(reply(askTemp, u1), blocked(release, planRaw)))
	j := create(t, e, "hot frozen cheese")
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: j.TenantID, ID: j.ID, Answer: askonce.TextAnswer("nonsense"), Background: true}); askonce.ErrorCode(err) != askonce.EINVALID {
		t.Fatalf("invalid answer: %v, want EINVALID at once", err)
	}
	got, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: j.TenantID, ID: j.ID, Answer: askonce.TextAnswer("hot"), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != askonce.StatusPlanning || got.ClarificationStatus != askonce.ClarificationAnswered || got.Answer.String() != "hot" {
		t.Fatalf("the background answer returned %s/%s answer %q; want planning/answered hot", got.Status, got.ClarificationStatus, got.Answer)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: j.TenantID, ID: j.ID, Answer: askonce.TextAnswer("frozen"), Background: true}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("second answer while planning: %v, want ECONFLICT", err)
	}
	close(release)
	<-run.Done()
	if done, err := run.Result(); err != nil || done.Status != askonce.StatusSuccess {
		t.Fatalf("run ended %v, %v; want success", done, err)
	}
}

func TestStartOfAGateJobHasNothingToRun(t *testing.T) {
	e := newEngine(t, scripted())
	j, run, err := e.Start(ctx, askonce.CreateRequest{Goal: "make cheese", Mode: askonce.ModeGate})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.Done():
	default:
		t.Fatal("the run of a gate job has not ended")
	}
	if done, _ := run.Result(); done.ID != j.ID || done.Status != askonce.StatusPlanning {
		t.Errorf("gate run result %+v, want the planning gate job", done)
	}
}

func TestDrainWaitsForBackgroundPlanning(t *testing.T) {
	release := make(chan struct{})
	e := newEngine(t, scripted(blocked(release, planRaw)))
	if _, _, err := e.Start(ctx, askonce.CreateRequest{Goal: "make cheese"}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := e.Drain(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Drain with a run in flight: %v, want DeadlineExceeded", err)
	}
	close(release)
	if err := e.Drain(ctx); err != nil {
		t.Fatalf("Drain after the run can end: %v", err)
	}
}

// brokenReads fails GetJob for one job id, as a store whose disk errors.
type brokenReads struct {
	askonce.Store
	id string
}

func (s brokenReads) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	if id == s.id {
		return nil, errors.New("disk I/O error")
	}
	return s.Store.GetJob(ctx, tenant, id)
}

func TestRecoverReportsTheStoreErrorsItSkips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "askonce.db")
	st := openStore(t, path)
	// Two jobs left planning by a process that "dies": its interpreter
	// never answers while the test runs.
	dead := make(chan struct{})
	dying := &askonce.Engine{Store: st, Interpreter: askonce.InterpreterFunc(func(context.Context, *askonce.Request) (*askonce.Response, error) {
		<-dead
		return nil, errors.New("process died")
	})}
	t.Cleanup(func() { close(dead); dying.Drain(ctx) })
	var ids []string
	for range 2 {
		rctx, cancel := context.WithCancel(ctx)
		j, _, err := dying.Start(rctx, askonce.CreateRequest{Goal: "make cheese"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	// An hour later, as the recovering process sees it: the dying
	// process's leases have lapsed.
	later := func() time.Time { return time.Now().Add(time.Hour) }
	e := &askonce.Engine{Store: brokenReads{Store: st, id: ids[0]}, Interpreter: scripted(reply(planRaw, u1)), Now: later}
	t.Cleanup(func() { e.Drain(ctx) })
	n, err := e.TakeOver(ctx)
	if n != 1 {
		t.Errorf("recovered %d jobs, want the 1 readable one", n)
	}
	if err == nil || !strings.Contains(err.Error(), ids[0]) || !strings.Contains(err.Error(), "disk I/O error") {
		t.Errorf("Recover error = %v, want the read error of job %s", err, ids[0])
	}
}
