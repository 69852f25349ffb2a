package main_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce/internal/openapitest"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/webhook"
)

// The end-to-end tests run the built binary on a real port, as a user
// would: go build once, then askonce serve per test.

var binary string

// builtBinary is the askonce binary TestMain built, for a test that runs
// it. Under -short it skips the test instead: every test that runs the
// binary is an end-to-end test of separate processes, and -short is the
// fast loop (the README's test command and CI run them all).
func builtBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping an end-to-end test of the built binary in processes of its own (go test without -short runs it; CI does)")
	}
	withDeadline(t)
	return binary
}

// stampedVersion is the version the tests' binary is stamped with, as a
// release build stamps it (-ldflags -X, see internal/buildinfo).
const stampedVersion = "v9.9.9-e2e"

func TestMain(m *testing.M) {
	flag.Parse()
	// Under -short nothing is built: the tests that need the binary skip.
	dir := ""
	if !testing.Short() {
		var err error
		if dir, err = os.MkdirTemp("", "askonce-e2e"); err != nil {
			panic(err)
		}
		binary = filepath.Join(dir, "askonce")
		build := exec.Command("go", "build", "-ldflags", "-X github.com/askonce/askonce/internal/buildinfo.Version="+stampedVersion, "-o", binary, ".")
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build askonce:", err)
			os.Exit(1)
		}
	}
	before := sourceTreeDBs()
	code := m.Run()
	if written := sourceTreeDBs(); len(written) > len(before) {
		fmt.Fprintf(os.Stderr, "FAIL: tests wrote %v into the source tree; every test writes under t.TempDir()\n", written)
		code = 1
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
	pgtest.Drop()
	os.Exit(code)
}

// sourceTreeDBs are the SQLite files in the package's folder, where the
// binary's default --db (askonce.db in the working directory) would put
// them: a test that leaves one there wrote into the source tree.
func sourceTreeDBs() []string {
	var found []string
	for _, pattern := range []string{"*.db", "*.db-wal", "*.db-shm"} {
		m, _ := filepath.Glob(pattern)
		found = append(found, m...)
	}
	return found
}

// testDBs are the default databases of the tests, one for each test.
var testDBs sync.Map // *testing.T -> path

// withTestDB is env with ASKONCE_DB set, when it is unset or empty, to a
// file under the test's t.TempDir(), the same for every command of the
// test: the binary's default (askonce.db in the working directory) would
// write into the source tree. A --db flag still wins.
func withTestDB(t *testing.T, env []string) []string {
	t.Helper()
	db := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "ASKONCE_DB="); ok {
			db = v
		}
	}
	if db != "" {
		return env
	}
	path, ok := testDBs.Load(t)
	if !ok {
		path = filepath.Join(t.TempDir(), "askonce.db")
		testDBs.Store(t, path)
		t.Cleanup(func() { testDBs.Delete(t) })
	}
	return append(env, "ASKONCE_DB="+path.(string))
}

// instance is one running askonce serve.
type instance struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	logs *syncBuffer
	done chan struct{}
	// contract is the served OpenAPI document; do checks every response
	// against it.
	contract *openapitest.Contract
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// deadServer returns the address of a listener that closes every
// connection unanswered: a server that is not there, which no other
// process can start on meanwhile (a port picked and closed could be
// taken).
func deadServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// servingAddr matches the log line of askonce serve that names the
// address it listens on.
var servingAddr = regexp.MustCompile(`msg="askonce serving" addr=(\S+)`)

// start runs askonce serve with args on a port of its choosing (--addr
// 127.0.0.1:0, which it reports in its "askonce serving" line) and waits
// until it answers /healthz.
func start(t *testing.T, env []string, args ...string) *instance {
	t.Helper()
	cmd := exec.Command(builtBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = withTestDB(t, append(os.Environ(), env...))
	in := &instance{t: t, cmd: cmd, logs: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = in.logs, in.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	track(t, cmd)
	go func() { cmd.Wait(); close(in.done) }()
	t.Cleanup(func() {
		in.stop(syscall.SIGKILL)
		if t.Failed() {
			t.Logf("server log:\n%s", in.logs.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-in.done:
			t.Fatalf("askonce serve exited:\n%s", in.logs.String())
		default:
		}
		if in.base == "" {
			if m := servingAddr.FindStringSubmatch(in.logs.String()); m != nil {
				in.base = "http://" + m[1]
			}
		}
		if in.base != "" {
			resp, err := http.Get(in.base + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					c, err := openapitest.Fetch(http.DefaultClient, in.base)
					if err != nil {
						t.Fatalf("the served OpenAPI document: %v", err)
					}
					in.contract = c
					return in
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("askonce serve did not become healthy:\n%s", in.logs.String())
	return nil
}

func (in *instance) stop(sig syscall.Signal) {
	select {
	case <-in.done:
		return
	default:
	}
	in.cmd.Process.Signal(sig)
	select {
	case <-in.done:
	case <-time.After(30 * time.Second):
		in.cmd.Process.Kill()
		<-in.done
	}
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (in *instance) do(method, path string, body any, header ...string) response {
	in.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, in.base+path, r)
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if err := in.contract.Validate(req, resp.StatusCode, resp.Header, raw); err != nil {
		in.t.Errorf("contract: %s %s answered %d not as documented: %v\n%.2000s", method, path, resp.StatusCode, err, raw)
	}
	out := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	json.Unmarshal(raw, &out.body)
	return out
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// receiver is a webhook builder endpoint that fails the first failures
// deliveries of each job, then acknowledges; it counts acknowledged
// deliveries per webhook-id and checks every signature.
type receiver struct {
	srv      *httptest.Server
	secret   string
	failures int
	mu       sync.Mutex
	tries    map[string]int
	acked    map[string]int
	badSigs  atomic.Int64
	bodies   map[string][]byte
}

func newReceiver(t *testing.T, failures int) *receiver {
	r := &receiver{secret: "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHMtb25seQ==", failures: failures,
		tries: map[string]int{}, acked: map[string]int{}, bodies: map[string][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if err := webhook.Verify(r.secret, req.Header, body, 5*time.Minute); err != nil {
			r.badSigs.Add(1)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		defer r.mu.Unlock()
		r.tries[id]++
		if r.tries[id] <= r.failures {
			http.Error(w, "not yet", http.StatusInternalServerError)
			return
		}
		r.acked[id]++
		r.bodies[id] = body
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) ackedCount(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.acked[id]
}

// body is the body of id's acknowledged delivery.
func (r *receiver) body(id string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies[id]
}

func (r *receiver) args() ([]string, []string) {
	return []string{"ASKONCE_WEBHOOK_SECRET=" + r.secret},
		[]string{"--builder", "webhook", "--webhook-url", r.srv.URL}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	within(t, 30*time.Second, what, cond)
}

func within(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestServe: askonce serve end to end: the HTTP API over the built binary,
// its start-up, shutdown and channels.
func TestServe(t *testing.T) {
	t.Parallel()
	t.Run("HotFrozenCheeseAsksOnceAndTheAnswerSettlesIt", serveHotFrozenCheeseAsksOnceAndTheAnswerSettlesIt)
	t.Run("BadInputIsAClear4xxAndChangesNothing", serveBadInputIsAClear4xxAndChangesNothing)
	t.Run("GracefulShutdown", serveGracefulShutdown)
	t.Run("WarnsBeyondLoopbackWithoutKeys", serveWarnsBeyondLoopbackWithoutKeys)
	t.Run("WithExecInterpreter", serveWithExecInterpreter)
	t.Run("RootRedirectsToTheInbox", serveRootRedirectsToTheInbox)
	t.Run("StartupLogNamesTheURLsItListensOn", serveStartupLogNamesTheURLsItListensOn)
	t.Run("TracingExportsSpansToTheOTLPEndpoint", serveTracingExportsSpansToTheOTLPEndpoint)
	t.Run("EveryChannelReportsTheStampedVersion", serveEveryChannelReportsTheStampedVersion)
}

// Hot frozen cheese over HTTP with the built binary: one question, the
// answer settles it, a second answer is a conflict.
func serveHotFrozenCheeseAsksOnceAndTheAnswerSettlesIt(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 0)
	env, args := rc.args()
	in := start(t, env, append(args, "--db", filepath.Join(t.TempDir(), "a.db"))...)

	// 1. The prompt that used to loop: one question.
	r := in.do("POST", "/jobs", map[string]any{"prompt": "hot frozen cheese"})
	if r.status != 201 || r.body["needsClarification"] != true || str(r.body, "clarificationQuestion") == "" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := str(r.body, "jobId")
	// Answer: success, builder triggered.
	a := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	if a.status != 200 || a.body["success"] != true || str(a.body, "status") != "success" || a.body["needsClarification"] == true {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	eventually(t, "the builder to be triggered", func() bool { return rc.ackedCount(id) == 1 })
	// Never a second question: another answer is a conflict.
	if again := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "frozen"}); again.status != 409 {
		t.Fatalf("second answer: %d %s", again.status, again.raw)
	}
	// 3. The row holds the answer, its time and the resolved prompt.
	g := in.do("GET", "/jobs/"+id, nil)
	if str(g.body, "clarificationAnswer") != "hot" || str(g.body, "clarificationAnsweredAt") == "" ||
		str(g.body, "resolvedPrompt") != "hot frozen cheese\n\nClarification Answer: hot" {
		t.Fatalf("stored job: %s", g.raw)
	}
	eventually(t, "delivery to be recorded", func() bool {
		return str(in.do("GET", "/jobs/"+id, nil).body, "dispatchStatus") == "delivered"
	})

	// The failure branch: the hard cap's exact message, with --hard-cap fail
	// and a goal whose answer leaves a second issue (a contradiction and a
	// destructive action): the interpreter asks again after the answer.
	in2 := start(t, nil, "--db", filepath.Join(t.TempDir(), "b.db"), "--hard-cap", "fail")
	r = in2.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese, then delete the old recipe files"})
	if r.status != 201 || r.body["needsClarification"] != true {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	opts, _ := r.body["clarificationOptions"].([]any)
	if len(opts) == 0 {
		t.Fatalf("no options: %s", r.raw)
	}
	a = in2.do("POST", "/jobs/"+str(r.body, "jobId")+"/clarification", map[string]any{"answer": opts[0]})
	if a.status != 200 || a.body["needsClarification"] == true {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	if a.body["success"] != false || str(a.body, "error") != "Clarification did not resolve ambiguity. Please rephrase." {
		t.Fatalf("want the hard-cap failure, got %s", a.raw)
	}
}

// A webhook receiver that fails the first two deliveries still gets each
// success exactly once per webhook-id, with a valid signature.
func TestRule11_WebhookRetriesDeliverExactlyOnce(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 2)
	env, args := rc.args()
	in := start(t, env, append(args, "--delivery-backoff", "50ms", "--db", filepath.Join(t.TempDir(), "a.db"))...)
	var ids []string
	for i := range 5 {
		r := in.do("POST", "/jobs", map[string]any{"goal": fmt.Sprintf("write chapter %d then review it", i)})
		if r.status != 201 || str(r.body, "status") != "success" {
			t.Fatalf("create: %d %s", r.status, r.raw)
		}
		ids = append(ids, str(r.body, "jobId"))
	}
	for _, id := range ids {
		eventually(t, "delivery of "+id, func() bool {
			j := in.do("GET", "/jobs/"+id, nil).body
			return str(j, "dispatchStatus") == "delivered"
		})
		if n := rc.ackedCount(id); n != 1 {
			t.Fatalf("job %s acknowledged %d times", id, n)
		}
		j := in.do("GET", "/jobs/"+id, nil).body
		if j["deliveryAttempts"] != float64(3) {
			t.Fatalf("job %s delivery attempts %v, want 3", id, j["deliveryAttempts"])
		}
		if b := rc.body(id); !bytes.Contains(b, []byte(`"tasks"`)) {
			t.Fatalf("delivery body has no plan: %s", b)
		}
	}
	if n := rc.badSigs.Load(); n != 0 {
		t.Fatalf("%d deliveries had a bad signature", n)
	}
}

// Bad input: each a clear 4xx, and nothing changed.
func serveBadInputIsAClear4xxAndChangesNothing(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	pending := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	id := str(pending.body, "jobId")
	done := in.do("POST", "/jobs", map[string]any{"goal": "write the README then add tests"})
	before := in.do("GET", "/jobs", nil).raw
	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"MalformedJSON", "POST", "/jobs", `{"goal": "x"`, 400},
		{"TwoMiBBody", "POST", "/jobs", `{"goal": "` + strings.Repeat("x", 2<<20) + `"}`, 413},
		{"NonUTF8", "POST", "/jobs", []byte("{\"goal\": \"\xff\xfe\"}"), 400},
		{"UnknownID", "GET", "/jobs/01a1fc9a-0000-7000-8000-000000000000", nil, 404},
		{"AnswerNotPending", "POST", "/jobs/" + str(done.body, "jobId") + "/clarification", map[string]any{"answer": "hot"}, 409},
		// Over 4 KiB: not allowed whether or not the question takes
		// answers of one's own.
		{"AnswerNotAllowed", "POST", "/jobs/" + id + "/clarification", map[string]any{"answer": strings.Repeat("x", 4097)}, 422},
		{"EmptyAnswer", "POST", "/jobs/" + id + "/clarification", map[string]any{"answer": ""}, 422},
		{"WhiteSpaceGoal", "POST", "/jobs", map[string]any{"goal": " \n\t "}, 422},
		{"FileWithTilde", "POST", "/jobs", map[string]any{"goal": "x", "files": []string{"~/notes.md"}}, 422},
		{"FileWithNewline", "POST", "/jobs", map[string]any{"goal": "x", "files": []string{"a.md\nb.md"}}, 422},
		{"SpecSchemaInvalid", "POST", "/jobs", map[string]any{"goal": "x", "specSchema": map[string]any{"type": "objekt"}}, 422},
		{"SpecSchemaExternalRef", "POST", "/jobs", map[string]any{"goal": "x", "specSchema": map[string]any{"$ref": "http://127.0.0.1:1/s.json"}}, 422},
	} {
		r := in.do(c.method, c.path, c.body)
		if r.status != c.status || r.body["success"] != false || str(r.body, "error") == "" || str(r.body, "code") == "" {
			t.Errorf("%s: %d %s; want %d with success false, an error and a code", c.name, r.status, r.raw, c.status)
		}
	}
	if after := in.do("GET", "/jobs", nil).raw; !bytes.Equal(before, after) {
		t.Errorf("bad input changed the jobs:\nbefore %s\nafter  %s", before, after)
	}
	if g := in.do("GET", "/jobs/"+id, nil); str(g.body, "status") != "pending" {
		t.Errorf("the pending job moved: %s", g.raw)
	}
}

// With API keys, every request is scoped to its tenant.
func apiKeysTenancy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	hash := func(k string) string { s := sha256.Sum256([]byte(k)); return hex.EncodeToString(s[:]) }
	os.WriteFile(keys, []byte("# tenant sha256\nacme "+hash("key-a")+"\nglobex "+hash("key-b")+"\n"), 0o600)
	in := start(t, nil, "--db", filepath.Join(dir, "a.db"), "--api-keys-file", keys)
	if r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"}); r.status != 401 {
		t.Fatalf("no key: %d", r.status)
	}
	a := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"}, "Authorization", "Bearer key-a")
	if a.status != 201 {
		t.Fatalf("tenant a: %d %s", a.status, a.raw)
	}
	id := str(a.body, "jobId")
	if r := in.do("GET", "/jobs/"+id, nil, "Authorization", "Bearer key-b"); r.status != 404 {
		t.Fatalf("tenant b reads a's job: %d", r.status)
	}
	if r := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, "Authorization", "Bearer key-b"); r.status != 404 {
		t.Fatalf("tenant b answers a's job: %d", r.status)
	}
	if r := in.do("GET", "/jobs/"+id, nil, "Authorization", "Bearer key-a"); r.status != 200 {
		t.Fatalf("tenant a reads its job: %d", r.status)
	}
	if r := in.do("GET", "/jobs/"+id, nil, "Authorization", "Bearer wrong"); r.status != 401 {
		t.Fatalf("wrong key: %d", r.status)
	}
}

// SIGKILL in the middle of load, restart on the same file: no
// acknowledged job lost, none stuck in planning, none dispatched twice.
func TestRule13_KillDuringLoadLosesNothing(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 0)
	env, args := rc.args()
	db := filepath.Join(t.TempDir(), "a.db")
	// A delivery cut off by the kill is retried once River gives its try up:
	// the builder timeout plus 10 s, then the rescuer's next round.
	// The restart is the same replica (--replica-id): it takes the jobs
	// left in planning back at once.
	args = append(args, "--db", db, "--builder-timeout", "2s", "--replica-id", "replica-a")
	in := start(t, env, args...)

	var mu sync.Mutex
	acked := map[string]string{} // job id -> status the server acknowledged
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil && i < 2000; i++ {
				goal := "write part %d-%d then test it"
				if i%2 == 0 {
					goal = "hot frozen cheese %d-%d"
				}
				b, _ := json.Marshal(map[string]any{"goal": fmt.Sprintf(goal, w, i), "sessionId": fmt.Sprint("s", w, i)})
				resp, err := http.Post(in.base+"/jobs", "application/json", bytes.NewReader(b))
				if err != nil {
					return // the server died
				}
				var j map[string]any
				json.NewDecoder(resp.Body).Decode(&j)
				resp.Body.Close()
				if resp.StatusCode != 201 {
					continue
				}
				id := str(j, "jobId")
				mu.Lock()
				acked[id] = str(j, "status")
				mu.Unlock()
				if str(j, "status") == "pending" {
					resp, err := http.Post(in.base+"/jobs/"+id+"/clarification", "application/json", strings.NewReader(`{"answer":"hot"}`))
					if err != nil {
						return
					}
					json.NewDecoder(resp.Body).Decode(&j)
					resp.Body.Close()
					if resp.StatusCode == 200 {
						mu.Lock()
						acked[id] = str(j, "status")
						mu.Unlock()
					}
				}
			}
		})
	}
	eventually(t, "some load", func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 200 })
	in.stop(syscall.SIGKILL)
	cancel()
	wg.Wait()

	again := start(t, env, args...)
	mu.Lock()
	defer mu.Unlock()
	for id, status := range acked {
		var j map[string]any
		eventually(t, "job "+id+" to leave planning", func() bool {
			r := again.do("GET", "/jobs/"+id, nil)
			if r.status != 200 {
				t.Fatalf("acknowledged job %s lost: %d", id, r.status)
			}
			j = r.body
			return str(j, "status") != "planning"
		})
		if status == "success" && str(j, "status") != "success" {
			t.Fatalf("job %s was acknowledged as success, now %s", id, str(j, "status"))
		}
	}
	// Every success is queued for dispatch exactly once across the crash,
	// and delivered. A crash between a delivery and its record can repeat
	// that delivery with the same webhook-id (receivers dedupe on it), so
	// repeats are reported, not failed.
	page := again.do("GET", "/jobs?status=success&limit=500", nil)
	jobs, _ := page.body["jobs"].([]any)
	if len(jobs) == 0 {
		t.Fatal("no successful jobs after the restart")
	}
	for _, x := range jobs {
		id := str(x.(map[string]any), "jobId")
		evs, _ := again.do("GET", "/jobs/"+id+"/events", nil).body["events"].([]any)
		dispatched := 0
		for _, e := range evs {
			if str(e.(map[string]any), "type") == "dispatched" {
				dispatched++
			}
		}
		if dispatched != 1 {
			t.Fatalf("job %s dispatched %d times", id, dispatched)
		}
		within(t, 2*time.Minute, "delivery of "+id, func() bool { return rc.ackedCount(id) >= 1 })
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for id, n := range rc.acked {
		if n > 1 {
			t.Logf("job %s was delivered %d times with the same webhook-id (crash between delivery and record)", id, n)
		}
	}
}

// SIGTERM lets in-flight work finish and exits cleanly.
func serveGracefulShutdown(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	in.do("POST", "/jobs", map[string]any{"goal": "write the README then add tests"})
	in.stop(syscall.SIGTERM)
	if code := in.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM:\n%s", code, in.logs.String())
	}
	if !strings.Contains(in.logs.String(), "stopped") {
		t.Fatalf("no clean stop in the log:\n%s", in.logs.String())
	}
}

func serveWarnsBeyondLoopbackWithoutKeys(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(builtBinary(t), "serve", "--addr", "0.0.0.0:0", "--db", filepath.Join(t.TempDir(), "a.db"))
	out, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "beyond loopback with no API keys") {
			return
		}
		if strings.Contains(sc.Text(), "askonce serving") {
			break
		}
	}
	t.Fatal("no warning when listening beyond loopback without keys")
}

// --interpreter exec plans with a plug-in: the example one asks about
// "markdown or html" and plans with the answer.
func serveWithExecInterpreter(t *testing.T) {
	t.Parallel()
	plugin, err := filepath.Abs("../../examples/exec-plugin/plugin.py")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{`ASKONCE_EXEC_COMMAND=["python3", "` + plugin + `"]`}
	in := start(t, env, "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec")
	r := in.do("POST", "/jobs", map[string]any{"goal": "Write the report in markdown or html"})
	if r.status != 201 || r.body["needsClarification"] != true || str(r.body, "clarificationType") != "SELECT_ONE" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	a := in.do("POST", "/jobs/"+str(r.body, "jobId")+"/clarification", map[string]any{"answer": "html"})
	if a.status != 200 || str(a.body, "status") != "success" || !strings.Contains(str(a.body, "resolvedPrompt"), "Clarification Answer: html") {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	// A missing configuration stops serve at start, naming the variable.
	out, errs, code := runCLI(t, "", []string{"ASKONCE_EXEC_COMMAND="}, "serve", "--interpreter", "exec", "--db", filepath.Join(t.TempDir(), "b.db"))
	if code == 0 || !strings.Contains(out+errs, "ASKONCE_EXEC_COMMAND") {
		t.Fatalf("serve without exec config: exit %d %q", code, out+errs)
	}
}

// askonce run selects the embedded engine's interpreter the way serve
// does: --interpreter exec with the example plug-in, answered on stdin.
func runWithExecInterpreter(t *testing.T) {
	t.Parallel()
	plugin, err := filepath.Abs("../../examples/exec-plugin/plugin.py")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{`ASKONCE_EXEC_COMMAND=["python3", "` + plugin + `"]`}
	out, errs, code := runCLI(t, "2\n", env, "run", "--no-input", "--db", filepath.Join(t.TempDir(), "a.db"),
		"--interpreter", "exec", "Write the report in markdown or html")
	if code != 0 || !strings.Contains(out+errs, "1) markdown") || !strings.Contains(out+errs, "html (from user)") {
		t.Fatalf("run --interpreter exec: exit %d\n%s%s", code, out, errs)
	}
	_, errs, code = runCLI(t, "", nil, "run", "--interpreter", "magic", "--db", filepath.Join(t.TempDir(), "b.db"), "x")
	if code != 2 || !strings.Contains(errs, "must be one of rules, openai, exec") {
		t.Fatalf("unknown interpreter: exit %d %q", code, errs)
	}
}
