package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/openapitest"
	"github.com/askonce/askonce/server"
)

// checkContract validates a live response against the OpenAPI document
// (see openapitest.Contract.Validate).
func (e *env) checkContract(req *http.Request, resp *http.Response, raw []byte) {
	e.t.Helper()
	if e.contract == nil {
		// An env built by hand around another server: fetch its
		// document (bypassing do, so the fetch is not itself checked).
		c, err := openapitest.Fetch(e.srv.Client(), e.srv.URL)
		if err != nil {
			e.t.Fatalf("the OpenAPI document does not load: %v", err)
		}
		e.contract = c
	}
	if err := e.contract.Validate(req, resp.StatusCode, resp.Header, raw); err != nil {
		e.t.Errorf("contract: %s %s answered %d not as documented: %v\n%.2000s", req.Method, req.URL.Path, resp.StatusCode, err, raw)
	}
}

// The contract check can fail: a body the document does not describe is
// rejected, for a documented operation and for an unmatched path.
func TestContract_RejectsUndocumentedResponses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	get := func(path string) *http.Request {
		req, err := http.NewRequest("GET", e.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	for _, c := range []struct {
		name, path string
		status     int
		body       string
		ok         bool
	}{
		{"healthz as documented", "/healthz", 200, `{"ok":true}`, true},
		{"healthz with a string ok", "/healthz", 200, `{"ok":"yes"}`, false},
		{"a missing job, as documented", "/jobs/x", 404, `{"success":false,"error":"no","code":"not_found"}`, true},
		{"an error with a code not in ErrorCodes", "/jobs/x", 404, `{"success":false,"error":"no","code":"gone"}`, false},
		{"no route, as documented", "/nope", 404, `{"success":false,"error":"no route","code":"not_found"}`, true},
		{"no route, without a code", "/nope", 404, `{"success":false,"error":"no route"}`, false},
		// A page mounted beside the API answers HTML; it is not the API's.
		{"a mounted page's HTML 404", "/a/tok", 404, `<p>not found</p>`, true},
	} {
		header := jsonHeader
		if strings.HasPrefix(c.body, "<") {
			header = http.Header{"Content-Type": {"text/html; charset=utf-8"}}
		}
		err := e.contract.Validate(get(c.path), c.status, header, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: valid %v, want %v (%v)", c.name, err == nil, c.ok, err)
		}
	}
}

// The document loads and validates with kin-openapi, and says what a
// generated client needs: per-operation security (none on public routes),
// servers, a licence, the enums from the lists askonce exports, and the
// 404 and 405 answers.
func TestOpenAPI_ValidatesWithKinOpenAPI(t *testing.T) {
	t.Parallel()
	for _, withKeys := range []bool{false, true} {
		var o envOptions
		if withKeys {
			keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("key-a") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			o.keys = keys
		}
		e := newEnv(t, o)
		doc := e.contract.Doc
		if doc.Info.License == nil || doc.Info.License.Name != server.License {
			t.Errorf("license %+v", doc.Info.License)
		}
		if len(doc.Servers) == 0 {
			t.Error("no servers")
		}
		public := map[string]bool{"/healthz": true, "/livez": true, "/metrics": true, "/openapi.json": true}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				if op.Security == nil {
					t.Errorf("%s %s: no security", method, path)
					continue
				}
				schemes := map[string]bool{}
				anonymous := false
				for _, req := range *op.Security {
					if len(req) == 0 {
						anonymous = true
					}
					for name := range req {
						schemes[name] = true
					}
				}
				switch {
				case public[path] && len(*op.Security) != 0:
					t.Errorf("%s %s is public but its security is %v", method, path, *op.Security)
				case !public[path] && (!schemes["bearer"] || !schemes["apiKey"]):
					t.Errorf("%s %s: security %v, want bearer and apiKey", method, path, *op.Security)
				case !public[path] && withKeys && anonymous:
					t.Errorf("%s %s: a server with keys documents anonymous access", method, path)
				}
				for _, code := range []int{404, 405} {
					if op.Responses.Status(code) == nil {
						t.Errorf("%s %s: %d not documented", method, path, code)
					}
				}
			}
		}
		schemas := doc.Components.Schemas
		enumOf := func(schema, prop string) []string {
			var out []string
			for _, v := range schemas[schema].Value.Properties[prop].Value.Enum {
				s, _ := v.(string)
				out = append(out, s)
			}
			return out
		}
		for _, c := range []struct {
			schema, prop string
			want         []string
		}{
			{"JobView", "status", names(askonce.Statuses)},
			{"JobView", "clarificationStatus", names(askonce.ClarificationStatuses)},
			{"Question", "type", names(askonce.QuestionTypes)},
			{"ErrorResponse", "code", api.ErrorCodes},
		} {
			if got := enumOf(c.schema, c.prop); !slices.Equal(got, c.want) {
				t.Errorf("%s.%s enum %v, want %v", c.schema, c.prop, got, c.want)
			}
		}
		// A create without goal (or prompt) and a report with two outcomes
		// do not match their request schemas.
		for _, c := range []struct {
			schema string
			body   map[string]any
			ok     bool
		}{
			{"CreateJobRequest", map[string]any{"goal": "g"}, true},
			{"CreateJobRequest", map[string]any{"prompt": "g"}, true},
			{"CreateJobRequest", map[string]any{"sessionId": "s"}, false},
			{"ReportRequest", map[string]any{"error": "boom"}, true},
			{"ReportRequest", map[string]any{"error": "boom", "plan": map[string]any{}}, false},
			{"AnswerRequest", map[string]any{}, false},
		} {
			err := schemas[c.schema].Value.VisitJSON(c.body)
			if (err == nil) != c.ok {
				t.Errorf("%s %v: valid %v, want %v (%v)", c.schema, c.body, err == nil, c.ok, err)
			}
		}
	}
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
