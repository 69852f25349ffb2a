package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The start-up log names the address as --addr gave it: a server started
// with ASKONCE_ADDR=0.0.0.0:PORT (as the container image is) says
// addr=0.0.0.0:PORT, not the [::]:PORT Go reports for that listener.
func TestServeLogsTheAddressAsConfigured(t *testing.T) {
	dir := t.TempDir()
	logs, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	env := func(name string) string {
		if name == "ASKONCE_ADDR" {
			return "0.0.0.0:0"
		}
		return ""
	}
	c, err := parseServe([]string{"--db", filepath.Join(dir, "a.db")}, env, logs)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := startServe(t.Context(), c, env, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.close()
	log, err := os.ReadFile(logs.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`msg="askonce serving" addr=0\.0\.0\.0:[1-9][0-9]* `).Match(log) {
		t.Errorf("the serving line does not name addr=0.0.0.0:PORT:\n%s", log)
	}
}
