package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/server"
)

// A gate-mode job's stream gets its events live: the question reported
// after the stream opened arrives as an asked event; the stream ends once
// the job is terminal and every event was sent.
func TestEvents_StreamDeliversEventsLiveAndEndsWhenTheJobIsSettled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")

	resp, ch := e.openStream(context.Background(), id)
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	created, _ := waitEvent(t, ch, "created")

	// Nothing else happened yet; the report happens while the stream is open.
	if r := e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": moduleQuestion}); str(r.body, "action") != "ask" {
		t.Fatalf("report: %d %s", r.status, r.raw)
	}
	asked, skipped := waitEvent(t, ch, "asked")
	if !slices.Equal(skipped, []string{"attempt"}) {
		t.Fatalf("events before asked: %v", skipped)
	}
	var data struct {
		ID    int64  `json:"id"`
		JobID string `json:"jobId"`
		Type  string `json:"type"`
		Data  struct {
			Question string `json:"question"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(asked.data), &data); err != nil {
		t.Fatal(err)
	}
	if strconv.FormatInt(data.ID, 10) != asked.id || data.JobID != id || data.Type != "asked" || data.Data.Question != "Which module?" {
		t.Fatalf("asked event: id %s data %s", asked.id, asked.data)
	}
	if a, _ := strconv.Atoi(asked.id); a <= mustAtoi(t, created.id) {
		t.Fatalf("event ids do not increase: %s then %s", created.id, asked.id)
	}

	// Cancelling settles the job: the stream sends cancelled and ends.
	e.do("POST", "/jobs/"+id+"/cancel", nil)
	if rest := waitEnd(t, ch); !slices.Equal(rest, []string{"cancelled"}) {
		t.Fatalf("events at the end: %v", rest)
	}

	// A reconnect with Last-Event-ID resumes after that event.
	_, ch2 := e.openStream(context.Background(), id, "Last-Event-ID", asked.id)
	if rest := waitEnd(t, ch2); !slices.Equal(rest, []string{"cancelled"}) {
		t.Fatalf("resumed stream: %v", rest)
	}
	// The JSON form takes ?after= the same way.
	r := e.do("GET", "/jobs/"+id+"/events?after="+asked.id, nil)
	if evs, _ := r.body["events"].([]any); len(evs) != 1 || str(evs[0].(map[string]any), "type") != "cancelled" {
		t.Fatalf("events after %s: %s", asked.id, r.raw)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The stream's handler returns when the client goes away.
func TestEvents_StreamEndsWhenTheClientDisconnects(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	ctx, cancel := context.WithCancel(context.Background())
	_, ch := e.openStream(ctx, id)
	waitEvent(t, ch, "created")
	cancel()
	eventually(t, "the stream's request line in the log", func() bool {
		return strings.Contains(e.logs.String(), `route="GET /jobs/{id}/events"`)
	})
}

// A stream outlives the http.Server's read and write timeouts: each write
// extends the write deadline (and net/http lifts the read deadline once
// the request is read).
func TestEvents_StreamOutlivesServerTimeouts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		http: func(s *http.Server) {
			s.ReadTimeout = 200 * time.Millisecond
			s.WriteTimeout = 200 * time.Millisecond
		},
	})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	_, ch := e.openStream(context.Background(), id)
	waitEvent(t, ch, "created")
	time.Sleep(600 * time.Millisecond) // past both timeouts
	// The report goes to the engine: a POST through this server would be
	// cut by the same 200ms timeouts whenever the machine is slow.
	q := &askonce.Question{Reason: "scope_unclear", Text: "Which module?", Options: []string{"billing", "invoices"}}
	if _, err := e.engine.Report(context.Background(), "", id, askonce.Report{Question: q}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, "asked")
}

func TestEvents_HeartbeatOnAnIdleStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.Heartbeat = 30 * time.Millisecond }})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	req, _ := http.NewRequest("GET", e.srv.URL+"/jobs/"+id+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 0, 4096)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(string(buf), ": keep-alive\n\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no heartbeat in %q", buf)
		}
		tmp := make([]byte, 512)
		n, err := resp.Body.Read(tmp)
		buf = append(buf, tmp[:n]...)
		if err != nil {
			t.Fatalf("stream ended: %v after %q", err, buf)
		}
	}
}

// Without AwaitDelivery a successful job's stream ends once its events
// are sent; with it, the stream waits for the delivery outcome.
func TestEvents_SuccessStreamEndsOrAwaitsDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": readme}), "jobId")
	_, ch := e.openStream(context.Background(), id)
	if got := waitEnd(t, ch); !slices.Equal(got, []string{"created", "attempt", "planned", "dispatched"}) {
		t.Fatalf("success stream: %v", got)
	}

	e = newEnv(t, envOptions{config: func(c *server.Config) { c.AwaitDelivery = true }})
	id = str(e.create(map[string]any{"goal": readme}), "jobId")
	_, ch = e.openStream(context.Background(), id)
	waitEvent(t, ch, "dispatched")
	select {
	case ev, ok := <-ch:
		t.Fatalf("stream went on before the delivery: %v %v", ev, ok)
	case <-time.After(200 * time.Millisecond): // several polls
	}
	// The dispatcher records the delivery.
	j, err := e.store.GetJob(context.Background(), askonce.DefaultTenant, id)
	if err != nil {
		t.Fatal(err)
	}
	j.Dispatch, j.DeliveryAttempts = askonce.DispatchDelivered, 1
	ev := askonce.Event{TenantID: j.TenantID, JobID: id, Type: askonce.EventDelivered, At: time.Now()}
	if err := e.store.UpdateJob(context.Background(), &askonce.Change{Job: j, Events: []askonce.Event{ev}}); err != nil {
		t.Fatal(err)
	}
	if rest := waitEnd(t, ch); !slices.Equal(rest, []string{"delivered"}) {
		t.Fatalf("after the delivery: %v", rest)
	}
}

// CloseStreams (at shutdown) ends open streams, so that Shutdown does not
// wait for them.
func TestEvents_CloseStreamsEndsOpenStreams(t *testing.T) {
	t.Parallel()
	var api *server.Server
	e := newEnv(t, envOptions{http: func(s *http.Server) {
		api = s.Handler.(*server.Server)
		s.RegisterOnShutdown(api.CloseStreams)
	}})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	_, ch := e.openStream(context.Background(), id)
	waitEvent(t, ch, "created")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with an open stream: %v", err)
	}
	waitEnd(t, ch)
}

// A stream is woken by the store when its job changes: with polling so
// slow that it never fires during the test, the asked event reported
// after the stream opened still arrives.
func TestEvents_StreamIsWokenByTheStoreWithoutPolling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.PollInterval = time.Hour }})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	_, ch := e.openStream(context.Background(), id)
	waitEvent(t, ch, "created")
	if r := e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": moduleQuestion}); str(r.body, "action") != "ask" {
		t.Fatalf("report: %d %s", r.status, r.raw)
	}
	waitEvent(t, ch, "asked")
	e.do("POST", "/jobs/"+id+"/cancel", nil)
	if rest := waitEnd(t, ch); !slices.Equal(rest, []string{"cancelled"}) {
		t.Fatalf("events at the end: %v", rest)
	}
}
