package mcp_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/mcp"
)

// Over Stdio, a batch still reaches the SDK for a client of a protocol
// version that has batches (2025-03-26), and a line longer than MaxLine is
// refused (-32600) without ending the connection.
func TestStdio_BatchesOfOldClientsPassAndLongLinesAreRefused(t *testing.T) {
	e := newEnv(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go e.server.Run(ctx, &mcp.Stdio{Reader: inR, Writer: outW, MaxLine: 256})
	t.Cleanup(func() { inW.Close() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	send := func(line string) string {
		t.Helper()
		go io.WriteString(inW, line+"\n")
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatalf("no reply to %.60q", line)
		}
		return ""
	}
	if got := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`); !strings.Contains(got, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %s", got)
	}
	go io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if got := send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "longer than 256 bytes") {
		t.Fatalf("a line over MaxLine: %s", got)
	}
	if got := send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`); !strings.HasPrefix(got, "[") || !strings.Contains(got, `"id":3`) || !strings.Contains(got, `"id":4`) {
		t.Fatalf("a batch of two pings: %s", got)
	}
}
