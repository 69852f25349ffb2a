package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherPlugin is an exec plug-in whose SELECT_ONE question allows other
// answers. After an answer that is hot or frozen it plans; after any other
// answer it asks again, unless a directive tells it to plan, when it
// records the choice it made as an assumption: an answer that settles
// nothing ("banana"), independent of what the rules interpreter allows.
const otherPlugin = `import json, sys
req = json.load(sys.stdin)
marker = "\n\nClarification Answer: "
answer = req["prompt"].rsplit(marker, 1)[1] if marker in req["prompt"] else None
question = {"question": {"type": "SELECT_ONE", "text": "Hot or frozen?", "options": ["hot", "frozen"], "allowOther": True}}
if answer is None:
    print(json.dumps(question))
elif answer in ("hot", "frozen") or req["directive"]:
    choice = answer if answer in ("hot", "frozen") else "hot"
    assumptions = [] if choice == answer else ["%r settles nothing; assumed hot" % answer]
    print(json.dumps({"title": "Cheese: " + answer, "plan": {"tasks": [{"id": "t1", "title": "make " + choice + " cheese"}], "assumptions": assumptions}}))
else:
    print(json.dumps(question))
`

// writePlugin writes a Python exec plug-in and returns the environment
// that selects it.
func writePlugin(t *testing.T, src string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plugin.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{`ASKONCE_EXEC_COMMAND=["python3", "` + path + `"]`}
}

// Without a terminal, a question that allows other answers says so, and a
// line that is not an option's number is the user's own answer.
func runOtherAnswerWithoutATerminal(t *testing.T) {
	t.Parallel()
	env := append(writePlugin(t, otherPlugin), noServer...)
	db := filepath.Join(t.TempDir(), "a.db")
	run := []string{"run", "--no-input", "--db", db, "--interpreter", "exec"}

	out, errs, code := runCLI(t, "banana\n", env, append(run, "hot frozen cheese")...)
	want(t, "other answer", out, errs, code, 0, "1) hot", "2) frozen", "or an answer of your own",
		"Answer with a number (1-2), or type your own answer", "Cheese: banana", "answer: banana (from user)")
	out, errs, code = runCLI(t, "2\n", env, append(run, "hot frozen cheese")...)
	want(t, "number picks the option", out, errs, code, 0, "answer: frozen (from user)")
	out, errs, code = runCLI(t, "", env, append(run, "hot frozen cheese", "--answer", "smoked")...)
	want(t, "--answer of one's own", out, errs, code, 0, "answer: smoked (from user)")

	// A blank line is no answer of one's own: the server's 422, exit 5,
	// saying that other text is allowed.
	out, errs, code = runCLI(t, " \t \n", env, append(run, "hot frozen cheese")...)
	want(t, "blank answer", out, errs, code, 5, "allowed: hot, frozen, or other text of your own (at most 4096 bytes)", "still pending")
	id := jobIDRe.FindString(out + errs)
	out, errs, code = runCLI(t, "", env, "jobs", "show", "--db", db, "--interpreter", "exec", id)
	want(t, "jobs show", out, errs, code, 0, "hot, frozen, or an answer of your own")
	out, errs, code = runCLI(t, "", env, "jobs", "answer", "--db", db, "--interpreter", "exec", id, "gouda")
	want(t, "jobs answer of one's own", out, errs, code, 0, "answer: gouda (from user)")

	out, errs, code = runCLI(t, "hot frozen cheese\n/answer banana\n", env, "repl", "--db", db, "--interpreter", "exec")
	want(t, "repl", out, errs, code, 0, "or an answer of your own", "/answer TEXT (an option, or your own answer)", "answer: banana (from user)")
}

// TestAnswers: answers of one's own that settle nothing meet the hard cap.
func TestAnswers(t *testing.T) {
	t.Parallel()
	t.Run("OtherAnswerThatSettlesNothingHitsTheHardCap", answersOtherAnswerThatSettlesNothingHitsTheHardCap)
	t.Run("ThatSettleNothingOnTheRulesInterpreter", answersThatSettleNothingOnTheRulesInterpreter)
}

// "banana" for hot frozen cheese over HTTP with the built binary: an answer outside the
// options of an allowOther question is taken; when the interpreter still
// asks, the hard cap decides (rule 3).
func answersOtherAnswerThatSettlesNothingHitsTheHardCap(t *testing.T) {
	t.Parallel()
	env := writePlugin(t, otherPlugin)
	for _, hardCap := range []string{"fail", "fallback"} {
		t.Run(hardCap, func(t *testing.T) {
			t.Parallel()
			in := start(t, env, "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec")
			r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "hardCap": hardCap})
			if r.status != 201 || r.body["clarificationAllowOther"] != true {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			a := in.do("POST", "/jobs/"+str(r.body, "jobId")+"/clarification", map[string]any{"answer": "banana"})
			if a.status != 200 || str(a.body, "clarificationAnswer") != "banana" ||
				str(a.body, "resolvedPrompt") != "hot frozen cheese\n\nClarification Answer: banana" {
				t.Fatalf("answer: %d %s", a.status, a.raw)
			}
			switch hardCap {
			case "fail":
				if str(a.body, "status") != "failed" || str(a.body, "error") != "Clarification did not resolve ambiguity. Please rephrase." {
					t.Fatalf("want the hard-cap failure: %s", a.raw)
				}
			case "fallback":
				plan, _ := a.body["plan"].(map[string]any)
				if str(a.body, "status") != "success" || plan == nil || !strings.Contains(string(a.raw), "settles nothing; assumed hot") {
					t.Fatalf("want success with the assumption: %s", a.raw)
				}
			}
		})
	}
}

// On the default rules interpreter: hot frozen
// cheese answered banana ends failed with the hard-cap message under
// hardCap fail; under fallback it ends success with the assumption
// recorded, or that exact failure.
//
// It needs the rules interpreter to set allowOther on its SELECT_ONE
// questions (rule 7).
func answersThatSettleNothingOnTheRulesInterpreter(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	for _, hardCap := range []string{"fail", "fallback"} {
		r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "hardCap": hardCap})
		if r.status != 201 || str(r.body, "clarificationType") != "SELECT_ONE" {
			t.Fatalf("%s: create: %d %s", hardCap, r.status, r.raw)
		}
		if r.body["clarificationAllowOther"] != true {
			t.Fatalf("%s: the rules interpreter's SELECT_ONE question does not allow other answers: %s", hardCap, r.raw)
		}
		a := in.do("POST", "/jobs/"+str(r.body, "jobId")+"/clarification", map[string]any{"answer": "banana"})
		if a.status != 200 || str(a.body, "clarificationAnswer") != "banana" || a.body["needsClarification"] == true {
			t.Fatalf("%s: answer: %d %s", hardCap, a.status, a.raw)
		}
		const failure = "Clarification did not resolve ambiguity. Please rephrase."
		status, msg := str(a.body, "status"), str(a.body, "error")
		switch {
		case hardCap == "fail" && (status != "failed" || msg != failure):
			t.Errorf("fail: status %s error %q, want failed with %q", status, msg, failure)
		case hardCap == "fallback" && status == "failed" && msg != failure:
			t.Errorf("fallback: failed with %q, want %q", msg, failure)
		case hardCap == "fallback" && status == "success":
			// The fallback ran (rule 3) and the plan records that
			// banana settled nothing.
			plan, _ := a.body["plan"].(map[string]any)
			as, _ := plan["assumptions"].([]any)
			applied := fallbackApplied(t, in, str(a.body, "jobId"))
			if applied == nil || !strings.Contains(fmt.Sprint(as), "banana") {
				t.Errorf("fallback: success without the assumption about banana (fallback_applied %v): %s", applied, a.raw)
			}
		case hardCap == "fallback" && status != "success" && status != "failed":
			t.Errorf("fallback: status %s", status)
		}
	}
}

// fallbackApplied returns the data of the job's fallback_applied event,
// or nil.
func fallbackApplied(t *testing.T, in *instance, id string) map[string]any {
	t.Helper()
	r := in.do("GET", "/jobs/"+id+"/events", nil)
	evs, _ := r.body["events"].([]any)
	for _, e := range evs {
		ev, _ := e.(map[string]any)
		if str(ev, "type") == "fallback_applied" {
			data, _ := ev["data"].(map[string]any)
			if data == nil {
				data = map[string]any{}
			}
			return data
		}
	}
	return nil
}

// Bidirectional controls in an interpreter's text are shown escaped by
// every terminal command, like the other control characters; --json stays
// valid JSON.
func runBidiControlsAreEscapedByEveryCommand(t *testing.T) {
	t.Parallel()
	env := append(writePlugin(t, `import json, sys
req = json.load(sys.stdin)
if "Clarification Answer:" in req["prompt"]:
    print(json.dumps({"title": "inv\u202eexe.txt", "plan": {"tasks": [{"id": "a", "title": "open \u2066evil\u2069 now"}]}}))
else:
    print(json.dumps({"question": {"type": "SELECT_ONE", "text": "Send \u202bthe file\u202c?", "options": ["doc\u202dx", "b"]}}))
`), noServer...)
	db := filepath.Join(t.TempDir(), "a.db")
	flags := []string{"--db", db, "--interpreter", "exec"}
	var all strings.Builder
	check := func(what, out, errs string, code int) {
		t.Helper()
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", what, code, out, errs)
		}
		if strings.ContainsFunc(out+errs, func(r rune) bool { return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) }) {
			t.Fatalf("%s: a bidi control reached the terminal: %q", what, out+errs)
		}
		all.WriteString(out + errs)
	}
	out, errs, code := runCLI(t, "1\n", env, append([]string{"run", "--no-input"}, append(flags, "anything")...)...)
	check("run", out, errs, code)
	id := jobIDRe.FindString(out)
	out, errs, code = runCLI(t, "", env, append([]string{"jobs", "show"}, append(flags, id)...)...)
	check("jobs show", out, errs, code)
	out, errs, code = runCLI(t, "", env, append([]string{"jobs", "list"}, flags...)...)
	check("jobs list", out, errs, code)
	out, errs, code = runCLI(t, "", env, append([]string{"jobs", "events"}, append(flags, id)...)...)
	check("jobs events", out, errs, code)
	out, errs, code = runCLI(t, "anything\n/answer 2\n/jobs\n", env, append([]string{"repl"}, flags...)...)
	check("repl", out, errs, code)
	jsonOut, errs, code := runCLI(t, "", env, append([]string{"jobs", "list", "--json"}, flags...)...)
	check("jobs list --json", jsonOut, errs, code)
	var v any
	if err := json.Unmarshal([]byte(jsonOut), &v); err != nil || !strings.Contains(jsonOut, `inv\u202eexe.txt`) {
		t.Fatalf("--json: %v\n%s", err, jsonOut)
	}
	for _, w := range []string{`Send \u202bthe file\u202c?`, `doc\u202dx`, `inv\u202eexe.txt`, `open \u2066evil\u2069 now`} {
		if !strings.Contains(all.String(), w) {
			t.Errorf("no command showed the escape %q:\n%s", w, all.String())
		}
	}
}
