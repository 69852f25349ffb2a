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

// Every request read before the end of input is answered before Run
// returns: a client that writes its requests and closes its end at once
// (a shell pipe) still gets every answer, and a tool that elicits after
// the end gets the error a closed client stands for and answers too.
func TestStdio_RequestsReadBeforeEndOfInputAreAnswered(t *testing.T) {
	e := newEnv(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"get_job","arguments":{"jobId":"nope"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"ask select"}}}`,
	}, "\n") + "\n"
	for i := range 20 {
		var out strings.Builder
		done := make(chan error, 1)
		go func() {
			done <- e.server.Run(context.Background(), &mcp.Stdio{Reader: strings.NewReader(in), Writer: &out})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d: Run did not return after the end of input", i)
		}
		got := out.String()
		for _, id := range []string{`"id":1,"result"`, `"id":2,"result"`, `"id":"three","result"`} {
			if !strings.Contains(got, id) {
				t.Fatalf("run %d: no answer with %s in:\n%s", i, id, got)
			}
		}
		if !strings.Contains(got, `"id":4,"error"`) || !strings.Contains(got, "input is closed") {
			t.Fatalf("run %d: the plan that elicited after the end of input is not answered with the closed input:\n%s", i, got)
		}
	}
}
