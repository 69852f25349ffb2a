package web_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The browser tests run scripts in browsertest/ with node: playwright-core
// (installed there by .ci/run from the committed package-lock.json) drives
// Debian's chromium against a real server on loopback. Where chromium or
// the npm packages are missing they skip, except under CI=true, where
// that is a failure: CI must run them.

var screenshots = flag.Bool("screenshots", false, "save the browser tests' screenshots to docs/img")

// browserScript runs browsertest/<name>.mjs with BASE_URL=base and env
// (NAME=value), and fails the test with the script's output when the
// script fails.
func browserScript(t *testing.T, base, name string, env ...string) {
	t.Helper()
	requireBrowser(t)
	script, err := filepath.Abs(filepath.Join("browsertest", name+".mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script)
	cmd.Dir = "browsertest"
	cmd.Env = append(os.Environ(), append([]string{"BASE_URL=" + base}, env...)...)
	if *screenshots {
		dir, err := filepath.Abs(filepath.Join("..", "docs", "img"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "SCREENSHOTS="+dir)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		err = <-done
		t.Fatalf("browser script %s ran past 90s:\n%s", name, out.String())
	}
	if err != nil {
		t.Fatalf("browser script %s: %v\n%s", name, err, out.String())
	}
}

func requireBrowser(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		missing = "/usr/bin/chromium (apt-get install chromium)"
	} else if _, err := os.Stat(filepath.Join("browsertest", "node_modules", "playwright-core")); err != nil {
		missing = "playwright-core (npm ci in web/browsertest)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("the browser tests need %s; .ci/run installs it", missing)
	}
	t.Skipf("skipping the browser test: %s is not installed (.ci/run installs it; CI never skips)", missing)
}
