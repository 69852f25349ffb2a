package sqlite

import (
	"database/sql"
	"errors"
	"io/fs"
	"syscall"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// unreachable reports whether err says the database file could not be
// used rather than that it refused the statement: it stayed locked past
// the busy timeout, the disk failed or filled up, or the file cannot be
// opened. Such an error is askonce.EUNAVAILABLE (see wrap): the same call
// may succeed once the file is usable again.
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var e *msqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
			sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_READONLY:
			return true
		}
		return false
	}
	var pe *fs.PathError
	return errors.Is(err, sql.ErrConnDone) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EIO) || errors.As(err, &pe)
}
