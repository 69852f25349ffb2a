package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce/internal/cli"
)

// serve's steps without a process: parse refuses bad flags before
// anything opens; start listens and opens the store; run serves until its
// context ends and shuts down; close releases what start acquired.
func TestServeParsesStartsRunsAndCloses(t *testing.T) {
	noEnv := func(string) string { return "" }
	t.Run("ParseRefusesFlagsThatDisagreeBeforeOpeningAnything", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "never.db")
		_, err := parseServe([]string{"--db", db, "--builder", "webhook"}, noEnv, &bytes.Buffer{})
		if !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), "--builder webhook needs --webhook-url") {
			t.Fatalf("err = %v, want the usage error", err)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("parse created the database (%v)", err)
		}
	})
	t.Run("RunServesUntilItsContextEndsThenStops", func(t *testing.T) {
		dir := t.TempDir()
		logs, err := os.Create(filepath.Join(dir, "serve.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer logs.Close()
		c, err := parseServe([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "a.db")}, noEnv, logs)
		if err != nil {
			t.Fatal(err)
		}
		sv, err := startServe(t.Context(), c, noEnv, logs)
		if err != nil {
			t.Fatal(err)
		}
		base := listenURL(sv.ln.Addr())
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- sv.run(ctx) }()
		// The listener is open before run: this request waits for Serve.
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /healthz: %s", resp.Status)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run after its context ended: %v", err)
		}
		sv.close()
		if log, err := os.ReadFile(logs.Name()); err != nil || !strings.Contains(string(log), "stopped") {
			t.Fatalf("no stopped line in the log (%v):\n%s", err, log)
		}
		if _, err := http.Get(base + "/healthz"); err == nil {
			t.Fatal("the server still answers after close")
		}
	})
}
