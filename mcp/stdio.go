package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of askonce mcp: newline-delimited JSON-RPC on
// Reader and Writer, like the SDK's IOTransport, except that a line which
// is not a JSON-RPC message is answered with the JSON-RPC error (-32700
// parse error for invalid JSON; -32600 invalid request for null, an empty
// batch, a wrong "jsonrpc", a line too long) and reading goes on, where
// the SDK's transport ends the connection at the first such line.
type Stdio struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLine is the longest line taken, in bytes. Default
	// DefaultMaxArguments plus room for the JSON-RPC envelope, as over
	// HTTP.
	MaxLine int
}

// Connect implements sdk.Transport.
func (t *Stdio) Connect(ctx context.Context) (sdk.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxArguments + 64<<10
	}
	out := &lineWriter{w: t.Writer, open: newInflight()}
	pr, pw := io.Pipe()
	f := &lineFilter{out: out, max: max}
	go f.run(bufio.NewReader(t.Reader), pw)
	return (&sdk.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter writes each message with one Write, so that the SDK's
// messages and the filter's errors never interleave, and notes the
// answers and the server's own requests that go out.
type lineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	open *inflight
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(p)
	w.open.wrote(p)
	return n, err
}

// inflight is what is open on the connection: the client's requests the
// SDK has not answered yet, and the server's requests (an elicitation)
// the client has not answered. At the end of input the filter keeps the
// SDK's input open until the first are answered, and answers the second
// itself, since the client can no longer.
type inflight struct {
	mu      sync.Mutex
	calls   map[string]bool // the client's requests, by id
	asks    map[string]bool // the server's requests, by id
	changed chan struct{}
}

func newInflight() *inflight {
	return &inflight{calls: map[string]bool{}, asks: map[string]bool{}, changed: make(chan struct{}, 1)}
}

// messages are the JSON-RPC messages of a line: one, or a batch.
func messages(line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	raws := []json.RawMessage{line}
	if len(line) > 0 && line[0] == '[' {
		raws = nil
		json.Unmarshal(line, &raws)
	}
	var msgs []jsonrpc.Message
	for _, raw := range raws {
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

// read notes a line of the client's that goes to the SDK.
func (o *inflight) read(line []byte) {
	o.note(line, o.calls, o.asks)
}

// wrote notes a line of the SDK's that went to the client.
func (o *inflight) wrote(line []byte) {
	o.note(line, o.asks, o.calls)
}

// note adds the requests of line to mine and takes its answers out of
// theirs.
func (o *inflight) note(line []byte, mine, theirs map[string]bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, msg := range messages(line) {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.ID.IsValid() {
				mine[idKey(m.ID)] = true
			}
		case *jsonrpc.Response:
			delete(theirs, idKey(m.ID))
		}
	}
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

// drain runs at the end of input: it answers the server's open requests
// with an error through answer, and returns once the SDK has answered
// every request of the client's.
func (o *inflight) drain(answer func([]byte) error) {
	for {
		o.mu.Lock()
		var replies [][]byte
		for id := range o.asks {
			replies = append(replies, errorReply(json.RawMessage(id), jsonrpc.CodeInternalError, "the client's input is closed"))
			delete(o.asks, id)
		}
		waiting := len(o.calls) > 0
		o.mu.Unlock()
		for _, r := range replies {
			if answer(r) != nil {
				return
			}
		}
		if !waiting {
			return
		}
		<-o.changed
	}
}

// idKey is an id as JSON: 1 and "1" are two ids.
func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

func (*lineWriter) Close() error { return nil }

// lineFilter passes the JSON-RPC messages of its input on to the SDK and
// answers the rest.
type lineFilter struct {
	out *lineWriter
	max int
	// version is the protocol version the client asked for in initialize:
	// the SDK takes batches only before 2025-06-18 and ends the connection
	// at one after it, so the filter refuses those.
	version string
}

func (f *lineFilter) run(in *bufio.Reader, sdkIn *io.PipeWriter) {
	for {
		line, tooLong, err := readLine(in, f.max)
		// Trimmed: the SDK takes nothing but a newline after a message.
		line = bytes.TrimSpace(line)
		if len(line) > 0 || tooLong {
			var reply []byte
			if tooLong {
				reply = errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is longer than %d bytes", f.max))
			} else {
				reply = f.check(line)
			}
			if reply != nil {
				f.out.Write(reply)
			} else {
				f.out.open.read(line)
				if _, werr := sdkIn.Write(append(line, '\n')); werr != nil {
					return // the connection is closed
				}
			}
		}
		if err != nil {
			// Every request read is answered before the SDK sees the end.
			f.out.open.drain(func(reply []byte) error {
				_, err := sdkIn.Write(reply)
				return err
			})
			sdkIn.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line; a line longer than max is
// read to its end and discarded (tooLong).
func readLine(in *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // +2: the line's own "\r\n", trimmed later
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// check is the error reply to line, or nil when the SDK may have it.
func (f *lineFilter) check(line []byte) []byte {
	if !json.Valid(line) {
		return errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	}
	switch line[0] {
	case '{':
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return errorReply(idOf(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		}
		if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(r.Params, &p)
			f.version = p.ProtocolVersion
		}
		return nil
	case '[':
		var batch []json.RawMessage
		json.Unmarshal(line, &batch)
		switch {
		case len(batch) == 0:
			return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
		case f.version == "" || f.version >= "2025-06-18":
			return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported in MCP 2025-06-18 and later")
		}
		seen := map[any]bool{}
		for _, raw := range batch {
			msg, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request in the batch: "+err.Error())
			}
			if r, ok := msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
				if seen[r.ID.Raw()] {
					return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: the batch repeats an id")
				}
				seen[r.ID.Raw()] = true
			}
		}
		return nil
	}
	return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is an object")
}

// idOf is the id of a message, when it is a string or a number (JSON-RPC
// answers an invalid request with its id when it can tell it, else null).
func idOf(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	json.Unmarshal(line, &m)
	switch m.ID.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

func errorReply(id any, code int64, message string) []byte {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id, wireError{code, message}})
	return append(b, '\n')
}
