package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/webhook"
)

// Several askonce serve processes on one database are replicas behind a
// load balancer: a request may land on any of them, and together they
// keep the guarantees one process gives.

// sharedDB is a database two replicas can share.
type sharedDB struct {
	name string
	db   func(t *testing.T) string // a new, empty database
}

// sharedDBs are the databases the replica tests run on: a SQLite file
// (processes on one machine) and, where the tests have one, PostgreSQL.
var sharedDBs = []sharedDB{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "shared.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }},
}

// replicas runs test once per shared database, each time with two
// replicas on it started with args (and --db).
func replicas(t *testing.T, env []string, args []string, test func(t *testing.T, a, b *instance)) {
	for _, d := range sharedDBs {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			db := d.db(t)
			a := start(t, env, append([]string{"--db", db}, args...)...)
			b := start(t, env, append([]string{"--db", db}, args...)...)
			test(t, a, b)
		})
	}
}

// Rule 2 across replicas: 50 answers to one question, sent at once and
// split across both replicas, have exactly one winner; the others are
// conflicts.
func TestRule2_ConcurrentAnswersAcrossReplicasHaveOneWinner(t *testing.T) {
	t.Parallel()
	replicas(t, nil, nil, func(t *testing.T, a, b *instance) {
		r := a.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
		id := str(r.body, "jobId")
		if r.status != http.StatusCreated || str(r.body, "status") != "pending" {
			t.Fatalf("create: %d %s", r.status, r.raw)
		}
		const answers = 50
		statuses := make([]int, answers)
		var wg sync.WaitGroup
		begin := make(chan struct{})
		for i := range answers {
			in := []*instance{a, b}[i%2]
			wg.Go(func() {
				<-begin
				statuses[i] = in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": []string{"hot", "frozen"}[i%2]}).status
			})
		}
		close(begin)
		wg.Wait()
		won := 0
		for i, s := range statuses {
			switch s {
			case http.StatusOK:
				won++
			case http.StatusConflict:
			default:
				t.Errorf("answer %d: status %d, want 200 or 409", i, s)
			}
		}
		if won != 1 {
			t.Fatalf("%d answers won, want exactly one: %v", won, statuses)
		}
		for _, in := range []*instance{a, b} {
			j := in.do("GET", "/jobs/"+id, nil)
			if str(j.body, "status") != "success" || count(eventTypes(in, id), "answered") != 1 {
				t.Errorf("%s reads %s with events %v; want success with one answered event", in.base, j.raw, eventTypes(in, id))
			}
		}
	})
}

// TestReplicas: replicas of askonce serve sharing one PostgreSQL database.
func TestReplicas(t *testing.T) {
	t.Parallel()
	t.Run("StreamOnOneReplicaSeesAnAnswerMadeOnTheOther", replicasStreamOnOneReplicaSeesAnAnswerMadeOnTheOther)
	t.Run("AnswerLinkAskedOnOneReplicaWorksOnTheOther", replicasAnswerLinkAskedOnOneReplicaWorksOnTheOther)
	t.Run("BenchSpreadsClientsOverReplicas", replicasBenchSpreadsClientsOverReplicas)
	t.Run("PostgresOutageIs503AndLosesNoAcknowledgedJob", replicasPostgresOutageIs503AndLosesNoAcknowledgedJob)
}

// An event stream on replica B sees the answer made on replica A, and
// ends with the job.
func replicasStreamOnOneReplicaSeesAnAnswerMadeOnTheOther(t *testing.T) {
	t.Parallel()
	replicas(t, nil, nil, func(t *testing.T, a, b *instance) {
		r := a.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
		id := str(r.body, "jobId")
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		events := b.stream(ctx, id)
		if got := next(t, events); got != "created" {
			t.Fatalf("first event on B: %s, want created", got)
		}
		for next(t, events) != "asked" {
		}
		if r := a.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}); r.status != http.StatusOK {
			t.Fatalf("answer on A: %d %s", r.status, r.raw)
		}
		var rest []string
		for ev := range events {
			rest = append(rest, ev)
		}
		answered, planned := slices.Index(rest, "answered"), slices.Index(rest, "planned")
		if answered < 0 || planned < answered {
			t.Fatalf("events on B after the answer on A: %v; want answered, then planned, then the end", rest)
		}
	})
}

// The answer link of a question asked on replica A works on replica B:
// the page shows the question, and the answer given there settles the
// job on both.
func replicasAnswerLinkAskedOnOneReplicaWorksOnTheOther(t *testing.T) {
	t.Parallel()
	replicas(t, nil, nil, func(t *testing.T, a, b *instance) {
		r := a.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
		id, link := str(r.body, "jobId"), str(r.body, "answerUrl")
		path, ok := strings.CutPrefix(link, a.base)
		if !ok {
			t.Fatalf("answerUrl %q is not under A's %s", link, a.base)
		}
		page := b.get(t, path)
		if page.status != http.StatusOK || !strings.Contains(page.body, "hot") || !strings.Contains(page.body, "frozen") {
			t.Fatalf("GET %s on B: %d\n%.2000s", path, page.status, page.body)
		}
		resp, err := http.PostForm(b.base+path, map[string][]string{"answer": {"frozen"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			t.Fatalf("answer through the link on B: %d", resp.StatusCode)
		}
		eventually(t, "the job answered through B to succeed on A", func() bool {
			j := a.do("GET", "/jobs/"+id, nil)
			return str(j.body, "status") == "success" && str(j.body, "clarificationAnswer") == "frozen"
		})
	})
}

// Replica A is killed while it plans jobs with a slow interpreter and a
// webhook builder: replica B takes A's planning jobs over once their
// lease lapsed and finishes them. Every job either replica acknowledged
// is there and settles, each is dispatched once, and no webhook-id is
// delivered twice with different payloads.
func TestRule13_KilledReplicasPlanningJobsAreFinishedByTheOther(t *testing.T) {
	t.Parallel()
	rcv := newRecorder(t)
	env := append(slowPlugin(t, "1"), "ASKONCE_WEBHOOK_SECRET="+rcv.secret)
	args := []string{"--interpreter", "exec", "--builder", "webhook", "--webhook-url", rcv.srv.URL,
		"--planning-lease", "2s", "--builder-timeout", "5s"}
	replicas(t, env, args, func(t *testing.T, a, b *instance) {
		const perReplica = 4
		var ids, fromA []string
		for i := range 2 * perReplica {
			in := []*instance{a, b}[i%2]
			r := in.do("POST", "/jobs", map[string]any{"goal": fmt.Sprintf("Write report %d then ship it", i)}, "Prefer", "respond-async")
			if r.status != http.StatusAccepted {
				t.Fatalf("create %d: %d %s", i, r.status, r.raw)
			}
			ids = append(ids, str(r.body, "jobId"))
			if in == a {
				fromA = append(fromA, str(r.body, "jobId"))
			}
		}
		// Every plug-in call takes a second: A dies with all its jobs
		// in planning.
		a.stop(syscall.SIGKILL)
		killed := time.Now()

		within(t, 60*time.Second, "every acknowledged job to succeed on B", func() bool {
			for _, id := range ids {
				if st := b.status(id); st != "success" {
					return false
				}
			}
			return true
		})
		t.Logf("B finished A's jobs %s after the kill (lease 2s)", time.Since(killed).Round(time.Millisecond))
		recovered := 0
		for _, id := range ids {
			evs := eventTypes(b, id)
			if n := count(evs, "dispatched"); n != 1 {
				t.Errorf("job %s: %d dispatched events, want 1: %v", id, n, evs)
			}
			recovered += count(evs, "recovered")
		}
		for _, id := range fromA {
			at, n := recoveredAt(b, id)
			if n != 1 {
				t.Errorf("A's job %s: %d recovered events, want one", id, n)
				continue
			}
			// Taken over because the lease lapsed: within a few leases
			// of the kill, not at some restart (the default lease is
			// 30s).
			if late := at.Sub(killed); late > 5*2*time.Second {
				t.Errorf("A's job %s was taken over %s after the kill; the lease is 2s", id, late)
			}
		}
		if recovered != len(fromA) {
			t.Errorf("%d recovered events, want one per job of A (%d)", recovered, len(fromA))
		}
		within(t, 60*time.Second, "a delivery of every job", func() bool { return rcv.delivered(ids) })
		for id, bodies := range rcv.all() {
			for _, body := range bodies[1:] {
				if !bytes.Equal(body, bodies[0]) {
					t.Errorf("webhook-id %s delivered twice with different payloads:\n%s\n%s", id, bodies[0], body)
				}
			}
		}
		if n := rcv.badSigs(); n != 0 {
			t.Errorf("%d deliveries with a bad signature", n)
		}
	})
}

// recorder is a webhook builder endpoint that acknowledges every signed
// delivery and keeps every payload per webhook-id.
type recorder struct {
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	bodies map[string][][]byte
	bad    int
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{secret: "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHMtb25seQ==", bodies: map[string][][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := webhook.Verify(r.secret, req.Header, body, 5*time.Minute); err != nil {
			r.bad++
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		id := req.Header.Get("webhook-id")
		r.bodies[id] = append(r.bodies[id], body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// delivered reports whether every job was delivered at least once.
func (r *recorder) delivered(ids []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if len(r.bodies[id]) == 0 {
			return false
		}
	}
	return true
}

func (r *recorder) all() map[string][][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][][]byte{}
	for id, b := range r.bodies {
		out[id] = slices.Clone(b)
	}
	return out
}

func (r *recorder) badSigs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bad
}

// recoveredAt returns the time of the job's recovered event, and how many
// it has.
func recoveredAt(in *instance, id string) (time.Time, int) {
	r := in.do("GET", "/jobs/"+id+"/events", nil)
	evs, _ := r.body["events"].([]any)
	var at time.Time
	n := 0
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok && str(m, "type") == "recovered" {
			at, _ = time.Parse(time.RFC3339Nano, str(m, "at"))
			n++
		}
	}
	return at, n
}

// eventTypes returns the types of the job's events, in order.
func eventTypes(in *instance, id string) []string {
	r := in.do("GET", "/jobs/"+id+"/events", nil)
	evs, _ := r.body["events"].([]any)
	var out []string
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok {
			out = append(out, str(m, "type"))
		}
	}
	return out
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

type page struct {
	status int
	body   string
}

// get fetches a page (HTML) of the instance.
func (in *instance) get(t *testing.T, path string) page {
	t.Helper()
	resp, err := http.Get(in.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, string(b)}
}

// stream opens the job's event stream and returns its event types, in
// order; the channel is closed when the stream ends.
func (in *instance) stream(ctx context.Context, id string) <-chan string {
	in.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", in.base+"/jobs/"+id+"/events", nil)
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		in.t.Fatalf("event stream: %d", resp.StatusCode)
	}
	out := make(chan string, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if typ, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				out <- typ
			}
		}
	}()
	return out
}

// next returns the stream's next event type, failing the test when the
// stream ends or nothing comes within 30s.
func next(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no event within 30s")
	}
	return ""
}

// askonce bench --server a,b spreads its clients over both replicas: each
// client sticks to one (clients in turn: two each here), every round trip
// is served once and ends in success. The round trips are not split
// evenly: the clients draw them from one count, so a replica that answers
// faster (on a busy machine, the one the scheduler favours) serves more of
// them; each serves at least its clients' first.
func replicasBenchSpreadsClientsOverReplicas(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bench.db")
	a := start(t, nil, "--db", db)
	b := start(t, nil, "--db", db)
	out := benchRun(t, a.base+","+b.base, "--clients", "4", "--requests", "40", "--duration", "30s", "--ask-percent", "50")
	if !strings.Contains(out, "round trips ending in success: 40 ") {
		t.Fatalf("bench over two replicas:\n%s", out)
	}
	total := 0
	for _, in := range []*instance{a, b} {
		n := strings.Count(in.logs.String(), `route="POST /jobs"`)
		if n < 2 {
			t.Errorf("%s served %d creates of 40, want at least its two clients' first", in.base, n)
		}
		total += n
	}
	if total != 40 {
		t.Errorf("the replicas served %d creates in all, want the run's 40", total)
	}
}

// pgProxy is a TCP proxy between askonce and PostgreSQL that the test can
// cut, as an outage of the server looks to askonce, without disturbing
// anyone else using the server: cut closes every connection through it
// and drops the new ones at once; restore lets them through again.
type pgProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func newPGProxy(t *testing.T, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *pgProxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[s] = struct{}{}
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

func (p *pgProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *pgProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// A PostgreSQL outage under load, on two replicas: while the database
// cannot be reached every write is 503 unavailable with Retry-After
// (never a 500); every create acknowledged before, during or after it is
// in the database afterwards; and both replicas serve again once it is
// back, without a restart.
func replicasPostgresOutageIs503AndLosesNoAcknowledgedJob(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newPGProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	a := start(t, nil, "--db", u.String())
	b := start(t, nil, "--db", u.String())

	var (
		mu        sync.Mutex
		acked     []string
		statuses  = map[int]int{}
		bad       []string
		stop      = make(chan struct{})
		wg        sync.WaitGroup
		client    = &http.Client{Timeout: 20 * time.Second}
		succeeded atomic.Int64
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				in := []*instance{a, b}[(w+i)%2]
				body := fmt.Sprintf(`{"goal": "write chapter %d-%d then review it"}`, w, i)
				resp, err := client.Post(in.base+"/jobs", "application/json", strings.NewReader(body))
				if err != nil {
					mu.Lock()
					bad = append(bad, "POST /jobs: "+err.Error())
					mu.Unlock()
					continue
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var r struct {
					JobID string `json:"jobId"`
					Code  string `json:"code"`
				}
				json.Unmarshal(raw, &r)
				mu.Lock()
				statuses[resp.StatusCode]++
				switch {
				case resp.StatusCode == 201 || resp.StatusCode == 202:
					acked = append(acked, r.JobID)
					succeeded.Add(1)
				case resp.StatusCode == 503 && r.Code == "unavailable" && resp.Header.Get("Retry-After") != "":
				default:
					bad = append(bad, fmt.Sprintf("%d %s (Retry-After %q)", resp.StatusCode, raw, resp.Header.Get("Retry-After")))
				}
				mu.Unlock()
				if resp.StatusCode == 503 {
					time.Sleep(20 * time.Millisecond) // a client backing off, not the test waiting
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	unavailable := func() int { mu.Lock(); defer mu.Unlock(); return statuses[503] }
	health := func(in *instance) int {
		resp, err := client.Get(in.base + "/healthz")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	within(t, 20*time.Second, "creates before the outage", func() bool { return succeeded.Load() >= 20 })
	proxy.cut()
	within(t, 20*time.Second, "creates answered 503 during the outage", func() bool { return unavailable() >= 8 })
	within(t, 20*time.Second, "both replicas to report the store down", func() bool { return health(a) == 503 && health(b) == 503 })
	before := succeeded.Load()
	proxy.restore()
	within(t, 60*time.Second, "both replicas to be healthy again without a restart", func() bool { return health(a) == 200 && health(b) == 200 })
	within(t, 60*time.Second, "creates to succeed again", func() bool { return succeeded.Load() >= before+20 })
	close(stop)
	wg.Wait()
	stop = make(chan struct{})

	mu.Lock()
	defer mu.Unlock()
	t.Logf("POST /jobs answers: %v; %d acknowledged", statuses, len(acked))
	if len(bad) > 0 {
		t.Errorf("%d answers were neither a success nor 503 unavailable with Retry-After, e.g. %s", len(bad), bad[0])
	}
	for _, id := range acked {
		if g := a.do("GET", "/jobs/"+id, nil); g.status != 200 {
			t.Fatalf("acknowledged job %s is lost: %d %s", id, g.status, g.raw)
		}
	}
}
