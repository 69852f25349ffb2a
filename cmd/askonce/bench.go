package main

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
)

type benchConfig struct {
	Server      string
	Clients     int
	Requests    int
	Duration    time.Duration
	AskFraction int
	APIKey      string
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
to loopback addresses.`

func bench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c := &benchConfig{}
	s := newSettings("bench", benchSummary, getenv, stderr)
	s.String(&c.Server, "server", "http://127.0.0.1:8080", "base URL of the server (loopback only); several, comma-separated, spread the clients over replicas")
	s.Int(&c.Clients, "clients", 16, "concurrent clients")
	s.Int(&c.Requests, "requests", 20000, "round trips in all (at most 1,000,000)")
	s.Duration(&c.Duration, "duration", 30*time.Second, "stop after this long (at most 10m)")
	s.Int(&c.AskFraction, "ask-percent", 50, "percent of round trips whose goal needs a question")
	s.String(&c.APIKey, "api-key", "", "API key, when the server requires one")
	if err := s.parse(args); err != nil {
		return err
	}
	switch {
	case c.Clients < 1 || c.Clients > 1024:
		return usageError{"--clients must be between 1 and 1024"}
	case c.Requests < 1 || c.Requests > 1_000_000:
		return usageError{"--requests must be between 1 and 1,000,000"}
	case c.Duration <= 0 || c.Duration > 10*time.Minute:
		return usageError{"--duration must be positive and at most 10m"}
	case c.AskFraction < 0 || c.AskFraction > 100:
		return usageError{"--ask-percent must be between 0 and 100"}
	}
	var bases []*url.URL
	for _, raw := range strings.Split(c.Server, ",") {
		base, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || base.Host == "" {
			return usageError{fmt.Sprintf("--server %q is not a URL", raw)}
		}
		if err := checkLoopback(ctx, base.Hostname()); err != nil {
			return err
		}
		bases = append(bases, base)
	}
	r, err := runBench(ctx, c, bases)
	if err != nil {
		return err
	}
	r.print(stdout, c)
	return nil
}

// checkLoopback refuses any target that is not this machine.
func checkLoopback(ctx context.Context, host string) error {
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return usageError{fmt.Sprintf("bench only targets loopback addresses; %s is %s", host, ip.IP)}
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

func runBench(ctx context.Context, c *benchConfig, bases []*url.URL) (*benchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: c.Clients, MaxConnsPerHost: c.Clients}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	r := &benchResult{latencies: map[string][]time.Duration{}, errors: map[string]int{}, sessions: "bench-" + rand.Text()[:12]}
	var next atomic.Int64
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
				if roundTrip(ctx, client, base, c.APIKey, ask, fmt.Sprintf("%s-%d-%d", r.sessions, w, i), r) {
					r.trips.Add(1)
				}
			}
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r, nil
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

func (r *benchResult) print(w io.Writer, c *benchConfig) {
	secs := r.elapsed.Seconds()
	fmt.Fprintf(w, "clients %d, ask %d%%, elapsed %.2fs\n", c.Clients, c.AskFraction, secs)
	fmt.Fprintf(w, "round trips ending in success: %d (%.0f/s)\n", r.trips.Load(), float64(r.trips.Load())/secs)
	fmt.Fprintf(w, "jobs that asked: %d of %d whose goal needs a question (sessions %s-*)\n", r.asked.Load(), r.askGoals.Load(), r.sessions)
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
	fmt.Fprintf(w, "%-32s %8s %9s %8s %8s %8s %7s\n", "endpoint", "count", "req/s", "p50", "p95", "p99", "errors")
	for _, n := range names {
		l := r.latencies[n]
		slices.Sort(l)
		fmt.Fprintf(w, "%-32s %8d %9.0f %8s %8s %8s %7d\n", n, len(l), float64(len(l))/secs,
			pct(l, 50), pct(l, 95), pct(l, 99), r.errors[n])
	}
}

func pct(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := (len(sorted)*p + 99) / 100
	if i > 0 {
		i--
	}
	return sorted[i].Round(10 * time.Microsecond).String()
}
