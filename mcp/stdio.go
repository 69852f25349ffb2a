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
	out := &lineWriter{w: t.Writer}
	pr, pw := io.Pipe()
	f := &lineFilter{out: out, max: max}
	go f.run(bufio.NewReader(t.Reader), pw)
	return (&sdk.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter writes each message with one Write, so that the SDK's
// messages and the filter's errors never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
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
			} else if _, werr := sdkIn.Write(append(line, '\n')); werr != nil {
				return // the connection is closed
			}
		}
		if err != nil {
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
