// Package refusal holds back the plain-text refusals (http.Error) that an
// SDK's HTTP handler writes, so that the endpoint around it can send them
// in its protocol's shape: a JSON-RPC error, or an HTTP+JSON binding's.
package refusal

import (
	"bytes"
	"net/http"
	"strings"
)

// Writer passes a response through, except one of status 400 or more
// whose Content-Type is text/plain: that one it holds back, for Held.
type Writer struct {
	http.ResponseWriter
	status int
	msg    bytes.Buffer
}

// WriteHeader holds back a plain-text refusal.
func (w *Writer) WriteHeader(code int) {
	if w.status == 0 && code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write keeps the text of a refusal held back.
func (w *Writer) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.msg.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush flushes what passes through.
func (w *Writer) Flush() {
	if w.status == 0 {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap is the writer wrapped.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Held is the status and the text of the refusal held back; status 0
// when there is none. The caller answers it, through the writer wrapped.
func (w *Writer) Held() (status int, msg string) {
	return w.status, strings.TrimSpace(w.msg.String())
}
