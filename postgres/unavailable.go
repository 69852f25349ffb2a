package postgres

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// unreachable reports whether err says the database could not be reached
// rather than that it refused the statement: no connection could be made,
// one broke, or the server is shutting down, starting or full. Such an
// error is askonce.EUNAVAILABLE (see wrap): the same call may succeed once
// the server is back.
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	switch code := pgCode(err); {
	case strings.HasPrefix(code, "08"): // connection exception
		return true
	case code == "57P01", code == "57P02", code == "57P03": // admin or crash shutdown, cannot connect now
		return true
	case code == "53300": // too many connections
		return true
	}
	// pgconn reports a connection it closed after a failure as "conn
	// closed", without a type to match.
	return strings.Contains(err.Error(), "conn closed")
}
