package askonce_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// script is a scripted interpreter for engine tests: the stand-in for an
// LLM, which cannot run here. Each call takes the next reply and records
// the request it got, so tests assert on what the interpreter received.
type script struct {
	mu      sync.Mutex
	replies []func(*askonce.Request) (*askonce.Response, error)
	reqs    []askonce.Request
}

func (s *script) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, *req)
	if len(s.replies) == 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("script exhausted at request %d", len(s.reqs))
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()
	return r(req)
}

func (s *script) requests() []askonce.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func reply(raw string, usage askonce.Usage) func(*askonce.Request) (*askonce.Response, error) {
	return func(*askonce.Request) (*askonce.Response, error) {
		return &askonce.Response{Raw: []byte(raw), Usage: usage}, nil
	}
}

const (
	askTemp  = `{"question":{"type":"SELECT_ONE","text":"Hot or frozen?","options":["hot","frozen"],"reason":"scope_unclear"}}`
	planRaw  = `{"title":"Hot cheese","plan":{"tasks":[{"id":"t1","title":"Make cheese","instruction":"make it","dependsOn":[]},{"id":"t2","title":"Heat it","instruction":"heat","dependsOn":["t1"]}]}}`
	cycleRaw = `{"plan":{"tasks":[{"id":"a","title":"A","dependsOn":["b"]},{"id":"b","title":"B","dependsOn":["a"]}]}}`
)

var u1 = askonce.Usage{PromptTokens: 10, CompletionTokens: 5, CostUSD: 0.001}

func scripted(replies ...func(*askonce.Request) (*askonce.Response, error)) *script {
	return &script{replies: replies}
}

// openStore opens a real SQLite file in the test's temp dir.
func openStore(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newEngine(t testing.TB, interp askonce.Interpreter) *askonce.Engine {
	t.Helper()
	return &askonce.Engine{Store: openStore(t, filepath.Join(t.TempDir(), "askonce.db")), Interpreter: interp}
}

func rulesInterpreter(t testing.TB) *rules.Interpreter {
	t.Helper()
	r, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var ctx = context.Background()

func create(t *testing.T, e *askonce.Engine, goal string) *askonce.Job {
	t.Helper()
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: goal, SessionID: "s1"})
	if err != nil {
		t.Fatalf("create %q: %v", goal, err)
	}
	return j
}

func eventTypes(t *testing.T, e *askonce.Engine, j *askonce.Job) []askonce.EventType {
	t.Helper()
	evs, err := e.Events(ctx, j.TenantID, j.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ts []askonce.EventType
	for _, ev := range evs {
		ts = append(ts, ev.Type)
	}
	return ts
}

func count[T comparable](xs []T, x T) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// Hot frozen cheese asks one question and the answer settles it, in
// process with the rules interpreter on a real SQLite file.
func TestHotFrozenCheeseAsksOnceAndTheAnswerSettlesIt(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))

	// 1. Repro: the prompt that used to loop asks exactly one question.
	j := create(t, e, "hot frozen cheese")
	if j.Status != askonce.StatusPending || j.ClarificationStatus != askonce.ClarificationAsked || j.Question == nil {
		t.Fatalf("create: status %s clarification %s question %v", j.Status, j.ClarificationStatus, j.Question)
	}
	// The answer settles it: success, builder queued, never a second question.
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.Dispatch != askonce.DispatchQueued || j.ClarificationStatus != askonce.ClarificationAnswered {
		t.Fatalf("answer: status %s dispatch %s clarification %s error %q", j.Status, j.Dispatch, j.ClarificationStatus, j.Error)
	}
	var spec struct {
		Attributes map[string]string `json:"attributes"`
	}
	if err := json.Unmarshal(j.Plan.Spec, &spec); err != nil || spec.Attributes["temperature"] != "hot" {
		t.Fatalf("plan spec %s does not settle on hot: %v", j.Plan.Spec, err)
	}
	// 2. Regression: an answered job cannot be asked again by any path.
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("frozen")}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("second answer: %v, want conflict", err)
	}
	// 3. DB: the row holds the answer, its time and the resolved prompt,
	// and the resolved prompt is what the interpreter got.
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Answer.String() != "hot" || stored.AnsweredAt == nil || stored.ResolvedPrompt != "hot frozen cheese\n\nClarification Answer: hot" {
		t.Fatalf("stored answer %q at %v prompt %q", stored.Answer, stored.AnsweredAt, stored.ResolvedPrompt)
	}
	if n := count(eventTypes(t, e, j), askonce.EventAsked); n != 1 {
		t.Fatalf("%d asked events, want 1", n)
	}
}

// Rule 3 when the answer does not help: an answer that settles nothing
// ends in the exact hard-cap message under both policies, never a second
// question.
func TestRule3_HardCapPolicies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		hardCap  askonce.HardCap
		replies  []func(*askonce.Request) (*askonce.Response, error)
		status   askonce.Status
		calls    int
		fallback bool
	}{
		{"FallbackThenPlan", askonce.HardCapFallback, []func(*askonce.Request) (*askonce.Response, error){reply(askTemp, u1), reply(askTemp, u1), reply(planRaw, u1)}, askonce.StatusSuccess, 3, true},
		{"FallbackStillAsksFails", askonce.HardCapFallback, []func(*askonce.Request) (*askonce.Response, error){reply(askTemp, u1), reply(askTemp, u1), reply(askTemp, u1)}, askonce.StatusFailed, 3, true},
		{"FailAtOnce", askonce.HardCapFail, []func(*askonce.Request) (*askonce.Response, error){reply(askTemp, u1), reply(askTemp, u1)}, askonce.StatusFailed, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := scripted(tc.replies...)
			e := newEngine(t, s)
			j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", HardCap: tc.hardCap})
			if err != nil || !j.ClarificationUsed() {
				t.Fatalf("create: %v %+v", err, j)
			}
			j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != tc.status || j.Status == askonce.StatusPending {
				t.Fatalf("status %s, want %s", j.Status, tc.status)
			}
			if j.Status == askonce.StatusFailed && j.Error != "Clarification did not resolve ambiguity. Please rephrase." {
				t.Fatalf("error %q", j.Error)
			}
			reqs := s.requests()
			if len(reqs) != tc.calls {
				t.Fatalf("%d interpreter calls, want %d", len(reqs), tc.calls)
			}
			last := reqs[len(reqs)-1]
			if tc.fallback != (last.Directive == askonce.FallbackDirective && last.Reason == askonce.ReasonFallback) {
				t.Fatalf("last request reason %s directive %q", last.Reason, last.Directive)
			}
			if n := count(eventTypes(t, e, j), askonce.EventAsked); n != 1 {
				t.Fatalf("%d asked events", n)
			}
		})
	}
}

func TestRule4_InterpreterReceivesTheResolvedPrompt(t *testing.T) {
	t.Parallel()
	s := scripted(reply(askTemp, u1), reply(planRaw, u1))
	e := newEngine(t, s)
	j := create(t, e, "hot frozen cheese")
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("Frozen")}); err != nil {
		t.Fatal(err)
	}
	reqs := s.requests()
	if reqs[1].Prompt != "hot frozen cheese\n\nClarification Answer: frozen" || reqs[1].Reason != askonce.ReasonClarificationAnswer {
		t.Fatalf("second request prompt %q reason %s", reqs[1].Prompt, reqs[1].Reason)
	}
}

// Rule 5: "Second identical clarification is auto-resolved without user
// prompt", also across a restart (the history is durable).
func TestSecondIdenticalClarificationIsAutoResolvedWithoutUserPrompt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	st := openStore(t, path)
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(t)}
	first := create(t, e, "hot frozen cheese")
	if first.Status != askonce.StatusPending {
		t.Fatalf("first job: %s", first.Status)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: first.ID, Answer: askonce.TextAnswer("frozen")}); err != nil {
		t.Fatal(err)
	}
	second := create(t, e, "hot frozen cheese")
	if second.Status != askonce.StatusSuccess || second.AnswerSource != askonce.SourceHistory || second.Answer.String() != "frozen" {
		t.Fatalf("second job: status %s source %s answer %q", second.Status, second.AnswerSource, second.Answer)
	}
	if n := count(eventTypes(t, e, second), askonce.EventAutoResolved); n != 1 {
		t.Fatalf("%d auto_resolved events", n)
	}
	if n := count(eventTypes(t, e, second), askonce.EventAsked); n != 0 {
		t.Fatalf("the second job asked a human")
	}

	// Durable: a new process on the same file still remembers.
	st.Close()
	e2 := &askonce.Engine{Store: openStore(t, path), Interpreter: rulesInterpreter(t)}
	third := create(t, e2, "HOT   frozen cheese")
	if third.AnswerSource != askonce.SourceHistory || third.Status != askonce.StatusSuccess {
		t.Fatalf("after reopen: source %s status %s", third.AnswerSource, third.Status)
	}
	// Scoped by session: another session is asked.
	other, err := e2.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: "s2"})
	if err != nil || other.Status != askonce.StatusPending {
		t.Fatalf("other session: %v %s", err, other.Status)
	}
	h, err := e2.History(ctx, "", "s1")
	if err != nil || len(h) != 1 || h[0].Answer != "frozen" || h[0].JobID != first.ID {
		t.Fatalf("history %+v %v", h, err)
	}
}

func TestRule6_ResolverAnswersFromTheGoal(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	j := create(t, e, "delete the build folder. Yes, I am sure")
	if j.AnswerSource != askonce.SourceResolver || j.Answer.String() != "yes" || j.Status != askonce.StatusSuccess {
		t.Fatalf("status %s source %s answer %q question %+v", j.Status, j.AnswerSource, j.Answer, j.Question)
	}
	// notes.md is not "no": the question reaches the human.
	j = create(t, e, "delete notes.md")
	if j.Status != askonce.StatusPending || j.Question.Type != askonce.QuestionConfirm {
		t.Fatalf("notes.md: status %s source %s", j.Status, j.AnswerSource)
	}
}

func TestRule7_InvalidAnswerIs422AndChangesNothing(t *testing.T) {
	t.Parallel()
	// A question without allowOther, so that "banana" is outside it.
	e := newEngine(t, scripted(reply(askTemp, u1)))
	j := create(t, e, "hot frozen cheese")
	for _, bad := range []string{"banana", "", "   "} {
		_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(bad)})
		if askonce.ErrorCode(err) != askonce.EINVALID {
			t.Fatalf("answer %q: %v", bad, err)
		}
	}
	after, _ := e.Get(ctx, "", j.ID)
	if after.Version != j.Version || after.Status != askonce.StatusPending {
		t.Fatalf("job changed: version %d -> %d, status %s", j.Version, after.Version, after.Status)
	}
}

func TestRule8_GatedBlockOnlyModProceedsWithoutAsking(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "a hot frozen ore block", Profile: "minecraft-mod"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.ClarificationStatus != askonce.ClarificationSkipped {
		t.Fatalf("status %s clarification %s", j.Status, j.ClarificationStatus)
	}
	if len(j.Plan.Assumptions) == 0 || count(eventTypes(t, e, j), askonce.EventGated) != 1 {
		t.Fatalf("no assumption recorded: %+v", j.Plan.Assumptions)
	}
	// Not block-only: the same contradiction asks.
	j, _ = e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", Profile: "minecraft-mod"})
	if j.Status != askonce.StatusPending {
		t.Fatalf("cheese under minecraft-mod: %s", j.Status)
	}
}

// clarification_question is set when askonce asks: a gated job (skipped,
// never asked) stores no question; what the interpreter proposed stays in
// its attempt record.
func TestRule8_GatedJobStoresNoQuestionItDidNotAsk(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "a hot frozen ore block", Profile: "minecraft-mod"})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.ClarificationStatus != askonce.ClarificationSkipped || stored.Question != nil {
		t.Fatalf("gated job: clarification %s, question %+v; want skipped with no question", stored.ClarificationStatus, stored.Question)
	}
	attempts, err := e.Attempts(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) == 0 || !strings.Contains(attempts[0].Raw, `"question"`) {
		t.Fatalf("attempts %+v; want the first to keep the question the interpreter proposed", attempts)
	}
}

// Rule 9: invalid output is retried with its errors fed
// back, each attempt recorded with its reason, and after the budget the job
// is validation_error with the raw string kept.
func TestRule9_PlanningLoopRetriesWithFeedback(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := scripted(reply("not json at all", u1), reply(cycleRaw, u1), reply(planRaw, u1))
			e := newEngine(t, onPath(s, p.fast))
			j := create(t, e, "make a plan")
			if j.Status != askonce.StatusSuccess {
				t.Fatalf("status %s", j.Status)
			}
			reqs := s.requests()
			if reqs[1].Reason != askonce.ReasonRetryParseError || reqs[2].Reason != askonce.ReasonRetryValidation {
				t.Fatalf("reasons %s %s", reqs[1].Reason, reqs[2].Reason)
			}
			if len(reqs[1].Feedback) == 0 || !strings.Contains(strings.Join(reqs[2].Feedback, " "), "dependency cycle") {
				t.Fatalf("feedback not passed on: %q / %q", reqs[1].Feedback, reqs[2].Feedback)
			}
			atts, _ := e.Attempts(ctx, "", j.ID)
			if len(atts) != 3 || atts[0].Outcome != askonce.AttemptInvalid || atts[2].Outcome != askonce.AttemptPlan || atts[1].N != 2 {
				t.Fatalf("attempts %+v", atts)
			}
		})
	}
}

func TestValidationErrorKeepsTheRawOutput(t *testing.T) {
	t.Parallel()
	s := scripted(reply("garbage 1", u1), reply("garbage 2", u1), reply(`{"plan":{"tasks":[]}} trailing`, u1))
	e := newEngine(t, s)
	j := create(t, e, "make a plan")
	if j.Status != askonce.StatusValidationError || j.Result != `{"plan":{"tasks":[]}} trailing` || j.ID == "" {
		t.Fatalf("status %s result %q", j.Status, j.Result)
	}
	stored, _ := e.Get(ctx, "", j.ID)
	if stored.Result != j.Result || stored.AttemptCount != 3 || stored.Usage.PromptTokens != 30 {
		t.Fatalf("stored result %q attempts %d usage %+v", stored.Result, stored.AttemptCount, stored.Usage)
	}
	if count(eventTypes(t, e, j), askonce.EventValidationFailed) != 1 {
		t.Fatal("no validation_failed event")
	}
}

func TestRule9_SpecSchemaIsEnforced(t *testing.T) {
	t.Parallel()
	s := scripted(reply(planRaw, u1), reply(`{"plan":{"spec":{"kind":"block"},"tasks":[{"id":"a","title":"A"}]}}`, u1))
	e := newEngine(t, s)
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "x y z", SpecSchema: json.RawMessage(`{"type":"object","required":["kind"]}`)})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("%v %+v", err, j)
	}
	if fb := s.requests()[1].Feedback; !strings.Contains(strings.Join(fb, ""), `spec: missing property 'kind'`) {
		t.Fatalf("feedback %q", fb)
	}
}

// Rule 1: every outcome is a stored job with its id and its
// attempts: success, pending, validation error, interpreter error, timeout,
// oversize output; on both write paths.
func TestRule1_EverythingIsPersisted(t *testing.T) {
	t.Parallel()
	huge := `{"plan":{"title":"` + strings.Repeat("x", 2<<20) + `","tasks":[{"id":"a","title":"a"}]}}`
	cases := []struct {
		name    string
		interp  func() askonce.Interpreter
		status  askonce.Status
		attempt askonce.AttemptOutcome
		errHas  string
	}{
		{"Success", func() askonce.Interpreter { return scripted(reply(planRaw, u1)) }, askonce.StatusSuccess, askonce.AttemptPlan, ""},
		{"Pending", func() askonce.Interpreter { return scripted(reply(askTemp, u1)) }, askonce.StatusPending, askonce.AttemptQuestion, ""},
		{"ValidationError", func() askonce.Interpreter { return scripted(reply("x", u1), reply("y", u1), reply("z", u1)) }, askonce.StatusValidationError, askonce.AttemptInvalid, ""},
		{"InterpreterError", func() askonce.Interpreter {
			return scripted(func(*askonce.Request) (*askonce.Response, error) { return nil, fmt.Errorf("connection refused") })
		}, askonce.StatusFailed, askonce.AttemptError, "connection refused"},
		{"Timeout", func() askonce.Interpreter {
			return askonce.InterpreterFunc(func(ctx context.Context, _ *askonce.Request) (*askonce.Response, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
		}, askonce.StatusFailed, askonce.AttemptError, "timed out"},
		{"Oversize", func() askonce.Interpreter { return scripted(reply(huge, u1), reply(huge, u1), reply(huge, u1)) }, askonce.StatusValidationError, askonce.AttemptInvalid, "limit"},
	}
	for _, p := range writePaths {
		for _, tc := range cases {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				e := newEngine(t, onPath(tc.interp(), p.fast))
				e.InterpretTimeout = 50 * time.Millisecond
				j := create(t, e, "make a plan")
				stored, err := e.Get(ctx, "", j.ID)
				if err != nil || stored.Status != tc.status || stored.Title == "" {
					t.Fatalf("stored %v status %s title %q", err, stored.Status, stored.Title)
				}
				atts, _ := e.Attempts(ctx, "", j.ID)
				if len(atts) == 0 {
					t.Fatal("no attempts stored")
				}
				last := atts[len(atts)-1]
				if last.Outcome != tc.attempt || !strings.Contains(last.Error+stored.Error, tc.errHas) {
					t.Fatalf("last attempt %s %q; job error %q", last.Outcome, last.Error, stored.Error)
				}
				if len(last.Raw) > askonce.DefaultMaxRaw || len(stored.Result) > askonce.DefaultMaxRaw {
					t.Fatalf("raw output not capped: %d bytes", len(last.Raw))
				}
				if stored.AttemptCount != len(atts) {
					t.Fatalf("attempt count %d, %d attempts stored", stored.AttemptCount, len(atts))
				}
			})
		}
	}
}

// Rule 9's usage: the answer resumes the same record,
// and usage adds up over every attempt, the resumed ones included; on both
// write paths.
func TestResumeUpdatesTheSameRecordAndUsageAddsUp(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := scripted(reply("bad", u1), reply(askTemp, u1), reply(planRaw, askonce.Usage{PromptTokens: 100, CompletionTokens: 50, CostUSD: 0.01}))
			e := newEngine(t, onPath(s, p.fast))
			j := create(t, e, "hot frozen cheese")
			resumed, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
			if err != nil {
				t.Fatal(err)
			}
			if resumed.ID != j.ID || resumed.Status != askonce.StatusSuccess {
				t.Fatalf("resumed %s status %s", resumed.ID, resumed.Status)
			}
			page, _ := e.List(ctx, "", askonce.JobFilter{})
			if len(page.Jobs) != 1 {
				t.Fatalf("%d jobs after resume; want the one record", len(page.Jobs))
			}
			stored, _ := e.Get(ctx, "", j.ID)
			want := askonce.Usage{PromptTokens: 120, CompletionTokens: 60, CostUSD: 0.012}
			if stored.Usage.PromptTokens != want.PromptTokens || stored.Usage.CompletionTokens != want.CompletionTokens || fmt.Sprintf("%.4f", stored.Usage.CostUSD) != "0.0120" || stored.AttemptCount != 3 {
				t.Fatalf("usage %+v attempts %d; want %+v over 3", stored.Usage, stored.AttemptCount, want)
			}
			if resumed.Usage != stored.Usage || resumed.AttemptCount != stored.AttemptCount || resumed.Version != stored.Version {
				t.Fatalf("answer returned usage %+v, %d attempts, version %d; stored %+v, %d, %d",
					resumed.Usage, resumed.AttemptCount, resumed.Version, stored.Usage, stored.AttemptCount, stored.Version)
			}
		})
	}
}

// A clarification-needed job is persisted as
// pending with its id and title; every outcome carries an id.
func TestEveryOutcomeHasAnID(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	for _, goal := range []string{"hot frozen cheese", "write a README then add tests", "?"} {
		j := create(t, e, goal)
		stored, err := e.Get(ctx, "", j.ID)
		if err != nil || j.ID == "" || stored.Title == "" {
			t.Fatalf("%q: %v id %q title %q", goal, err, j.ID, stored.Title)
		}
		if stored.Status == askonce.StatusPending && (stored.Question == nil || stored.Question.Text == "") {
			t.Fatalf("pending job without its question")
		}
	}
}

// Outcomes are statuses on a job, not errors: Create
// returns an error only for bad input or a broken store.
func TestOutcomesAreStatusesNotErrors(t *testing.T) {
	t.Parallel()
	e := newEngine(t, scripted(reply("x", u1), reply("y", u1), reply("z", u1)))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "g"})
	if err != nil || j.Status != askonce.StatusValidationError {
		t.Fatalf("%v %v", err, j)
	}
	for _, bad := range []string{"", "   \n\t", "\xff"} {
		if _, err := e.Create(ctx, askonce.CreateRequest{Goal: bad}); askonce.ErrorCode(err) != askonce.EINVALID {
			t.Fatalf("goal %q: %v", bad, err)
		}
	}
}

// Rule 2 on a real SQLite file: of 50 concurrent answers exactly one wins;
// the others get a conflict with the job's state; the row is consistent.
// On both write paths: with a fast interpreter every answerer computes its
// outcome, and the compare-and-set on the pending version lets one commit.
func TestRule2_FiftyConcurrentAnswersExactlyOneWins(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			e := newEngine(t, onPath(rulesInterpreter(t), p.fast))
			j := create(t, e, "hot frozen cheese")
			const n = 50
			var wg sync.WaitGroup
			errs := make([]error, n)
			won := make([]*askonce.Job, n)
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					answer := []string{"hot", "frozen"}[i%2]
					won[i], _, errs[i] = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(answer)})
				})
			}
			close(start)
			wg.Wait()
			var winner *askonce.Job
			for i, err := range errs {
				switch askonce.ErrorCode(err) {
				case "":
					winner = won[i]
				case askonce.ECONFLICT:
					var ae *askonce.Error
					if !asError(err, &ae) || ae.Job == nil || ae.Job.ID != j.ID {
						t.Fatalf("conflict without the job's state: %v", err)
					}
				default:
					t.Fatalf("unexpected error %v", err)
				}
			}
			if wins := count(errs, nil); wins != 1 {
				t.Fatalf("%d answers won, want exactly 1", wins)
			}
			stored, _ := e.Get(ctx, "", j.ID)
			evs := eventTypes(t, e, j)
			if stored.Status != askonce.StatusSuccess || count(evs, askonce.EventAnswered) != 1 || count(evs, askonce.EventPlanned) != 1 || count(evs, askonce.EventDispatched) != 1 {
				t.Fatalf("status %s events %v", stored.Status, evs)
			}
			if !winner.Answer.Equal(stored.Answer) || winner.Version != stored.Version {
				t.Fatalf("the winner got answer %q at version %d; stored %q at %d", winner.Answer, winner.Version, stored.Answer, stored.Version)
			}
			if h, _ := e.History(ctx, "", "s1"); len(h) != 1 || h[0].Answer != stored.Answer.String() {
				t.Fatalf("history %+v vs answer %q", h, stored.Answer)
			}
		})
	}
}

func asError(err error, target **askonce.Error) bool {
	e, ok := err.(*askonce.Error)
	if ok {
		*target = e
	}
	return ok
}

// Gate mode over a real store: the gate-mode answers ask, wait, resume,
// proceed and done.
func TestGateModeOverTheEngine(t *testing.T) {
	t.Parallel()
	e := newEngine(t, nil)
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "refactor the payments module", Mode: askonce.ModeGate})
	if err != nil || j.Status != askonce.StatusPlanning {
		t.Fatalf("%v %+v", err, j)
	}
	q := &askonce.Question{Reason: "scope_unclear", Text: "Which module?", Options: []string{"billing", "invoices"}}
	report := func(r askonce.Report) *askonce.ReportResult {
		t.Helper()
		res, err := e.Report(ctx, "", j.ID, r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := report(askonce.Report{Question: q, Usage: u1}); r.Action != askonce.ActionAsk || r.Question.Type != askonce.QuestionSelectOne {
		t.Fatalf("ask: %+v", r)
	}
	if r := report(askonce.Report{Question: q}); r.Action != askonce.ActionWait || r.Question.Text != "Which module?" {
		t.Fatalf("wait: %+v", r)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("invoices")}); err != nil {
		t.Fatal(err)
	}
	if r := report(askonce.Report{Question: q}); r.Action != askonce.ActionResume || r.Answer != "invoices" || r.ResolvedPrompt != "refactor the payments module\n\nClarification Answer: invoices" {
		t.Fatalf("resume: %+v", r)
	}
	if r := report(askonce.Report{Question: q}); r.Action != askonce.ActionProceed || r.Directive != askonce.FallbackDirective {
		t.Fatalf("proceed: %+v", r)
	}
	// An invalid plan is rejected with every problem and changes nothing.
	_, err = e.Report(ctx, "", j.ID, askonce.Report{Plan: &askonce.Plan{Tasks: []askonce.Task{{ID: "a", Title: "A", DependsOn: []string{"a"}}}}})
	if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), "cycle") {
		t.Fatalf("invalid plan: %v", err)
	}
	r := report(askonce.Report{Plan: &askonce.Plan{Tasks: []askonce.Task{{ID: "a", Title: "A"}}}, Usage: u1})
	if r.Action != askonce.ActionDone || r.Job.Status != askonce.StatusSuccess {
		t.Fatalf("plan: %+v", r)
	}
	stored, _ := e.Get(ctx, "", j.ID)
	if stored.Usage.PromptTokens != 20 || stored.AttemptCount != 6 {
		t.Fatalf("usage %+v attempts %d", stored.Usage, stored.AttemptCount)
	}
	// Managed jobs take no reports.
	m, _ := (&askonce.Engine{Store: e.Store, Interpreter: scripted(reply(askTemp, u1))}).Create(ctx, askonce.CreateRequest{Goal: "x"})
	if _, err := e.Report(ctx, "", m.ID, askonce.Report{Question: q}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("report on managed job: %v", err)
	}
}

func TestExpiryAppliesDefaultOrExpires(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	withDefault := `{"question":{"type":"CONFIRM","text":"Overwrite it?","reason":"target_file_exists","default":"no"}}`
	s := scripted(reply(withDefault, u1), reply(askTemp, u1), reply(planRaw, u1))
	e := newEngine(t, s)
	e.Now, e.QuestionTTL = clock, time.Hour
	a := create(t, e, "overwrite config")
	b := create(t, e, "hot frozen cheese")
	if n, err := e.ExpireDue(ctx); n != 0 || err != nil {
		t.Fatalf("nothing is due yet: %d %v", n, err)
	}
	now = now.Add(2 * time.Hour)
	if n, err := e.ExpireDue(ctx); n != 2 || err != nil {
		t.Fatalf("expired %d, %v", n, err)
	}
	a, _ = e.Get(ctx, "", a.ID)
	b, _ = e.Get(ctx, "", b.ID)
	if a.Status != askonce.StatusSuccess || a.AnswerSource != askonce.SourceTimeout || a.Answer.String() != "no" {
		t.Fatalf("with default: %s %s %q", a.Status, a.AnswerSource, a.Answer)
	}
	if b.Status != askonce.StatusExpired || b.ClarificationStatus != askonce.ClarificationAsked {
		t.Fatalf("without default: %s %s", b.Status, b.ClarificationStatus)
	}
}

func TestCancelAndDecline(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	j := create(t, e, "hot frozen cheese")
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID})
	if err != nil || j.Status != askonce.StatusCancelled {
		t.Fatalf("%v %s", err, j.Status)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("answer after cancel: %v", err)
	}
	// Decline with a default: the default is the answer.
	ed := newEngine(t, rulesInterpreter(t))
	d := create(t, ed, "delete notes.md and update the readme")
	d, _, err = ed.Act(ctx, askonce.Act{Do: askonce.ActDecline, ID: d.ID})
	if err != nil || d.Status != askonce.StatusSuccess || d.AnswerSource != askonce.SourceDefault || d.Answer.String() != "no" {
		t.Fatalf("decline with default: %v %+v", err, d)
	}
	// Decline without a default: the goal alone, under the fallback directive.
	s := scripted(reply(`{"question":{"type":"FREE_TEXT","text":"Which colour?"}}`, u1), reply(planRaw, u1))
	e2 := newEngine(t, s)
	n := create(t, e2, "paint the shed")
	n, _, err = e2.Act(ctx, askonce.Act{Do: askonce.ActDecline, ID: n.ID})
	if err != nil || n.Status != askonce.StatusSuccess || n.AnswerSource != askonce.SourceDefault || n.Answer.String() != "" {
		t.Fatalf("decline without default: %v %+v", err, n)
	}
	if last := s.requests()[1]; last.Directive != askonce.FallbackDirective || last.Prompt != "paint the shed" {
		t.Fatalf("declined job interpreted %q with directive %q", last.Prompt, last.Directive)
	}
}

func TestTenancy_NoQueryCrossesTenants(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	j, err := e.Create(ctx, askonce.CreateRequest{TenantID: "a", Goal: "hot frozen cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get(ctx, "b", j.ID); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Fatalf("get: %v", err)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: "b", ID: j.ID, Answer: askonce.TextAnswer("hot")}); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Fatalf("answer: %v", err)
	}
	if p, _ := e.List(ctx, "b", askonce.JobFilter{}); len(p.Jobs) != 0 {
		t.Fatalf("listed another tenant's job")
	}
	if j.TenantID != "a" {
		t.Fatalf("tenant %q", j.TenantID)
	}
	d := create(t, e, "x y z")
	if d.TenantID != askonce.DefaultTenant || d.SessionID == "" {
		t.Fatalf("default tenant %q session %q", d.TenantID, d.SessionID)
	}
}

// Rule 12: a clarification round trip leaves its audit trail in order.
func TestRule12_AuditTrail(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			e := newEngine(t, onPath(rulesInterpreter(t), p.fast))
			j := create(t, e, "hot frozen cheese")
			if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil {
				t.Fatal(err)
			}
			got := eventTypes(t, e, j)
			want := []askonce.EventType{askonce.EventCreated, askonce.EventAttempt, askonce.EventAsked, askonce.EventAnswered, askonce.EventAttempt, askonce.EventPlanned, askonce.EventDispatched}
			if !slices.Equal(got, want) {
				t.Fatalf("events %v, want %v", got, want)
			}
		})
	}
}

// Rule 11 at the engine: success queues dispatch once; nothing else does.
func TestRule11_DispatchQueuedOnceOnSuccessOnly(t *testing.T) {
	t.Parallel()
	e := newEngine(t, rulesInterpreter(t))
	p := create(t, e, "hot frozen cheese")
	if p.Dispatch != askonce.DispatchNone || count(eventTypes(t, e, p), askonce.EventDispatched) != 0 {
		t.Fatal("a pending job was dispatched")
	}
	s, _, _ := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: p.ID, Answer: askonce.TextAnswer("hot")})
	if s.Dispatch != askonce.DispatchQueued || count(eventTypes(t, e, s), askonce.EventDispatched) != 1 {
		t.Fatal("success was not dispatched exactly once")
	}
}

// Rule 13: a job left in planning by a dead process is picked up again
// (the row-first path: the interpreter here does not declare itself fast;
// TestRule13_FastPathCrashBeforeTheCommitAcknowledgesNothing is the other).
func TestRule13_CrashSafetyRecoversPlanningJobs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	st := openStore(t, path)
	// A process that dies inside the interpreter call: the job row exists,
	// in planning, and nothing else happened.
	dying := &askonce.Engine{Store: st, Owner: "replica-a", Interpreter: askonce.InterpreterFunc(func(ctx context.Context, _ *askonce.Request) (*askonce.Response, error) {
		panic("process died")
	})}
	var id string
	func() {
		defer func() { recover() }()
		dying.Create(ctx, askonce.CreateRequest{Goal: "write docs then ship", SessionID: "s"})
	}()
	page, _ := st.ListJobs(ctx, askonce.DefaultTenant, askonce.JobFilter{Status: askonce.StatusPlanning})
	if len(page.Jobs) != 1 {
		t.Fatalf("%d planning jobs", len(page.Jobs))
	}
	id = page.Jobs[0].ID
	st.Close()

	// Restarted under the same Owner: it takes the job back at once,
	// its lease still running.
	e := &askonce.Engine{Store: openStore(t, path), Owner: "replica-a", Interpreter: rulesInterpreter(t)}
	n, err := e.Recover(ctx)
	if err != nil || n != 1 {
		t.Fatalf("recovered %d: %v", n, err)
	}
	if err := e.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	j, _ := e.Get(ctx, "", id)
	if j.Status != askonce.StatusSuccess || count(eventTypes(t, e, j), askonce.EventRecovered) != 1 {
		t.Fatalf("after recovery: %s", j.Status)
	}
	if n, _ := e.Recover(ctx); n != 0 {
		t.Fatalf("recovered a finished job again")
	}
}

// A job that goes pending keeps no result, as stored: the output that
// asked is its attempt's.
func TestPendingJobStoresNoResultItsAttemptKeepsTheOutput(t *testing.T) {
	t.Parallel()
	e := newEngine(t, scripted(reply(askTemp, u1)))
	j := create(t, e, "hot frozen cheese")
	if j.Status != askonce.StatusPending || j.Result != "" {
		t.Fatalf("created job: status %s result %q; want pending without a result", j.Status, j.Result)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	atts, err := e.Attempts(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Result != "" || len(atts) != 1 || atts[0].Raw != askTemp {
		t.Fatalf("stored result %q, attempts %+v; want none, and the asking attempt's output", stored.Result, atts)
	}
}

// Rule 3 after a decline: a declined question without a default uses the
// job's one fallback run, so an interpreter that asks again in it fails
// the job with the hard-cap message; no second question, no second
// fallback, no third interpreter call.
func TestRule3_DeclineWithoutDefaultUsesTheFallback_AskingAgainFails(t *testing.T) {
	t.Parallel()
	freeText := `{"question":{"type":"FREE_TEXT","text":"Which colour?"}}`
	again := `{"question":{"type":"FREE_TEXT","text":"Which shade of colour?"}}`
	s := scripted(reply(freeText, u1), reply(again, u1), reply(planRaw, u1))
	e := newEngine(t, s)
	j := create(t, e, "paint the shed")
	if j.Status != askonce.StatusPending {
		t.Fatalf("created job is %s, want pending", j.Status)
	}
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActDecline, ID: j.ID})
	if err != nil {
		t.Fatalf("decline: %v", err)
	}
	if j.Status != askonce.StatusFailed || j.Error != askonce.HardCapMessage || !j.FallbackUsed {
		t.Fatalf("after decline and a second ask: status %s error %q fallbackUsed %v; want failed with the hard-cap message",
			j.Status, j.Error, j.FallbackUsed)
	}
	evs := eventTypes(t, e, j)
	if n := count(evs, askonce.EventAsked); n != 1 {
		t.Errorf("%d asked events, want 1", n)
	}
	if n := count(evs, askonce.EventFallbackApplied); n != 1 {
		t.Errorf("%d fallback_applied events, want 1", n)
	}
	if n := len(s.requests()); n != 2 {
		t.Errorf("%d interpreter calls, want 2 (the question, the fallback run)", n)
	}
}

// Expiry boundary: a question is expired at and after its expiresAt. The
// sweep's query and Step agree at the exact instant: one nanosecond before
// nothing is due, at expiresAt the job expires.
func TestExpiryBoundary_SweepAndStepAgreeAtExpiresAt(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	now := start
	e := newEngine(t, scripted(reply(askTemp, u1)))
	e.Now, e.QuestionTTL = func() time.Time { return now }, time.Hour
	j := create(t, e, "hot frozen cheese")
	if j.Question == nil || j.Question.ExpiresAt == nil || !j.Question.ExpiresAt.Equal(start.Add(time.Hour)) {
		t.Fatalf("question %+v; want one expiring at %v", j.Question, start.Add(time.Hour))
	}
	expiresAt := *j.Question.ExpiresAt

	now = expiresAt.Add(-time.Nanosecond)
	if n, err := e.ExpireDue(ctx); n != 0 || err != nil {
		t.Fatalf("one nanosecond before expiresAt: expired %d, %v; want 0", n, err)
	}
	if got, err := e.Get(ctx, "", j.ID); err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("one nanosecond before expiresAt: %v, %v; want pending", got.Status, err)
	}
	now = expiresAt
	if n, err := e.ExpireDue(ctx); n != 1 || err != nil {
		t.Fatalf("at expiresAt: expired %d, %v; want 1", n, err)
	}
	if got, err := e.Get(ctx, "", j.ID); err != nil || got.Status != askonce.StatusExpired {
		t.Fatalf("at expiresAt: %v, %v; want expired", got.Status, err)
	}
}

// dispatchRows reads the builder queue of the store file at path with
// SQL: the dispatch rows of the job.
func dispatchRows(t *testing.T, path, jobID string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT l.type FROM jobs j
		JOIN job_log l ON l.id = (j.log_seq << 32) | (3 << 30) WHERE j.id = ?`, jobID)
	if err != nil {
		t.Fatalf("read dispatches: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var status string
		if err := rows.Scan(&status); err != nil {
			t.Fatal(err)
		}
		out = append(out, status)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Rule 11 in the store's queue, not the job's flag: a success through the
// engine leaves exactly one queued dispatch row; a pending job none.
func TestRule11_SuccessLeavesExactlyOneDispatchRow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "askonce.db")
	e := &askonce.Engine{Store: openStore(t, path), Interpreter: rulesInterpreter(t)}
	j := create(t, e, "hot frozen cheese")
	if rows := dispatchRows(t, path, j.ID); len(rows) != 0 {
		t.Fatalf("pending job: dispatch rows %v, want none", rows)
	}
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("answer: %v, status %v", err, j)
	}
	if rows := dispatchRows(t, path, j.ID); !slices.Equal(rows, []string{"queued"}) {
		t.Fatalf("successful job: dispatch rows %v, want exactly one queued", rows)
	}
}
