package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// askonce bench called as a function, against a real askonce HTTP API on
// a loopback listener and a real SQLite file: no process. cmd/askonce's
// tests run it through the binary against askonce serve.

func startServer(t *testing.T) string {
	t.Helper()
	st, err := sqlite.Options{}.Open(t.Context(), filepath.Join(t.TempDir(), "bench.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	interp, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api := server.New(server.Config{Engine: &askonce.Engine{Store: st, Interpreter: interp}})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	t.Cleanup(api.CloseStreams)
	return srv.URL
}

func bench(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errs bytes.Buffer
	err := Run(t.Context(), args, func(string) string { return "" }, &out, &errs)
	return out.String(), err
}

func TestRun(t *testing.T) {
	base := startServer(t)
	t.Run("JSONCountsEveryRoundTripOfBothEndpoints", func(t *testing.T) {
		out, err := bench(t, "--server", base, "--clients", "2", "--requests", "6", "--duration", "30s", "--ask-percent", "100", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var rep benchReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("output is not one JSON document: %v\n%s", err, out)
		}
		if rep.Server != base || rep.RoundTrips != 6 || rep.Asked != 6 || rep.RoundTripsPerSecond <= 0 {
			t.Fatalf("report %+v, want 6 round trips that asked against %s", rep, base)
		}
		counts := map[string]int{}
		for _, e := range rep.Endpoints {
			if e.Errors != 0 {
				t.Errorf("endpoint %+v: want no errors", e)
			}
			counts[e.Endpoint] = e.Count
		}
		if counts["POST /jobs"] != 6 || counts["POST /jobs/{id}/clarification"] != 6 {
			t.Fatalf("endpoint counts %v, want 6 creates and 6 answers", counts)
		}
	})
	t.Run("TextNamesTheAskedJobs", func(t *testing.T) {
		out, err := bench(t, "--server", base, "--clients", "1", "--requests", "4", "--ask-percent", "100")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "jobs that asked: 4 of 4 whose goal needs a question") {
			t.Fatalf("output lacks the asked line:\n%s", out)
		}
	})
	t.Run("ATargetBeyondLoopbackIsAUsageError", func(t *testing.T) {
		_, err := bench(t, "--server", "http://192.0.2.1:8080")
		if !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), "only targets loopback addresses") {
			t.Fatalf("err = %v, want a usage error about loopback", err)
		}
	})
	t.Run("BadFlagValuesAreUsageErrors", func(t *testing.T) {
		_, err := bench(t, "--server", base, "--clients", "0")
		if !errors.As(err, new(cli.UsageError)) || !strings.Contains(err.Error(), "--clients must be between 1 and 1024") {
			t.Fatalf("err = %v", err)
		}
	})
}
