package maxbody_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/askonce/askonce/internal/maxbody"
)

// A client that sends a body over the limit whole, before it reads, can
// send it all and then reads the 413.
func TestBodyOverTheLimitIsDiscardedSoTheClientReads413(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(maxbody.Reader(w, r, limit)); err != nil {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		}
	}))
	t.Cleanup(srv.Close)
	body := make([]byte, 12*limit)
	for i := range 5 {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := conn.Write(body); err != nil {
			t.Fatalf("try %d: sending the body: %v; want it taken and discarded", i, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("try %d: %v; want the 413", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("try %d: %d, want 413", i, resp.StatusCode)
		}
	}
}
