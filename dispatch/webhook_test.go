package dispatch

import (
	"net/http"
	"testing"

	"github.com/askonce/askonce"
)

// TestWebhook checks the webhook builder's failures, one behaviour per subtest.
func TestWebhook(t *testing.T) {
	t.Parallel()
	t.Run("GivesUpAfterMaxAttempts", testWebhookGivesUpAfterMaxAttempts)
	t.Run("UnreachableIsAFailedTry", testWebhookUnreachableIsAFailedTry)
	t.Run("DoesNotFollowRedirects", testWebhookDoesNotFollowRedirects)
}

func testWebhookDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	mux := http.NewServeMux()
	mux.Handle("/", http.RedirectHandler(rcv.URL, http.StatusFound))
	redirect := newReceiver(t, func(string, int) int { return http.StatusFound })
	redirect.Config.Handler = mux
	w := &Webhook{URL: redirect.URL, Secret: secret}
	err := w.Deliver(t.Context(), testJob())
	if err == nil || len(rcv.requests("j1")) != 0 {
		t.Errorf("redirect: %v, %d requests at the target", err, len(rcv.requests("j1")))
	}
}

func testJob() *askonce.Job {
	return &askonce.Job{ID: "j1", TenantID: askonce.DefaultTenant, Status: askonce.StatusSuccess}
}
