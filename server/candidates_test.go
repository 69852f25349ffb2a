package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// POST /jobs keeps a job's candidates: the created job, GET and the list
// show them as sent, in order; a job created without them has none.
func TestCreate_CandidatesAreKeptAndShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	names := []string{"black pepper", "bell pepper", "黒胡椒", "<script>alert(1)</script>"}
	created := e.create(map[string]any{"goal": readme, "candidates": names})
	if got := strs(created["candidates"]); !slices.Equal(got, names) {
		t.Fatalf("created job's candidates %q, want %q", got, names)
	}
	id := str(created, "jobId")
	g := e.do("GET", "/jobs/"+id, nil)
	if g.status != http.StatusOK || !slices.Equal(strs(g.body["candidates"]), names) {
		t.Fatalf("GET: %d %s; want candidates %q", g.status, g.raw, names)
	}
	bare := e.create(map[string]any{"goal": readme})
	if _, ok := bare["candidates"]; ok {
		t.Errorf("a job created without candidates shows %v", bare["candidates"])
	}
	l := e.do("GET", "/jobs", nil)
	jobs, _ := l.body["jobs"].([]any)
	for _, j := range jobs {
		j, _ := j.(map[string]any)
		if str(j, "jobId") == id && !slices.Equal(strs(j["candidates"]), names) {
			t.Errorf("listed job's candidates %v, want %q", j["candidates"], names)
		}
	}
}

// Candidates are checked when the job is created (askonce.ValidateCandidates):
// a 422 "invalid" naming the count or the entry by its index, and no job.
func TestCreate_BadCandidatesAre422NamingTheEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	many := make([]string, askonce.MaxCandidates+1)
	for i := range many {
		many[i] = "table"
	}
	for _, c := range []struct {
		name       string
		candidates []string
		msg        string
	}{
		{"OneTooMany", many, "1001 candidates given; the limit is 1000"},
		{"NameOver256Bytes", []string{"ok", strings.Repeat("x", 257)}, "candidates[1] is 257 bytes; the limit is 256"},
		{"Blank", []string{"a", "b", " "}, "candidates[2] is empty"},
		{"Newline", []string{"black\npepper"}, "candidates[0] holds a control character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", "/jobs", map[string]any{"goal": readme, "candidates": c.candidates})
			wantError(t, r, http.StatusUnprocessableEntity, "invalid", c.msg)
		})
	}
	r := e.do("POST", "/jobs", map[string]any{"goal": readme, "candidates": "black pepper"})
	wantError(t, r, http.StatusBadRequest, "bad_request", `field "candidates" must be`)
	l := e.do("GET", "/jobs", nil)
	if jobs, _ := l.body["jobs"].([]any); len(jobs) != 0 {
		t.Fatalf("rejected creates left jobs: %s", l.raw)
	}
}

// The OpenAPI document states the limits of candidates in the request and
// in the job view.
func TestOpenAPI_DocumentsCandidatesLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	schemas := obj(obj(openAPIDoc(t, e), "components"), "schemas")
	for _, schema := range []string{"CreateJobRequest", "JobView"} {
		p := obj(obj(obj(schemas, schema), "properties"), "candidates")
		items := obj(p, "items")
		if str(p, "type") != "array" || p["maxItems"] != float64(1000) || str(items, "type") != "string" || items["maxLength"] != float64(256) {
			t.Errorf("%s.candidates: %v", schema, p)
		}
		if slices.Contains(strs(obj(schemas, schema)["required"]), "candidates") {
			t.Errorf("%s.candidates is required", schema)
		}
	}
}

// A plan's task carries which candidate its mentions mean (task.bindings,
// rule 16): the created job and GET show them on the task whose text holds
// the mention, and a task without a mention has none.
func TestRule16_TaskBindingsRoundTripInTheJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	created := e.create(map[string]any{"goal": "Wipe the table. Then pour the olive oil into the pan.", "candidates": []string{"olive oil", "sunflower oil", "pan"}})
	id := str(created, "jobId")
	g := e.do("GET", "/jobs/"+id, nil)
	if g.status != http.StatusOK {
		t.Fatalf("GET: %d %s", g.status, g.raw)
	}
	for name, job := range map[string]map[string]any{"created": created, "GET": g.body} {
		tasks, _ := obj(job, "plan")["tasks"].([]any)
		if len(tasks) != 2 {
			t.Fatalf("%s: tasks %v, want 2", name, tasks)
		}
		first, _ := tasks[0].(map[string]any)
		if _, ok := first["bindings"]; ok {
			t.Errorf("%s: task %v without a mention has bindings", name, first)
		}
		second, _ := tasks[1].(map[string]any)
		var got []string
		binds, _ := second["bindings"].([]any)
		for _, b := range binds {
			b, _ := b.(map[string]any)
			got = append(got, str(b, "mention")+"="+str(b, "candidate"))
		}
		if want := []string{"olive oil=olive oil", "pan=pan"}; !slices.Equal(got, want) {
			t.Errorf("%s: task %v has bindings %q, want %q", name, second, got, want)
		}
	}
}
