package openai_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/openai"
)

var ctx = context.Background()

const (
	askTemp  = `{"title":"Cheese","question":{"type":"SELECT_ONE","text":"Hot or frozen?","options":["hot","frozen"],"reason":"scope_unclear","default":"hot"}}`
	planRaw  = `{"title":"Hot cheese","plan":{"title":"Hot cheese","spec":{"temperature":"hot"},"tasks":[{"id":"t1","title":"Make cheese","instruction":"make it","dependsOn":[]},{"id":"t2","title":"Heat it","instruction":"heat","dependsOn":["t1"]}],"assumptions":[]}}`
	cycleRaw = `{"title":"Loop","plan":{"title":"Loop","spec":{},"tasks":[{"id":"a","title":"A","instruction":"a","dependsOn":["b"]},{"id":"b","title":"B","instruction":"b","dependsOn":["a"]}],"assumptions":[]}}`
)

// Rule 4 through the openai interpreter: the answer reaches the model as
// the resolved prompt, and the model's plan settles the job.
func TestAskAnswerPlan(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(askTemp, 10, 5), reply(planRaw, 20, 30))
	e := newEngine(t, newInterpreter(t, f, nil))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPending || j.Question == nil || j.Question.Text != "Hot or frozen?" || j.Question.Type != askonce.QuestionSelectOne {
		t.Fatalf("create: status %s question %+v", j.Status, j.Question)
	}
	j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.Plan == nil || len(j.Plan.Tasks) != 2 || j.Title != "Hot cheese" {
		t.Fatalf("answer: status %s error %q title %q plan %+v", j.Status, j.Error, j.Title, j.Plan)
	}

	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, second := reqs[0], reqs[1]
	if first.Model != "test-model" || !strings.Contains(first.Message("system"), "Clarification Answer:") || !strings.Contains(first.Message("system"), `"question"`) {
		t.Errorf("first request: model %q, system prompt does not teach the protocol:\n%s", first.Model, first.Message("system"))
	}
	if !strings.Contains(first.Message("user"), "hot frozen cheese") || strings.Contains(first.Message("user"), "Clarification Answer:") {
		t.Errorf("first user message:\n%s", first.Message("user"))
	}
	if want := "hot frozen cheese\n\nClarification Answer: hot"; !strings.Contains(second.Message("user"), want) || !strings.Contains(second.Message("user"), "Do not return a question") {
		t.Errorf("second user message lacks the resolved prompt %q:\n%s", want, second.Message("user"))
	}
	// The schema offers a question only before the answer.
	if !schemaHas(first, "question") || schemaHas(second, "question") || !schemaHas(second, "plan") {
		t.Errorf("schemas: first has question %v, second has question %v", schemaHas(first, "question"), schemaHas(second, "question"))
	}
	if got := reasons(attempts(t, e, j)); got != "initial,clarification_answer" {
		t.Errorf("attempt reasons %s", got)
	}
}

// Rule 3, fallback policy: the model asks after the answer, gets the
// fallback directive verbatim, and plans.
func TestAskAgainFallbackDirective(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(askTemp, 1, 1), reply(askTemp, 1, 1), reply(planRaw, 1, 1))
	e := newEngine(t, newInterpreter(t, f, nil))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %v %+v", err, j)
	}
	j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("frozen")})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || !j.FallbackUsed || j.ClarificationStatus != askonce.ClarificationAnswered {
		t.Fatalf("status %s fallback %v clarification %s error %q", j.Status, j.FallbackUsed, j.ClarificationStatus, j.Error)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if strings.Contains(reqs[1].Message("user"), "Directive:") {
		t.Errorf("the answer's request already carries a directive:\n%s", reqs[1].Message("user"))
	}
	last := reqs[2].Message("user")
	if !strings.Contains(last, "Directive: "+askonce.FallbackDirective) || !strings.Contains(last, "Clarification Answer: frozen") {
		t.Errorf("fallback request lacks the directive or the answer:\n%s", last)
	}
	if got := reasons(attempts(t, e, j)); got != "initial,clarification_answer,fallback" {
		t.Errorf("attempt reasons %s", got)
	}
}

// Rule 3, fail policy: asking after the answer fails the job at once with
// the exact message.
func TestAskAgainHardCapFail(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(askTemp, 1, 1), reply(askTemp, 1, 1), reply(planRaw, 1, 1))
	e := newEngine(t, newInterpreter(t, f, nil))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", HardCap: askonce.HardCapFail})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %v %+v", err, j)
	}
	j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusFailed || j.Error != askonce.HardCapMessage {
		t.Fatalf("status %s error %q, want failed with %q", j.Status, j.Error, askonce.HardCapMessage)
	}
	if n := len(f.requests()); n != 2 {
		t.Fatalf("%d requests, want 2 (no fallback run)", n)
	}
}

// Rule 9: three malformed outputs end in validation_error with the raw
// text kept, and each retry carries the previous errors.
func TestMalformedOutputsValidationError(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply("Sure! Here is your plan.", 1, 1), reply(`{"plan": [}`, 1, 1), reply(`{"title":"x"}`, 1, 1))
	e := newEngine(t, newInterpreter(t, f, nil))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "write a parser"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusValidationError || j.Result != `{"title":"x"}` {
		t.Fatalf("status %s result %q", j.Status, j.Result)
	}
	as := attempts(t, e, j)
	if got := reasons(as); got != "initial,retry_parse_error,retry_parse_error" {
		t.Errorf("attempt reasons %s", got)
	}
	if as[0].Raw != "Sure! Here is your plan." || as[0].Outcome != askonce.AttemptInvalid {
		t.Errorf("first attempt raw %q outcome %s", as[0].Raw, as[0].Outcome)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if strings.Contains(reqs[0].Message("user"), "previous output was invalid") {
		t.Errorf("first request carries feedback:\n%s", reqs[0].Message("user"))
	}
	for i, r := range reqs[1:] {
		if !strings.Contains(r.Message("user"), "Your previous output was invalid:\n- "+as[i].Error) {
			t.Errorf("request %d lacks the feedback %q:\n%s", i+2, as[i].Error, r.Message("user"))
		}
	}
}

// Rule 9: a cycle in the DAG is a validation error fed to the next attempt.
func TestCycleRetriedWithValidationError(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(cycleRaw, 1, 1), reply(planRaw, 1, 1))
	e := newEngine(t, newInterpreter(t, f, nil))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess {
		t.Fatalf("status %s error %q", j.Status, j.Error)
	}
	if got := reasons(attempts(t, e, j)); got != "initial,retry_validation" {
		t.Errorf("attempt reasons %s", got)
	}
	second := f.requests()[1].Message("user")
	if !strings.Contains(second, "Your previous output was invalid:") || !strings.Contains(second, "dependency cycle: a -> b -> a") {
		t.Errorf("second request lacks the cycle error:\n%s", second)
	}
}

// A 429 is retried within the attempt after the Retry-After the server
// asked for.
func TestRateLimitRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		retryAfter string
		minGap     time.Duration
	}{
		{"0", 0},
		{"1", 900 * time.Millisecond},
	} {
		t.Run("RetryAfter"+tc.retryAfter, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t,
				apiError(http.StatusTooManyRequests, "Rate limit reached for test-model", "rate_limit_error", "Retry-After", tc.retryAfter),
				reply(planRaw, 7, 3))
			// A base delay far above Retry-After proves the header, not the
			// backoff, set the wait.
			e := newEngine(t, newInterpreter(t, f, func(c *openai.Config) { c.RetryBaseDelay = 10 * time.Second }))

			j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != askonce.StatusSuccess {
				t.Fatalf("status %s error %q", j.Status, j.Error)
			}
			reqs := f.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			if gap := reqs[1].At.Sub(reqs[0].At); gap < tc.minGap || gap > tc.minGap+2*time.Second {
				t.Errorf("retried after %s, want about %s", gap, tc.minGap)
			}
			as := attempts(t, e, j)
			if len(as) != 1 || as[0].Usage.PromptTokens != 7 {
				t.Errorf("attempts %+v, want one with the success's usage", as)
			}
		})
	}
}

// Retries are bounded: 5xx after 5xx gives up after MaxRetries with the
// status and the server's message, and a non-retryable status fails at
// once.
func TestErrorsFailTheJob(t *testing.T) {
	t.Parallel()
	unavailable := apiError(http.StatusServiceUnavailable, "The engine is currently overloaded", "server_error")
	for _, tc := range []struct {
		name     string
		steps    []http.HandlerFunc
		requests int
		want     []string
	}{
		{"ServerErrorsExhaustRetries", []http.HandlerFunc{unavailable, unavailable, unavailable, unavailable, reply(planRaw, 1, 1)}, 4,
			[]string{"giving up after 3 retries", "HTTP 503", "The engine is currently overloaded"}},
		{"Unauthorized", []http.HandlerFunc{apiError(http.StatusUnauthorized, "Incorrect API key provided: sk-***", "invalid_request_error"), reply(planRaw, 1, 1)}, 1,
			[]string{"HTTP 401", "Incorrect API key provided"}},
		{"NotJSONErrorBody", []http.HandlerFunc{func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte("model \"test-model\" not found, try pulling it first"))
		}}, 1, []string{"HTTP 400", `model "test-model" not found`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, tc.steps...)
			e := newEngine(t, newInterpreter(t, f, nil))
			j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != askonce.StatusFailed {
				t.Fatalf("status %s, want failed", j.Status)
			}
			for _, w := range tc.want {
				if !strings.Contains(j.Error, w) {
					t.Errorf("error %q lacks %q", j.Error, w)
				}
			}
			if n := len(f.requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			as := attempts(t, e, j)
			if len(as) != 1 || as[0].Outcome != askonce.AttemptError || as[0].Raw == "" {
				t.Errorf("attempts %+v, want one error attempt keeping the body", as)
			}
		})
	}
}

// A Retry-After that ends past the attempt's deadline is not waited for.
func TestRetryAfterPastDeadlineGivesUp(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, apiError(http.StatusTooManyRequests, "slow down", "rate_limit_error", "Retry-After", "30"), reply(planRaw, 1, 1))
	e := newEngine(t, newInterpreter(t, f, nil))
	e.InterpretTimeout = 5 * time.Second

	start := time.Now()
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s; it waited instead of giving up", took)
	}
	if j.Status != askonce.StatusFailed || !strings.Contains(j.Error, "would pass the deadline") || !strings.Contains(j.Error, "HTTP 429") {
		t.Fatalf("status %s error %q", j.Status, j.Error)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// In auto mode a server that rejects json_schema gets json_object (and
// one that rejects that, no response_format) within the same attempt, and
// the downgrade is remembered for later calls. A configured format is
// never downgraded.
func TestResponseFormatFallback(t *testing.T) {
	t.Parallel()
	schemaUnsupported := apiError(http.StatusBadRequest, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", "invalid_request_error")
	objectUnsupported := apiError(http.StatusBadRequest, "response_format json_object is not supported", "invalid_request_error")
	for _, tc := range []struct {
		name    string
		format  openai.ResponseFormat
		steps   []http.HandlerFunc
		formats string // response_format types the server saw, across two jobs
		final   openai.ResponseFormat
		status  askonce.Status
	}{
		{"SchemaToObject", openai.FormatAuto, []http.HandlerFunc{schemaUnsupported, reply(planRaw, 1, 1), reply(planRaw, 1, 1)},
			"json_schema,json_object,json_object", openai.FormatJSONObject, askonce.StatusSuccess},
		{"ObjectToNone", openai.FormatAuto, []http.HandlerFunc{schemaUnsupported, objectUnsupported, reply(planRaw, 1, 1), reply(planRaw, 1, 1)},
			"json_schema,json_object,,", openai.FormatNone, askonce.StatusSuccess},
		{"ConfiguredSchemaKept", openai.FormatJSONSchema, []http.HandlerFunc{schemaUnsupported, schemaUnsupported},
			"json_schema,json_schema", openai.FormatJSONSchema, askonce.StatusFailed},
		{"ConfiguredNone", openai.FormatNone, []http.HandlerFunc{reply(planRaw, 1, 1), reply(planRaw, 1, 1)},
			",", openai.FormatNone, askonce.StatusSuccess},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, tc.steps...)
			in := newInterpreter(t, f, func(c *openai.Config) { c.ResponseFormat = tc.format })
			e := newEngine(t, in)
			for range 2 {
				j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
				if err != nil {
					t.Fatal(err)
				}
				if j.Status != tc.status {
					t.Fatalf("status %s error %q, want %s", j.Status, j.Error, tc.status)
				}
				if as := attempts(t, e, j); len(as) != 1 {
					t.Errorf("%d attempts, want 1: the fallback happens within the attempt", len(as))
				}
			}
			var got []string
			for _, r := range f.requests() {
				got = append(got, r.Format())
			}
			if strings.Join(got, ",") != tc.formats {
				t.Errorf("formats %q, want %q", strings.Join(got, ","), tc.formats)
			}
			if in.ResponseFormat() != tc.final {
				t.Errorf("format now %s, want %s", in.ResponseFormat(), tc.final)
			}
		})
	}
}

// A server that never answers: the engine's InterpretTimeout ends the
// attempt, the job fails with the timeout recorded, and the request is
// really cancelled (the handler returns).
func TestHungServerTimesOut(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	f := newFakeServer(t, hang(done))
	e := newEngine(t, newInterpreter(t, f, nil))
	e.InterpretTimeout = 200 * time.Millisecond

	start := time.Now()
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s", took)
	}
	if j.Status != askonce.StatusFailed || !strings.Contains(j.Error, "timed out after 200ms") {
		t.Fatalf("status %s error %q", j.Status, j.Error)
	}
	as := attempts(t, e, j)
	if len(as) != 1 || as[0].Outcome != askonce.AttemptError || !strings.Contains(as[0].Error, "deadline exceeded") {
		t.Fatalf("attempts %+v", as)
	}
	waitDone(t, done)
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// RequestTimeout bounds one HTTP request, and a timed-out request is
// retried within the attempt.
func TestRequestTimeoutRetried(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	f := newFakeServer(t, hang(done), reply(planRaw, 1, 1))
	e := newEngine(t, newInterpreter(t, f, func(c *openai.Config) { c.RequestTimeout = 150 * time.Millisecond }))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess {
		t.Fatalf("status %s error %q", j.Status, j.Error)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	waitDone(t, done)
}

// A 5 MiB completion is recorded capped: the engine rejects it as
// oversize on every attempt and keeps at most MaxRaw bytes of it.
func TestHugeResponseCapped(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 5<<20)
	f := newFakeServer(t, reply(huge, 1, 1), reply(huge, 1, 1), reply(huge, 1, 1))
	e := newEngine(t, newInterpreter(t, f, nil))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusValidationError {
		t.Fatalf("status %s error %q", j.Status, j.Error)
	}
	if len(j.Result) == 0 || len(j.Result) > askonce.DefaultMaxRaw {
		t.Errorf("result is %d bytes, want 1..%d", len(j.Result), askonce.DefaultMaxRaw)
	}
	as := attempts(t, e, j)
	if len(as) != 3 {
		t.Fatalf("%d attempts, want 3", len(as))
	}
	for _, a := range as {
		if len(a.Raw) == 0 || len(a.Raw) > askonce.DefaultMaxRaw || !strings.Contains(a.Error, "output is 5242880 bytes") {
			t.Errorf("attempt %d: raw %d bytes, error %q", a.N, len(a.Raw), a.Error)
		}
	}
}

// Usage and cost add up over every attempt of the job, resumed ones
// included, priced from the table.
func TestUsageAndCostAddUp(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(askTemp, 1000, 100), reply(cycleRaw, 2000, 300), reply(planRaw, 2000, 400))
	e := newEngine(t, newInterpreter(t, f, func(c *openai.Config) {
		c.Prices = map[string]openai.Price{"test-model": {Prompt: 2, Completion: 8}}
	}))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Usage.PromptTokens != 1000 || j.Usage.CompletionTokens != 100 || !near(j.Usage.CostUSD, 0.0028) {
		t.Errorf("after the question: usage %+v", j.Usage)
	}
	j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("answer: %v %+v", err, j)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	// 5000 prompt tokens at $2/M + 800 completion tokens at $8/M.
	want := askonce.Usage{PromptTokens: 5000, CompletionTokens: 800, CostUSD: 0.0164}
	if stored.Usage.PromptTokens != want.PromptTokens || stored.Usage.CompletionTokens != want.CompletionTokens || !near(stored.Usage.CostUSD, want.CostUSD) {
		t.Errorf("job usage %+v, want %+v", stored.Usage, want)
	}
	var sum askonce.Usage
	as := attempts(t, e, j)
	for _, a := range as {
		sum = sum.Add(a.Usage)
	}
	if len(as) != 3 || sum.PromptTokens != want.PromptTokens || !near(sum.CostUSD, want.CostUSD) {
		t.Errorf("%d attempts summing to %+v", len(as), sum)
	}
	if !near(as[1].Usage.CostUSD, (2000*2+300*8)/1e6) {
		t.Errorf("second attempt cost %v", as[1].Usage.CostUSD)
	}
}

// The request carries the configured sampling settings, the key from the
// named variable, and the client makes exactly one request per call.
func TestRequestSettings(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(planRaw, 1, 1), apiError(http.StatusInternalServerError, "boom", "server_error"))
	temp, seed := 0.0, int64(42)
	in := newInterpreter(t, f, func(c *openai.Config) {
		c.APIKeyEnv = "MY_LLM_KEY"
		c.Getenv = func(k string) string {
			if k == "MY_LLM_KEY" {
				return "sk-test-123"
			}
			return ""
		}
		c.Temperature, c.Seed, c.MaxTokens = &temp, &seed, 2048
		c.MaxRetries = -1
	})
	req := &askonce.Request{JobID: "j1", Goal: "g", Prompt: "g", Profile: "general", Files: []string{"a.go", "b.go"},
		Attempt: 1, Reason: askonce.ReasonInitial, SpecSchema: []byte(`{"type":"object","required":["name"]}`)}
	resp, err := in.Interpret(ctx, req)
	if err != nil || string(resp.Raw) != planRaw {
		t.Fatalf("interpret: %v %+v", err, resp)
	}
	// MaxRetries -1: a 500 is returned at once, and not retried.
	_, err = in.Interpret(ctx, req)
	var se *openai.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError || se.Message != "boom" || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("second call: %v", err)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	r := reqs[0]
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("authorization %q", got)
	}
	b := r
	if b.Temperature == nil || *b.Temperature != 0 || b.Seed == nil || *b.Seed != 42 || b.MaxTokens == nil || *b.MaxTokens != 2048 {
		t.Errorf("temperature %v seed %v max tokens %v", b.Temperature, b.Seed, b.MaxTokens)
	}
	for _, want := range []string{"Profile: general", "- a.go", `"required":["name"]`} {
		if !strings.Contains(r.Message("user"), want) {
			t.Errorf("user message lacks %q:\n%s", want, r.Message("user"))
		}
	}
	spec := b.ResponseFormat.JSONSchema.Schema["properties"].(map[string]any)["plan"].(map[string]any)["properties"].(map[string]any)["spec"]
	if req, _ := spec.(map[string]any)["required"].([]any); len(req) != 1 || req[0] != "name" {
		t.Errorf("the spec schema is not the job's: %v", spec)
	}
}

// An empty key (local servers) sends no Authorization header.
func TestNoAPIKey(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(planRaw, 1, 1))
	in := newInterpreter(t, f, nil)
	if _, err := in.Interpret(ctx, &askonce.Request{Goal: "g", Prompt: "g", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if h := f.requests()[0].Header; h.Get("Authorization") != "" {
		t.Errorf("authorization %q sent without a key", h.Get("Authorization"))
	}
}

// A cancelled caller ends the call with the context's error.
func TestCancelledContext(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	f := newFakeServer(t, hang(done))
	in := newInterpreter(t, f, nil)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		for len(f.requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	_, err := in.Interpret(cctx, &askonce.Request{Goal: "g", Prompt: "g", Attempt: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	waitDone(t, done)
}

// waitDone waits for a hung handler to see its request cancelled.
func waitDone(t *testing.T, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's handler is still blocked: the request was not cancelled")
	}
}

func schemaHas(c call, prop string) bool {
	rf := c.ResponseFormat
	if rf == nil || rf.JSONSchema == nil {
		return false
	}
	props, _ := rf.JSONSchema.Schema["properties"].(map[string]any)
	_, ok := props[prop]
	return ok
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// A response body over MaxResponseBytes fails the call, keeping the
// part that was read.
func TestResponseBodyLimit(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(strings.Repeat("z", 4096), 1, 1))
	in := newInterpreter(t, f, func(c *openai.Config) { c.MaxResponseBytes = 1024 })
	resp, err := in.Interpret(ctx, &askonce.Request{Goal: "g", Prompt: "g", Attempt: 1})
	if err == nil || !strings.Contains(err.Error(), "response body exceeds 1024 bytes") {
		t.Fatalf("err %v", err)
	}
	if resp == nil || len(resp.Raw) != 1024 {
		t.Fatalf("raw %d bytes, want 1024", len(resp.Raw))
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (not retried)", n)
	}
}

// A model's SELECT_ONE question with allowOther keeps it; the engine stores
// the question as the model wrote it, quotes and all.
func TestQuestionWithAllowOtherIsKept(t *testing.T) {
	t.Parallel()
	ask := `{"title":"Parser","question":{"type":"SELECT_ONE","text":"Which should it be: “Go” or “Rust”?","options":["Go","Rust"],"allowOther":true,"reason":"action_ambiguous","default":"Go"}}`
	f := newFakeServer(t, reply(ask, 10, 5))
	e := newEngine(t, newInterpreter(t, f, nil))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "write the parser in Go or Rust"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPending || j.Question == nil || !j.Question.AllowOther || j.Question.Text != "Which should it be: “Go” or “Rust”?" {
		t.Fatalf("status %s question %+v", j.Status, j.Question)
	}
}

// The candidates of a request reach the model in the user message, one a
// line, beside the candidate files, so that it can ground a question about
// an ambiguous reference in them.
func TestCandidatesReachTheModel(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, reply(planRaw, 10, 5))
	in := newInterpreter(t, f, nil)
	req := &askonce.Request{JobID: "j", Goal: "pick up the cup", Prompt: "pick up the cup", Files: []string{"room.md"},
		Candidates: []string{"red cup", "blue cup"}, Attempt: 1, Reason: askonce.ReasonInitial}
	if _, err := in.Interpret(ctx, req); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if u := reqs[0].Message("user"); !strings.Contains(u, "\nCandidates (the things besides files the builder can act on):\n- red cup\n- blue cup\n") || !strings.Contains(u, "- room.md\n") {
		t.Errorf("user message lacks the candidates:\n%s", u)
	}
}
