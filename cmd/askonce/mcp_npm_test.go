package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Third-party MCP clients from npm (mcp/npmtest: the TypeScript SDK's v1
// and v2 clients, and the official conformance suite) against the built
// binary: askonce mcp over stdio and askonce serve's /mcp.

// npmTestDir is mcp/npmtest, from this package's directory.
var npmTestDir = filepath.Join("..", "..", "mcp", "npmtest")

// requireNPM is mcp/npmtest, once node and its packages are there
// (npmDir).
func requireNPM(t *testing.T) string {
	t.Helper()
	return npmDir(t, npmTestDir, "@modelcontextprotocol")
}

// runNode runs node with args in a fresh directory, with env added, within
// limit, and returns its stdout; a non-zero exit fails the test with both
// outputs.
func runNode(t *testing.T, limit time.Duration, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v (limit %s)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, limit, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// npmRun is the line a client script reports.
type npmRun struct {
	Client          string `json:"client"`
	Transport       string `json:"transport"`
	ProtocolVersion string `json:"protocolVersion"`
	Elicitations    int    `json:"elicitations"`
	Via             string `json:"via"`
	Status          string `json:"status"`
	Plan            struct {
		Spec struct {
			Attributes map[string]string `json:"attributes"`
		} `json:"spec"`
	} `json:"plan"`
}

// The TypeScript SDK's clients plan "hot frozen cheese" over stdio and
// over /mcp, are asked once (v1 by a server-initiated elicitation/create
// on 2025-11-25, v2 by an input_required result on 2026-07-28), answer
// "hot" and get the plan.
func mcpNpmClientsPlanWithOneElicitation(t *testing.T) {
	dir := requireNPM(t)
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"))
	clients := []struct {
		script, version, via string
	}{
		{"sdk_v1.mjs", "2025-11-25", "elicitation/create"},
		{"client_v2.mjs", "2026-07-28", "input_required"},
	}
	for _, c := range clients {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(strings.TrimSuffix(c.script, ".mjs")+"/"+transport, func(t *testing.T) {
				env := []string{
					"ASKONCE_BIN=" + builtBinary(t),
					"ASKONCE_DB=" + filepath.Join(t.TempDir(), "stdio.db"),
					"ASKONCE_URL=" + in.base + "/mcp",
				}
				out := runNode(t, time.Minute, env, filepath.Join(dir, c.script), transport)
				lines := strings.Split(strings.TrimSpace(out), "\n")
				var got npmRun
				if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
					t.Fatalf("%v in the script's report:\n%s", err, out)
				}
				t.Logf("%s over %s negotiated %s", got.Client, got.Transport, got.ProtocolVersion)
				if got.Transport != transport || got.ProtocolVersion != c.version || got.Via != c.via {
					t.Errorf("transport %s, version %s, asked via %s; want %s, %s, %s", got.Transport, got.ProtocolVersion, got.Via, transport, c.version, c.via)
				}
				if got.Elicitations != 1 || got.Status != "success" || got.Plan.Spec.Attributes["temperature"] != "hot" {
					t.Errorf("elicited %d times, status %s, temperature %q; want 1, success, hot\n%s", got.Elicitations, got.Status, got.Plan.Spec.Attributes["temperature"], out)
				}
			})
		}
	}
}

// conformanceApplicable are the conformance suite's server scenarios that
// apply to askonce; every one must pass. The others are listed, with the
// reason, in mcp/npmtest/conformance-baseline.yml and docs/mcp.md.
var conformanceApplicable = []string{
	"server-initialize",
	"logging-set-level",
	"ping",
	"tools-list",
	"server-sse-multiple-streams",
	"resources-list",
	"prompts-list",
	"dns-rebinding-protection",
}

// askonce serve's /mcp passes every applicable scenario of the official
// MCP conformance suite (@modelcontextprotocol/conformance, server mode).
// The suite exits non-zero when any scenario outside the baseline fails,
// or when a baseline scenario passes.
func mcpConformanceSuite(t *testing.T) {
	dir := requireNPM(t)
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"))
	out := runNode(t, 3*time.Minute, nil, filepath.Join(dir, "conformance.mjs"), "server",
		"--url", in.base+"/mcp", "--expected-failures", filepath.Join(dir, "conformance-baseline.yml"))
	summary := out
	if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
		summary = out[i:]
	} else {
		t.Fatalf("no summary in the suite's output:\n%s", out)
	}
	for _, s := range conformanceApplicable {
		if !strings.Contains(summary, "✓ "+s+":") {
			t.Errorf("scenario %s did not pass", s)
		}
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", summary)
	}
}
