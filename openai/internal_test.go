package openai

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		header, value string
		want          time.Duration
		ok            bool
	}{
		{"Retry-After", "0", 0, true},
		{"Retry-After", "2", 2 * time.Second, true},
		{"Retry-After", now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second, true},
		{"Retry-After", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Retry-After", "soon", 0, false},
		{"Retry-After", "-1", 0, false},
		{"Retry-After-Ms", "250", 250 * time.Millisecond, true},
		{"X-Other", "5", 0, false},
	} {
		h := http.Header{}
		h.Set(tc.header, tc.value)
		got, ok := retryAfter(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %s = %s %v, want %s %v", tc.header, tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

// Backoff doubles from the base, with jitter, and stops at the maximum.
func TestBackoff(t *testing.T) {
	t.Parallel()
	in := &Interpreter{cfg: Config{RetryBaseDelay: 100 * time.Millisecond, MaxRetryDelay: time.Second}}
	for n, hi := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		hi *= time.Millisecond
		d, _ := in.delay(&exchange{}, n)
		if d < hi/2 || d > hi {
			t.Errorf("retry %d: %s, want within [%s, %s]", n, d, hi/2, hi)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"error":{"message":"Invalid 'response_format'","type":"invalid_request_error","code":null}}`: "Invalid 'response_format'",
		`{"error":"model 'x' not found"}`:                                   "model 'x' not found",
		`{"object":"error","message":"json_schema unsupported","code":400}`: "json_schema unsupported",
		`{"detail":"Not Found"}`:                                            "Not Found",
		"<html>\n<body>Bad Gateway</body></html>":                           "<html> <body>Bad Gateway</body></html>",
		strings.Repeat("y", 5000):                                           strings.Repeat("y", maxMessage) + "…",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%.40q) = %.60q, want %.60q", body, got, want)
		}
	}
}

func TestFormatRejected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		msg    string
		used   ResponseFormat
		want   bool
	}{
		{400, "response_format is not supported", FormatJSONSchema, true},
		{400, "Unknown field json_schema", FormatJSONSchema, true},
		{422, "structured outputs are not available", FormatJSONSchema, true},
		{400, "json_object not supported", FormatJSONObject, true},
		{400, "json_schema unsupported", FormatJSONObject, false},
		{400, "max_tokens is too large", FormatJSONSchema, false},
		{429, "response_format rate limit", FormatJSONSchema, false},
		{400, "response_format", FormatNone, false},
	} {
		ex := &exchange{status: tc.status, message: tc.msg}
		if got := ex.formatRejected(tc.used); got != tc.want {
			t.Errorf("%d %q with %s: %v, want %v", tc.status, tc.msg, tc.used, got, tc.want)
		}
	}
}

// The user message carries the prompt, the directive verbatim and the
// feedback; after an answer or with a directive the schema allows no
// question.
func TestUserMessage(t *testing.T) {
	t.Parallel()
	req := &askonce.Request{Goal: "g", Prompt: askonce.ResolvedPrompt("g", "yes"), Directive: askonce.FallbackDirective,
		Feedback: []string{"plan has no tasks; at least one is required", ""}}
	m := UserMessage(req)
	for _, want := range []string{"Goal:\ng\n\nClarification Answer: yes\n", "Directive: " + askonce.FallbackDirective,
		"Your previous output was invalid:\n- plan has no tasks; at least one is required\nFix"} {
		if !strings.Contains(m, want) {
			t.Errorf("message lacks %q:\n%s", want, m)
		}
	}
	if !mustPlan(req) || mustPlan(&askonce.Request{Goal: "g", Prompt: "g"}) || !mustPlan(&askonce.Request{Goal: "g", Prompt: askonce.ResolvedPrompt("g", "x")}) {
		t.Error("mustPlan")
	}
	if _, ok := OutcomeSchema(true, nil)["properties"].(map[string]any)["question"]; ok {
		t.Error("a plan-only schema offers a question")
	}
}

// The system prompt states the grounding rules of issue 20: the five cases
// a question is grounded in, what is never asked, the language and the
// whole phrases of the options.
func TestSystemPromptStatesTheGroundingRules(t *testing.T) {
	t.Parallel()
	for _, want := range []string{
		"Ask in exactly these five cases",
		"two values of one attribute",
		"A process that changes a state",
		"deletes, overwrites, drops, truncates or force-pushes named data",
		"a physical move",
		"values of two different things",
		"a deletion that is a modifier or the topic of another verb",
		"a universal quantifier means every matching candidate",
		"A boolean the goal states in the field's own words is filled",
		"matches two or more of the candidates",
		"none of them exactly",
		"required field of the spec schema",
		"CONFIRM for a boolean",
		"explicit choice between named alternatives",
		"Never ask in any other case",
		"Never hand the user's own question back",
		"Never ask inside a classification, comparison or \"write about\" task",
		"under a negation",
		`after "any", "as desired" or "to taste"`,
		"serving or purpose suggestion",
		"Never ask whom a pronoun means",
		"the language most of the goal is written in",
		"whole phrases, never fragments",
		"typographic quotes",
		`"allowOther": true`,
		"allowOther is only for SELECT_ONE, never for CONFIRM or TARGET_FILE",
		`give it "fields" (at most 5), one per open field`,
		`one "name: value" line per field`,
		`give one only where someone chose it, "no" for a destructive CONFIRM and a spec field's "default" from its schema`,
		"Never make an option the default because it comes first",
		"A field whose schema gives a default is not open",
	} {
		if !strings.Contains(DefaultSystemPrompt, want) {
			t.Errorf("the system prompt lacks %q", want)
		}
	}
}

func TestOutcomeSchemaOffersAllowOther(t *testing.T) {
	t.Parallel()
	q := OutcomeSchema(false, nil)["properties"].(map[string]any)["question"].(map[string]any)
	if p := q["properties"].(map[string]any)["allowOther"]; p == nil || p.(map[string]any)["type"] != "boolean" {
		t.Errorf("question schema has no boolean allowOther: %v", q)
	}
	if _, ok := OutcomeSchema(true, nil)["properties"].(map[string]any)["question"]; ok {
		t.Error("a plan-only schema offers a question")
	}
}
