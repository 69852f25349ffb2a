package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// The API as documented: every route the server serves.
var wantRoutes = []string{
	"POST /jobs",
	"GET /jobs",
	"GET /jobs/{id}",
	"POST /jobs/{id}/clarification",
	"POST /jobs/{id}/cancel",
	"POST /jobs/{id}/decline",
	"POST /jobs/{id}/report",
	"GET /jobs/{id}/events",
	"GET /memory",
	"DELETE /memory/{hash}",
	"GET /sessions/{id}/history",
	"GET /healthz",
	"GET /livez",
	"GET /metrics",
	"GET /openapi.json",
}

func openAPIDoc(t *testing.T, e *env) map[string]any {
	t.Helper()
	r := e.do("GET", "/openapi.json", nil)
	if r.status != http.StatusOK || r.body["openapi"] != "3.1.0" {
		t.Fatalf("openapi.json: %d %.300s", r.status, r.raw)
	}
	return r.body
}

// Every route appears in the document with its methods, and every
// documented operation is served (not the no-route 404 or a 405).
func TestOpenAPI_CoversEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	doc := openAPIDoc(t, e)
	paths := obj(doc, "paths")
	var documented []string
	for path, item := range paths {
		for method := range item.(map[string]any) {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(documented)
	want := slices.Sorted(slices.Values(wantRoutes))
	if !slices.Equal(documented, want) {
		t.Fatalf("documented operations:\n%v\nwant:\n%v", documented, want)
	}
	for _, op := range documented {
		method, path, _ := strings.Cut(op, " ")
		r := e.do(method, strings.ReplaceAll(path, "{id}", "01a1fc9a-0000-7000-8000-000000000000"), nil)
		if r.status == http.StatusMethodNotAllowed || strings.HasPrefix(str(r.body, "error"), "no route") {
			t.Errorf("%s is documented but not served: %d %s", op, r.status, r.raw)
		}
	}
}

// jsonNames lists a Go type's JSON property names and the required ones
// (no omitempty), read from its struct tags, embedded structs flattened.
func jsonNames(t reflect.Type) (names, required []string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && tag == "" {
			n, r := jsonNames(f.Type)
			names, required = append(names, n...), append(required, r...)
			continue
		}
		if tag == "-" || !f.IsExported() {
			continue
		}
		names = append(names, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	sort.Strings(names)
	sort.Strings(required)
	return names, required
}

// The schemas' property names are the JSON tags of the Go types, so the
// document cannot drift from the wire format.
func TestOpenAPI_SchemasMatchTheGoTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	doc := openAPIDoc(t, e)
	schemas := obj(obj(doc, "components"), "schemas")
	types := []any{
		api.CreateJobRequest{}, api.AnswerRequest{}, api.EmptyRequest{}, api.ReportRequest{},
		api.JobView{}, api.JobDetail{}, api.JobList{}, api.ReportResponse{}, api.EventList{},
		api.HistoryList{}, api.Health{}, api.ErrorResponse{}, api.MemoryList{}, api.Forgotten{},
		askonce.Memory{}, askonce.MemoryRef{}, askonce.Plan{}, askonce.Task{}, askonce.Binding{}, askonce.Question{}, askonce.QuestionField{}, askonce.FieldError{}, askonce.Usage{}, askonce.Attempt{},
		askonce.Event{}, askonce.HistoryEntry{}, askonce.Recipients{}, askonce.SlackRecipient{}, askonce.ReachStep{}, askonce.Answerers{}, askonce.Constraints{},
	}
	if len(schemas) != len(types) {
		var names []string
		for n := range schemas {
			names = append(names, n)
		}
		t.Errorf("%d schemas (%v), want %d", len(schemas), names, len(types))
	}
	for _, v := range types {
		typ := reflect.TypeOf(v)
		s := obj(schemas, typ.Name())
		if s == nil {
			t.Errorf("no schema %s", typ.Name())
			continue
		}
		var props []string
		for p := range obj(s, "properties") {
			props = append(props, p)
		}
		sort.Strings(props)
		req := strs(s["required"])
		sort.Strings(req)
		names, required := jsonNames(typ)
		if !slices.Equal(props, names) {
			t.Errorf("%s properties %v; JSON tags %v", typ.Name(), props, names)
		}
		if !slices.Equal(req, required) {
			t.Errorf("%s required %v; tags without omitempty %v", typ.Name(), req, required)
		}
	}
	// Spot checks: the bodies of POST /jobs, and the status enum.
	post := obj(obj(obj(doc, "paths"), "/jobs"), "post")
	reqRef := obj(obj(obj(obj(post, "requestBody"), "content"), "application/json"), "schema")["$ref"]
	respRef := obj(obj(obj(obj(obj(post, "responses"), "201"), "content"), "application/json"), "schema")["$ref"]
	if reqRef != "#/components/schemas/CreateJobRequest" || respRef != "#/components/schemas/JobView" {
		t.Errorf("POST /jobs refs %v -> %v", reqRef, respRef)
	}
	status := obj(obj(obj(schemas, "JobView"), "properties"), "status")
	if !slices.Equal(strs(status["enum"]), []string{"planning", "pending", "success", "validation_error", "failed", "cancelled", "expired"}) {
		t.Errorf("status enum %v", status["enum"])
	}
	for _, v := range strs(status["enum"]) {
		if !askonce.Status(v).Valid() {
			t.Errorf("enum value %q is not a status", v)
		}
	}
	// Every $ref resolves.
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				var at any = doc
				for _, seg := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
					m, _ := at.(map[string]any)
					at = m[seg]
				}
				if at == nil {
					t.Errorf("dangling $ref %s", ref)
				}
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(doc)
	// The served document is the one OpenAPI returns, and valid JSON.
	if !json.Valid(e.do("GET", "/openapi.json", nil).raw) {
		t.Error("served document is not valid JSON")
	}
}
