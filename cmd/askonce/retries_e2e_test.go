package main_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce/webhook"
)

// failFirst is a webhook receiver that refuses the first try of every
// webhook-id and accepts the next ones, keeping every try's body.
type failFirst struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][][]byte
}

func newFailFirst(t *testing.T, secret string) *failFirst {
	f := &failFirst{bodies: map[string][][]byte{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, r.Header, body, time.Minute); err != nil {
			t.Errorf("Verify: %v", err)
		}
		id := r.Header.Get("webhook-id")
		f.mu.Lock()
		defer f.mu.Unlock()
		f.bodies[id] = append(f.bodies[id], body)
		if len(f.bodies[id]) == 1 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *failFirst) tries(id string) [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies[id]...)
}

// A retried webhook sends the same bytes under the same webhook-id: the
// builder's delivery (whose job records each try in between) and both
// question notifications (the question answered between the two tries
// of question.asked).
func TestRule11_WebhookRetrySendsTheSameBodyUnderTheSameID(t *testing.T) {
	t.Parallel()
	const secret = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM="
	builder, notify := newFailFirst(t, secret), newFailFirst(t, secret)
	in := start(t, []string{"ASKONCE_WEBHOOK_SECRET=" + secret, "ASKONCE_NOTIFY_SECRET=" + secret},
		"--db", filepath.Join(t.TempDir(), "a.db"), "--builder", "webhook", "--webhook-url", builder.srv.URL,
		"--notify-webhook", notify.srv.URL, "--delivery-backoff", "1500ms")

	planned := in.do("POST", "/jobs", map[string]any{"goal": "write chapter 1 then review it"})
	asked := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	if str(planned.body, "status") != "success" || str(asked.body, "status") != "pending" {
		t.Fatalf("create: %s\n%s", planned.raw, asked.raw)
	}
	id := str(asked.body, "jobId")
	eventually(t, "the first try of question.asked", func() bool { return len(notify.tries(id+":question.asked")) > 0 })
	if a := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}); a.status != 200 {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	for _, c := range []struct {
		rcv *failFirst
		id  string
	}{
		{builder, str(planned.body, "jobId")}, {builder, id},
		{notify, id + ":question.asked"}, {notify, id + ":question.resolved"},
	} {
		eventually(t, "the retry of "+c.id, func() bool { return len(c.rcv.tries(c.id)) >= 2 })
		tries := c.rcv.tries(c.id)
		for i, b := range tries[1:] {
			if !bytes.Equal(b, tries[0]) {
				t.Errorf("%s: try %d sent another body than try 1:\n%s\n%s", c.id, i+2, tries[0], b)
			}
		}
	}
	// The job records its tries, none of which changed what was sent.
	eventually(t, "the delivery to be recorded", func() bool {
		j := in.do("GET", "/jobs/"+id, nil).body
		return str(j, "dispatchStatus") == "delivered" && j["deliveryAttempts"] == float64(2)
	})
}
