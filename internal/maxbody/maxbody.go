// Package maxbody limits request bodies the way http.MaxBytesReader does,
// and then reads and discards the rest of a body over the limit (up to
// Discard times the limit) before the handler answers: a client that
// sends its whole body before it reads the response would otherwise meet
// a reset connection instead of the 413, since the server closes a
// connection whose body it left unread.
package maxbody

import (
	"errors"
	"io"
	"net/http"
)

// Discard is how many times the limit is read and discarded of a body
// over it; a larger body may still be cut off.
const Discard = 16

// Reader is http.MaxBytesReader(w, r.Body, n) that, once the limit is
// passed, discards up to Discard*n more bytes of the body before it
// returns the *http.MaxBytesError.
func Reader(w http.ResponseWriter, r *http.Request, n int64) io.ReadCloser {
	return &reader{ReadCloser: http.MaxBytesReader(w, r.Body, n), body: r.Body, n: n}
}

type reader struct {
	io.ReadCloser
	body    io.ReadCloser
	n       int64
	drained bool
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) && !r.drained {
		r.drained = true
		io.CopyN(io.Discard, r.body, Discard*r.n)
	}
	return n, err
}
