package main_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// askonce run --memory project --project NAME: the second agent (another
// session) is answered from the project's memory, which askonce memory
// lists and forgets; --no-remember keeps an answer out of it; --fresh
// asks anyway.
func cliMemoryProjectRunListForget(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	plain := []string{"run", "--server", in.base, "--no-input"}
	run := append(plain[:len(plain):len(plain)], "--memory", "project", "--project", "shop")
	mem := func(sub string, args ...string) []string {
		return append([]string{"memory", sub, "--server", in.base}, args...)
	}

	out, errs, code := cli(t, "2\n", append(run, "--session", "agent-a", "hot frozen cheese")...)
	want(t, "first agent answers", out, errs, code, 0, "answer: frozen (from user)")
	out, errs, code = cli(t, "", append(run, "--session", "agent-b", "hot frozen cheese")...)
	want(t, "second agent", out, errs, code, 0, `-> frozen (from history: answered from project "shop" memory, just now, job `)
	if strings.Contains(out, "1) hot") {
		t.Fatalf("the second agent was asked:\n%s", out)
	}
	out, errs, code = cli(t, "", append(run, "--session", "agent-c", "--fresh", "hot frozen cheese")...)
	want(t, "fresh", out, errs, code, 7, "1) hot")

	out, errs, code = cli(t, "", mem("list", "--project", "shop")...)
	want(t, "memory list", out, errs, code, 0, "-> frozen", "used 1 times")
	hash := regexp.MustCompile(`forget: ([0-9a-f]{64})`).FindStringSubmatch(out)
	if hash == nil {
		t.Fatalf("no hash to forget in:\n%s", out)
	}
	out, errs, code = cli(t, "", mem("forget", "--project", "shop", hash[1])...)
	want(t, "memory forget", out, errs, code, 0, "forgot the project answer")
	out, errs, code = cli(t, "", mem("forget", "--project", "shop", hash[1])...)
	want(t, "forget again", out, errs, code, 3, "no project answer")

	out, errs, code = cli(t, "1\n", append(run, "--session", "agent-d", "--no-remember", "hot frozen cheese")...)
	want(t, "answer without remembering", out, errs, code, 0, "answer: hot (from user)")
	out, errs, code = cli(t, "", mem("list", "--project", "shop")...)
	want(t, "memory after --no-remember", out, errs, code, 0, "nothing remembered")

	out, errs, code = cli(t, "", append(run, "--session", "agent-e", "hot frozen cheese")...)
	want(t, "left pending", out, errs, code, 7)
	id := jobIDRe.FindString(out + errs)
	out, errs, code = cli(t, "", "jobs", "answer", "--server", in.base, "--no-remember", id, "frozen")
	want(t, "jobs answer --no-remember", out, errs, code, 0)
	out, errs, code = cli(t, "", mem("list", "--project", "shop")...)
	want(t, "memory after jobs answer --no-remember", out, errs, code, 0, "nothing remembered")

	out, errs, code = cli(t, "", append(plain, "--memory", "galaxy", "hot frozen cheese")...)
	want(t, "unknown scope", out, errs, code, 2, "--memory \"galaxy\" is not one of session, project, tenant")
	out, errs, code = cli(t, "", append(run, "--memory-ttl", "forever", "hot frozen cheese")...)
	want(t, "bad ttl", out, errs, code, 5, "memory.ttl")
}

// serve --memory-scope project --memory-ttl: a job that names a project
// and no scope gets the project scope and the server's TTL; one that
// names none stays in its session.
func cliServeMemoryDefaults(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--memory-scope", "project", "--memory-ttl", "36h")
	create := func(body string) map[string]any {
		t.Helper()
		resp, err := http.Post(in.base+"/jobs", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST /jobs %s: %d %v", body, resp.StatusCode, err)
		}
		return v
	}
	j := create(`{"goal": "write the README then add tests", "memory": {"project": "shop"}}`)
	if m, _ := j["memory"].(map[string]any); m["scope"] != "project" || m["project"] != "shop" || m["ttl"] != "36h0m0s" {
		t.Errorf("memory of a job naming a project: %v, want project shop kept 36h", j["memory"])
	}
	if j := create(`{"goal": "write the README then add tests"}`); j["memory"] != nil {
		t.Errorf("a job naming no project has memory %v, want none (its session)", j["memory"])
	}
}

// The TypeScript SDK's client (npm) over /mcp: a second agent planning
// with the same project is answered from memory without an elicitation;
// a client that sends roots (first folder .../shop) and no project is
// answered from project shop's memory too, under serve --memory-scope
// project.
func mcpNpmClientProjectMemory(t *testing.T) {
	dir := requireNPM(t)
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"), "--memory-scope", "project")
	out := runNode(t, time.Minute, []string{"ASKONCE_URL=" + in.base + "/mcp"}, filepath.Join(dir, "memory.mjs"), "http")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got struct {
		FirstElicitations, SecondElicitations, RootedElicitations int
		AnsweredFrom, RootedAnsweredFrom                          string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("%v in the script's report:\n%s", err, out)
	}
	if got.FirstElicitations != 1 || got.SecondElicitations != 0 || !strings.HasPrefix(got.AnsweredFrom, `answered from project "shop" memory`) {
		t.Errorf("elicitations %d then %d, second answered %q; want 1, 0, from project shop's memory", got.FirstElicitations, got.SecondElicitations, got.AnsweredFrom)
	}
	if got.RootedElicitations != 0 || !strings.HasPrefix(got.RootedAnsweredFrom, `answered from project "shop" memory`) {
		t.Errorf("the client with roots was elicited %d times, answered %q; want 0, from project shop's memory", got.RootedElicitations, got.RootedAnsweredFrom)
	}
}
