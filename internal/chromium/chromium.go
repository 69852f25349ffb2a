// Package chromium runs the browser scripts of web/browsertest (Node with
// playwright-core driving Debian's /usr/bin/chromium) from Go tests.
package chromium

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Require returns the absolute path of dir, the web/browsertest folder,
// when node, /usr/bin/chromium and dir's playwright-core are there. Under
// -short it skips the test: browsers are slow to start. When
// one is missing it skips the test, except in CI (CI set), where that is
// a failure: .ci/run installs them, and CI never skips the browser tests.
func Require(t testing.TB, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping a browser test (Node and Chromium; go test without -short runs it; CI does)")
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		missing = "/usr/bin/chromium (apt-get install chromium)"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		missing = "playwright-core (npm ci in web/browsertest)"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("the browser tests need %s; .ci/run installs it", missing)
		}
		t.Skipf("skipping the browser test: %s is not installed (.ci/run installs it; CI never skips)", missing)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// Run runs the script dir/name.mjs with the environment's variables and
// env (NAME=value) added, and fails the test with the script's output
// when it fails or runs past 90 seconds.
func Run(t testing.TB, dir, name string, env ...string) {
	t.Helper()
	dir = Require(t, dir)
	cmd := exec.Command("node", filepath.Join(dir, name+".mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("browser script %s ran past 90s:\n%s", name, out.String())
	}
	if err != nil {
		t.Fatalf("browser script %s: %v\n%s", name, err, out.String())
	}
}
