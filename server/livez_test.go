package server_test

import (
	"net/http"
	"testing"
)

// /livez says the process serves, whatever the store does: a liveness
// probe must not restart a replica because the database is down
// (/healthz takes it out of the Service instead).
func TestLivez_IsAliveWhileTheStoreIsDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.store.Close()
	if r := e.do("GET", "/livez", nil); r.status != http.StatusOK || r.body["ok"] != true {
		t.Fatalf("livez on a closed store: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/healthz", nil); r.status != http.StatusServiceUnavailable {
		t.Fatalf("healthz on a closed store: %d %s, want 503", r.status, r.raw)
	}
}
