// Package bench is askonce bench: load on a running server (loopback
// only), its throughput and latency, and the ratio between two servers
// measured in interleaved rounds.
package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askonce/askonce/internal/cli"
)

// Options is everything askonce bench can be told.
type Options struct {
	Server      string
	Clients     int
	Requests    int
	Duration    time.Duration
	AskFraction int
	APIKey      string
	Compare     string // servers to run the same load against, in turn
	Rounds      int    // with Compare: rounds of one run on each side
	JSON        bool
}

const benchSummary = `Drives a running askonce server with C concurrent clients, each running
round trips: POST /jobs with a goal that needs a question ("hot frozen
cheese", then POST /jobs/{id}/clarification) or one that does not. It stops
after --requests round trips or --duration, whichever comes first, and
prints throughput and p50/p95/p99 latency per endpoint. Every run uses
session ids of its own (a random prefix), so that a second run against the
same database asks again instead of meeting the repeat guard's answers of
the first. --server may list several servers (replicas on one database),
comma-separated: the clients are spread over them in turn. It only talks
to loopback addresses.

With --compare URL it runs the same load against a second server (or
comma-separated replicas) too, in interleaved rounds (--server, then
--compare, --rounds times; each run gets its share of --requests and
--duration), and prints each side's figures and the ratio of their round
trips per second round by round, with the median: on a machine whose
speed drifts, only a ratio measured in the same minutes compares two
servers. --json prints the same as one JSON document.`

// Run is askonce bench: it reads the flags, drives the servers they name
// and prints the figures.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c := &Options{}
	s := cli.NewSettings("bench", benchSummary, getenv, stderr)
	s.String(&c.Server, "server", "http://127.0.0.1:8080", "base URL of the server (loopback only); several, comma-separated, spread the clients over replicas")
	s.Int(&c.Clients, "clients", 16, "concurrent clients")
	s.Int(&c.Requests, "requests", 20000, "round trips in all (at most 1,000,000)")
	s.Duration(&c.Duration, "duration", 30*time.Second, "stop after this long (at most 10m)")
	s.Int(&c.AskFraction, "ask-percent", 50, "percent of round trips whose goal needs a question")
	s.String(&c.APIKey, "api-key", "", "API key, when the server requires one")
	s.String(&c.Compare, "compare", "", "a second server (or replicas, comma-separated) to run the same load against in interleaved rounds, for the ratio")
	s.Int(&c.Rounds, "rounds", 4, "with --compare: rounds, each one run on --server and one on --compare (1 to 100)")
	s.Bool(&c.JSON, "json", false, "print the figures as one JSON document")
	if err := s.Parse(args); err != nil {
		return err
	}
	switch {
	case c.Clients < 1 || c.Clients > 1024:
		return cli.UsageError{Msg: "--clients must be between 1 and 1024"}
	case c.Requests < 1 || c.Requests > 1_000_000:
		return cli.UsageError{Msg: "--requests must be between 1 and 1,000,000"}
	case c.Duration <= 0 || c.Duration > 10*time.Minute:
		return cli.UsageError{Msg: "--duration must be positive and at most 10m"}
	case c.AskFraction < 0 || c.AskFraction > 100:
		return cli.UsageError{Msg: "--ask-percent must be between 0 and 100"}
	case c.Rounds < 1 || c.Rounds > 100:
		return cli.UsageError{Msg: "--rounds must be between 1 and 100"}
	case c.Compare != "" && c.Requests < 2*c.Rounds:
		return cli.UsageError{Msg: fmt.Sprintf("--requests %d cannot give each of the 2 × %d runs of --compare a round trip", c.Requests, c.Rounds)}
	}
	bases, err := benchTargets(ctx, "server", c.Server)
	if err != nil {
		return err
	}
	prefix := "bench-" + rand.Text()[:12]
	if c.Compare == "" {
		r := runBench(ctx, c, bases, prefix)
		if c.JSON {
			return writeJSON(stdout, r.report(c, c.Server))
		}
		r.print(stdout, c)
		return nil
	}
	others, err := benchTargets(ctx, "compare", c.Compare)
	if err != nil {
		return err
	}
	cmp := compareBench(ctx, c, bases, others, prefix)
	if c.JSON {
		return writeJSON(stdout, cmp)
	}
	cmp.print(stdout)
	return nil
}

// benchTargets parses a comma-separated list of loopback base URLs.
func benchTargets(ctx context.Context, flagName, list string) ([]*url.URL, error) {
	var bases []*url.URL
	for _, raw := range strings.Split(list, ",") {
		base, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || base.Host == "" || (base.Scheme != "http" && base.Scheme != "https") {
			return nil, cli.UsageError{Msg: fmt.Sprintf("--%s %q is not an http(s) URL", flagName, raw)}
		}
		if err := checkLoopback(ctx, base.Hostname()); err != nil {
			return nil, err
		}
		bases = append(bases, base)
	}
	return bases, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// checkLoopback refuses any target that is not this machine.
func checkLoopback(ctx context.Context, host string) error {
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return cli.UsageError{Msg: fmt.Sprintf("bench only targets loopback addresses; %s is %s", host, ip.IP)}
		}
	}
	return nil
}

type benchResult struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	errors    map[string]int
	trips     atomic.Int64
	// askGoals counts created jobs whose goal needs a question; asked,
	// those that went pending. A job that needs a question and does not
	// ask was answered for it (the repeat guard, the resolver).
	askGoals, asked atomic.Int64
	sessions        string // the run's session id prefix
	elapsed         time.Duration
}

func (r *benchResult) record(endpoint string, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errors[endpoint]++
		return
	}
	r.latencies[endpoint] = append(r.latencies[endpoint], d)
}

func newBenchResult(sessions string) *benchResult {
	return &benchResult{latencies: map[string][]time.Duration{}, errors: map[string]int{}, sessions: sessions}
}

// runBench runs c's load against bases, with session ids that start
// with prefix.
func runBench(ctx context.Context, c *Options, bases []*url.URL, prefix string) *benchResult {
	r := newBenchResult(prefix)
	r.run(ctx, c, bases, prefix)
	return r
}

// run runs c's load against bases into r, with session ids that start
// with prefix, and returns the round trips that ended in success and how
// long it took.
func (r *benchResult) run(ctx context.Context, c *Options, bases []*url.URL, prefix string) (int64, time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: c.Clients, MaxConnsPerHost: c.Clients}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	var next, trips atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range c.Clients {
		base := bases[w%len(bases)]
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1)
				if i > int64(c.Requests) {
					return
				}
				ask := int(i%100) < c.AskFraction
				if roundTrip(ctx, client, base, c.APIKey, ask, fmt.Sprintf("%s-%d-%d", prefix, w, i), r) {
					trips.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	r.trips.Add(trips.Load())
	r.elapsed += elapsed
	return trips.Load(), elapsed
}

// roundTrip creates a job and, when it asks, answers it. It reports
// whether the round trip ended in success.
func roundTrip(ctx context.Context, client *http.Client, base *url.URL, key string, ask bool, session string, r *benchResult) bool {
	goal := "write the README then add tests"
	if ask {
		goal = "hot frozen cheese"
	}
	var job struct {
		JobID  string `json:"jobId"`
		Status string `json:"status"`
	}
	if err := post(ctx, client, base.JoinPath("jobs"), key, map[string]string{"goal": goal, "sessionId": session}, http.StatusCreated, &job, "POST /jobs", r); err != nil {
		return false
	}
	if ask {
		r.askGoals.Add(1)
	}
	if job.Status != "pending" {
		return job.Status == "success"
	}
	r.asked.Add(1)
	err := post(ctx, client, base.JoinPath("jobs", job.JobID, "clarification"), key, map[string]string{"answer": "hot"}, http.StatusOK, &job, "POST /jobs/{id}/clarification", r)
	return err == nil && job.Status == "success"
}

func post(ctx context.Context, client *http.Client, u *url.URL, key string, body any, want int, out any, endpoint string, r *benchResult) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	t0 := time.Now()
	resp, err := client.Do(req)
	if err == nil {
		defer resp.Body.Close()
		var data []byte
		data, err = io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != want {
			err = fmt.Errorf("%s: HTTP %d: %s", endpoint, resp.StatusCode, data)
		}
		if err == nil {
			err = json.Unmarshal(data, out)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err() // the run ended; not the server's fault
	}
	r.record(endpoint, time.Since(t0), err)
	return err
}

// benchReport is what one side of a bench measured; --json prints it.
type benchReport struct {
	Server              string           `json:"server"`
	Clients             int              `json:"clients"`
	AskPercent          int              `json:"askPercent"`
	ElapsedSeconds      float64          `json:"elapsedSeconds"`
	RoundTrips          int64            `json:"roundTrips"` // ending in success
	RoundTripsPerSecond float64          `json:"roundTripsPerSecond"`
	Asked               int64            `json:"asked"`
	AskGoals            int64            `json:"askGoals"`
	Sessions            string           `json:"sessions"` // the prefix of every session id
	Endpoints           []endpointReport `json:"endpoints"`
}

type endpointReport struct {
	Endpoint  string  `json:"endpoint"`
	Count     int     `json:"count"`
	PerSecond float64 `json:"perSecond"`
	P50Ms     float64 `json:"p50Ms"`
	P95Ms     float64 `json:"p95Ms"`
	P99Ms     float64 `json:"p99Ms"`
	Errors    int     `json:"errors"`
}

func (r *benchResult) report(c *Options, server string) *benchReport {
	secs := r.elapsed.Seconds()
	rep := &benchReport{Server: server, Clients: c.Clients, AskPercent: c.AskFraction, ElapsedSeconds: secs,
		RoundTrips: r.trips.Load(), RoundTripsPerSecond: perSecond(r.trips.Load(), secs),
		Asked: r.asked.Load(), AskGoals: r.askGoals.Load(), Sessions: r.sessions, Endpoints: []endpointReport{}}
	names := make([]string, 0, len(r.latencies))
	for n := range r.latencies {
		names = append(names, n)
	}
	for n := range r.errors {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		l := r.latencies[n]
		slices.Sort(l)
		rep.Endpoints = append(rep.Endpoints, endpointReport{Endpoint: n, Count: len(l), PerSecond: perSecond(int64(len(l)), secs),
			P50Ms: ms(pct(l, 50)), P95Ms: ms(pct(l, 95)), P99Ms: ms(pct(l, 99)), Errors: r.errors[n]})
	}
	return rep
}

func perSecond(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

func ms(d time.Duration) float64 {
	return float64(d.Round(10*time.Microsecond)) / float64(time.Millisecond)
}

func (r *benchResult) print(w io.Writer, c *Options) { r.report(c, c.Server).print(w) }

func (rep *benchReport) print(w io.Writer) {
	fmt.Fprintf(w, "clients %d, ask %d%%, elapsed %.2fs\n", rep.Clients, rep.AskPercent, rep.ElapsedSeconds)
	fmt.Fprintf(w, "round trips ending in success: %d (%.0f/s)\n", rep.RoundTrips, rep.RoundTripsPerSecond)
	fmt.Fprintf(w, "jobs that asked: %d of %d whose goal needs a question (sessions %s-*)\n", rep.Asked, rep.AskGoals, rep.Sessions)
	fmt.Fprintf(w, "%-32s %8s %9s %8s %8s %8s %7s\n", "endpoint", "count", "req/s", "p50", "p95", "p99", "errors")
	for _, e := range rep.Endpoints {
		fmt.Fprintf(w, "%-32s %8d %9.0f %8s %8s %8s %7d\n", e.Endpoint, e.Count, e.PerSecond,
			msString(e, e.P50Ms), msString(e, e.P95Ms), msString(e, e.P99Ms), e.Errors)
	}
}

// msString prints a latency as a duration, "-" for an endpoint with no
// successful request.
func msString(e endpointReport, v float64) string {
	if e.Count == 0 {
		return "-"
	}
	return time.Duration(v * float64(time.Millisecond)).Round(10 * time.Microsecond).String()
}

// pct returns the p-th percentile of sorted, zero when it is empty.
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	if i > 0 {
		i--
	}
	return sorted[i]
}
