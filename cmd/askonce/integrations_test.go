package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// integrationsDoc is docs/integrations.md, from this package's directory.
var integrationsDoc = filepath.Join("..", "..", "docs", "integrations.md")

// snippet is the first fenced block of lang in the document at path whose
// text contains marker.
func snippet(t *testing.T, path, lang, marker string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rest := string(b)
	for {
		_, after, ok := strings.Cut(rest, "```"+lang+"\n")
		if !ok {
			t.Fatalf("%s has no %s block containing %q", path, lang, marker)
		}
		block, tail, _ := strings.Cut(after, "```")
		if strings.Contains(block, marker) {
			return block
		}
		rest = tail
	}
}

// TestIntegrations: the documented integrations (Python, A2A, LangGraph) run
// against the binary.
func TestIntegrations(t *testing.T) {
	t.Run("A2AJavaScriptSDKClient", integrationsA2AJavaScriptSDKClient)
	t.Run("PythonSnippetPlans", integrationsPythonSnippetPlans)
	t.Run("A2ASnippetPlans", integrationsA2ASnippetPlans)
	t.Run("LangGraphNodeAskingThreeTimesInterruptsOnce", integrationsLangGraphNodeAskingThreeTimesInterruptsOnce)
	t.Run("LangGraphInterruptResumesAfterARestartWithTheAnswerPagesAnswer", integrationsLangGraphInterruptResumesAfterARestartWithTheAnswerPagesAnswer)
}

// The Python snippets of docs/integrations.md, as printed there (the one
// with the askonce package of clients/python, as if pip-installed, and the
// one with urllib alone), plan "hot frozen cheese" against askonce serve
// behind an API key: each is asked once, answers hot, and prints the plan.
func integrationsPythonSnippetPlans(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is missing; .ci/run installs it")
		}
		t.Skip("skipping: python3 is not installed (CI never skips)")
	}
	pkg, err := filepath.Abs(filepath.Join("..", "..", "clients", "python"))
	if err != nil {
		t.Fatal(err)
	}
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"), "--api-keys-file", keysFile(t, map[string]string{"py": "py-key"}))
	for _, marker := range []string{"import askonce", "urllib"} {
		t.Run(strings.ReplaceAll(marker, " ", "_"), func(t *testing.T) {
			pythonSnippetPlans(t, in, snippet(t, integrationsDoc, "python", marker), "PYTHONPATH="+pkg)
		})
	}
}

func pythonSnippetPlans(t *testing.T, in *instance, code string, env ...string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "plan.py")
	if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), env...)
	cmd := exec.Command("python3", script, "hot frozen cheese")
	cmd.Env = append(env, "ASKONCE_URL="+in.base, "ASKONCE_API_KEY=py-key", "ASKONCE_ANSWER=hot")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 plan.py: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "hot/frozen") {
		t.Fatalf("output %q; want the question with its options, then the plan", out)
	}
	var got struct {
		Plan struct {
			Spec struct {
				Attributes map[string]string `json:"attributes"`
			} `json:"spec"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &got); err != nil || got.Plan.Spec.Attributes["temperature"] != "hot" {
		t.Fatalf("plan line %q (%v); want temperature hot", lines[1], err)
	}
	// Without the key the snippet stops with the API's message.
	cmd = exec.Command("python3", script, "hot frozen cheese")
	cmd.Env = append(env, "ASKONCE_URL="+in.base, "ASKONCE_API_KEY=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "401") {
		t.Errorf("without a key: %v, %q; want exit 1 with 401", err, out)
	}
}

// The A2A JavaScript snippet of docs/integrations.md, as printed there,
// runs with the SDK of a2a/jstest against askonce serve and prints the
// plan's temperature.
func integrationsA2ASnippetPlans(t *testing.T) {
	dir := npmDir(t, filepath.Join("..", "..", "a2a", "jstest"), "@a2a-js/sdk")
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"))
	code := strings.ReplaceAll(snippet(t, integrationsDoc, "js", "@a2a-js/sdk/client"), "http://127.0.0.1:8080", in.base)
	// Beside a2a/jstest's node_modules, so that the import resolves.
	f, err := os.CreateTemp(dir, ".snippet-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.WriteString(code); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out := strings.TrimSpace(runNode(t, time.Minute, nil, f.Name())); out != "hot" {
		t.Fatalf("snippet printed %q; want hot", out)
	}
}
