package main_test

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchRun runs the built askonce bench against base and returns its
// output.
func benchRun(t *testing.T, base string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, builtBinary(t), append([]string{"bench", "--server", base}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("askonce bench: %v\n%s", err, out)
	}
	return string(out)
}

var askedLine = regexp.MustCompile(`jobs that asked: (\d+) of (\d+) whose goal needs a question \(sessions (\S+)-\*\)`)

// TestBench: askonce bench against askonce serve: sessions of its own per
// run, --json, and --compare's interleaved rounds.
func TestBench(t *testing.T) {
	t.Parallel()
	t.Run("RunsOnOneDatabaseEachAsk", benchRunsOnOneDatabaseEachAsk)
	t.Run("JSONReportsTheRun", benchJSONReportsTheRun)
	t.Run("CompareRunsBothServersAndPrintsTheRatio", benchCompareRunsBothServersAndPrintsTheRatio)
	t.Run("ComparePrintsRoundsAndMedian", benchComparePrintsRoundsAndMedian)
	t.Run("CompareRefusesBadTargets", benchCompareRefusesBadTargets)
}

// Two bench runs against one database both ask every question: each run
// has session ids of its own, so the second does not meet the repeat
// guard's answers of the first (no job answered from history).
func benchRunsOnOneDatabaseEachAsk(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "bench.db"))
	const trips = 12
	var prefixes []string
	for run := 1; run <= 2; run++ {
		out := benchRun(t, in.base, "--clients", "2", "--requests", strconv.Itoa(trips), "--duration", "30s", "--ask-percent", "100")
		m := askedLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("run %d: no asked line in the output:\n%s", run, out)
		}
		if m[1] != strconv.Itoa(trips) || m[2] != strconv.Itoa(trips) {
			t.Fatalf("run %d: %s of %s jobs asked, want all %d:\n%s", run, m[1], m[2], trips, out)
		}
		prefixes = append(prefixes, m[3])
	}
	if prefixes[0] == prefixes[1] {
		t.Fatalf("both runs used the session prefix %s", prefixes[0])
	}

	// The stored jobs: every one answered by a user, none from history.
	page := in.do("GET", "/jobs?limit=500", nil)
	jobs, _ := page.body["jobs"].([]any)
	if page.status != 200 || len(jobs) != 2*trips {
		t.Fatalf("list: %d, %d jobs, want %d: %s", page.status, len(jobs), 2*trips, page.raw)
	}
	sessions := map[string]bool{}
	for _, j := range jobs {
		job, _ := j.(map[string]any)
		if str(job, "status") != "success" || str(job, "clarificationSource") != "user" {
			t.Errorf("job %s: status %s source %q; want success answered by the user",
				str(job, "jobId"), str(job, "status"), str(job, "clarificationSource"))
		}
		sessions[str(job, "sessionId")] = true
	}
	if len(sessions) != 2*trips {
		t.Errorf("%d distinct sessions for %d jobs", len(sessions), 2*trips)
	}
}

// benchJSON is the part of `askonce bench --json` the tests read.
type benchJSON struct {
	Server     string  `json:"server"`
	RoundTrips int64   `json:"roundTrips"`
	PerSecond  float64 `json:"roundTripsPerSecond"`
	Asked      int64   `json:"asked"`
	Sessions   string  `json:"sessions"`
	Endpoints  []struct {
		Endpoint string  `json:"endpoint"`
		Count    int     `json:"count"`
		P99Ms    float64 `json:"p99Ms"`
		Errors   int     `json:"errors"`
	} `json:"endpoints"`
}

// --json prints the run's figures as one JSON document: every round trip
// counted, both endpoints with their latencies.
func benchJSONReportsTheRun(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "bench.db"))
	out := benchRun(t, in.base, "--clients", "2", "--requests", "6", "--duration", "30s", "--ask-percent", "100", "--json")
	var rep benchJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not one JSON document: %v\n%s", err, out)
	}
	if rep.Server != in.base || rep.RoundTrips != 6 || rep.Asked != 6 || rep.PerSecond <= 0 {
		t.Fatalf("report %+v, want 6 round trips that asked against %s", rep, in.base)
	}
	counts := map[string]int{}
	for _, e := range rep.Endpoints {
		if e.Errors != 0 || e.P99Ms <= 0 {
			t.Errorf("endpoint %+v: want no errors and a latency", e)
		}
		counts[e.Endpoint] = e.Count
	}
	if counts["POST /jobs"] != 6 || counts["POST /jobs/{id}/clarification"] != 6 {
		t.Fatalf("endpoint counts %v, want 6 creates and 6 answers", counts)
	}
}

// --compare runs the same load against a second server in interleaved
// rounds: each server gets its share of the round trips, and the ratio
// of each round is the first server's rate over the second's.
func benchCompareRunsBothServersAndPrintsTheRatio(t *testing.T) {
	t.Parallel()
	a := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	b := start(t, nil, "--db", filepath.Join(t.TempDir(), "b.db"))
	const rounds, perRun = 3, 4
	out := benchRun(t, a.base, "--compare", b.base, "--rounds", strconv.Itoa(rounds), "--clients", "2",
		"--requests", strconv.Itoa(2*rounds*perRun), "--duration", "60s", "--ask-percent", "100", "--json")
	var cmp struct {
		Server  benchJSON `json:"server"`
		Compare benchJSON `json:"compare"`
		Rounds  []struct {
			Server, Compare float64
			Ratio           *float64
		} `json:"rounds"`
		Ratio *struct{ Median, Min, Max float64 } `json:"ratio"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatalf("output is not one JSON document: %v\n%s", err, out)
	}
	for _, side := range []struct {
		rep benchJSON
		in  *instance
	}{{cmp.Server, a}, {cmp.Compare, b}} {
		if side.rep.Server != side.in.base || side.rep.RoundTrips != rounds*perRun || side.rep.Asked != rounds*perRun {
			t.Errorf("side %+v: want %d round trips that asked against %s", side.rep, rounds*perRun, side.in.base)
		}
		// The server itself holds exactly its share, each in a session of its own.
		page := side.in.do("GET", "/jobs?limit=500", nil)
		jobs, _ := page.body["jobs"].([]any)
		sessions := map[string]bool{}
		for _, j := range jobs {
			job, _ := j.(map[string]any)
			if str(job, "status") != "success" {
				t.Errorf("%s: job %s is %s", side.in.base, str(job, "jobId"), str(job, "status"))
			}
			sessions[str(job, "sessionId")] = true
		}
		if len(jobs) != rounds*perRun || len(sessions) != rounds*perRun {
			t.Errorf("%s holds %d jobs in %d sessions, want %d in as many", side.in.base, len(jobs), len(sessions), rounds*perRun)
		}
	}
	if cmp.Server.Sessions == cmp.Compare.Sessions {
		t.Errorf("both sides used the session prefix %s", cmp.Server.Sessions)
	}
	if len(cmp.Rounds) != rounds {
		t.Fatalf("%d rounds, want %d:\n%s", len(cmp.Rounds), rounds, out)
	}
	var ratios []float64
	for i, r := range cmp.Rounds {
		if r.Ratio == nil || r.Server <= 0 || r.Compare <= 0 || math.Abs(*r.Ratio-r.Server/r.Compare) > 1e-9**r.Ratio {
			t.Fatalf("round %d: %+v, want both rates and their ratio", i+1, r)
		}
		ratios = append(ratios, *r.Ratio)
	}
	slices.Sort(ratios)
	if cmp.Ratio == nil || cmp.Ratio.Median != ratios[1] || cmp.Ratio.Min != ratios[0] || cmp.Ratio.Max != ratios[2] {
		t.Fatalf("ratio %+v, want the median, min and max of %v", cmp.Ratio, ratios)
	}
}

// The text output of --compare ends with the rounds and the median ratio.
func benchComparePrintsRoundsAndMedian(t *testing.T) {
	t.Parallel()
	a := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	b := start(t, nil, "--db", filepath.Join(t.TempDir(), "b.db"))
	out := benchRun(t, a.base, "--compare", b.base, "--rounds", "2", "--clients", "1", "--requests", "4", "--duration", "60s")
	for _, want := range []string{"server: " + a.base, "compare: " + b.base, "ratio server/compare (round trips/s), median of 2 rounds: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Bad --compare values are refused before any load is sent.
func benchCompareRefusesBadTargets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "not a url"}, "is not an http(s) URL"},
		{[]string{"--compare", "http://192.0.2.1:8080"}, "only targets loopback"},
		{[]string{"--compare", "http://127.0.0.1:1", "--rounds", "0"}, "--rounds must be between 1 and 100"},
		{[]string{"--compare", "http://127.0.0.1:1", "--rounds", "5", "--requests", "9"}, "cannot give each"},
	} {
		out, err := exec.Command(builtBinary(t), append([]string{"bench", "--server", "http://127.0.0.1:1"}, tc.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("bench %v: %v, output %q; want an error with %q", tc.args, err, out, tc.want)
		}
	}
}
