// Package clients_test runs the tests of the clients for other languages
// (clients/python, clients/typescript, and the TypeScript client as its
// packed tarball installs into an empty project) and of the AI SDK and
// OpenAI Agents SDK examples (examples/ai-sdk, examples/openai-agents)
// against the askonce binary built once here, so that
// the README's `go test ./...` covers them.
package clients_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// Nothing to build: require skips every test.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "askonce-clients")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "askonce")
	build := exec.Command("go", "build", "-o", binary, "../cmd/askonce")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build askonce:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// require skips the test under -short (each runs a client's suite in
// Python or Node against the built binary), and when a tool or an npm
// install it needs is missing, except in CI (CI set), where that is a
// failure: .ci/run installs them.
func require(t *testing.T, tool string, paths ...string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: skipping a client test (%s against the built binary; go test without -short runs it; CI does)", tool)
	}
	missing := ""
	if _, err := exec.LookPath(tool); err != nil {
		missing = tool
	}
	for _, p := range paths {
		if _, err := os.Stat(p); missing == "" && err != nil {
			dir, _, _ := strings.Cut(p, "node_modules")
			missing = p + " (npm ci in " + filepath.Clean(dir) + ")"
		}
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("the client tests need %s; .ci/run installs it", missing)
	}
	t.Skipf("skipping: %s is not installed (.ci/run installs it; CI never skips)", missing)
}

// run runs name with args in dir with ASKONCE_BIN set, within limit; a
// non-zero exit fails the test with the output.
func run(t *testing.T, dir string, limit time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ASKONCE_BIN="+binary)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s in %s: %v after %s (limit %s)\n%s", name, strings.Join(args, " "), dir, err, time.Since(began).Round(time.Millisecond), limit, out.String())
	}
	t.Logf("%s %s: passed in %s", name, strings.Join(args, " "), time.Since(began).Round(time.Millisecond))
	return out.String()
}

func TestPythonClient(t *testing.T) {
	t.Parallel()
	require(t, "python3")
	out := run(t, "python", 5*time.Minute, "python3", "-m", "unittest", "discover", "-v")
	// Python before 3.12 exits 0 when discover finds no test at all.
	m := regexp.MustCompile(`(?m)^Ran (\d+) tests? in `).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("python3 -m unittest discover ran no tests:\n%s", out)
	}
}

func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	require(t, "node", filepath.Join("typescript", "node_modules", "openapi-fetch"))
	tests, err := filepath.Glob(filepath.Join("typescript", "test", "*.test.mjs"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no tests in typescript/test: %v", err)
	}
	for i := range tests {
		tests[i] = strings.TrimPrefix(tests[i], "typescript"+string(filepath.Separator))
	}
	run(t, "typescript", 5*time.Minute, "node", append([]string{"--test"}, tests...)...)
}

func TestAISDKExample(t *testing.T) {
	t.Parallel()
	example := filepath.Join("..", "examples", "ai-sdk")
	require(t, "node", filepath.Join("typescript", "node_modules", "openapi-fetch"), filepath.Join(example, "node_modules", "ai"))
	run(t, example, 3*time.Minute, "node", "--test", "agent.test.mjs")
}

func TestOpenAIAgentsExample(t *testing.T) {
	t.Parallel()
	example := filepath.Join("..", "examples", "openai-agents")
	require(t, "node", filepath.Join("typescript", "node_modules", "openapi-fetch"), filepath.Join(example, "node_modules", "@openai", "agents"))
	run(t, example, 3*time.Minute, "node", "--test", "agent.test.mjs")
}
