// Package walvfs registers a SQLite VFS that writes a transaction's WAL
// frames to the file in one system call instead of two per frame.
//
// SQLite appends each frame of a commit to the WAL with two writes, the
// 24-byte frame header and then the page, so a round trip's 14 frames cost
// 28 pwrite64 calls, a quarter of its CPU on a virtual machine
// (docs/benchmarks.md). This VFS is the host's default ("unix") with the
// WAL file's writes gathered in memory while the connection holds the WAL
// write lock and written at once, at the same offsets, when the commit
// frame's page arrives: before SQLite publishes the commit in the
// wal-index, where readers look. The file's bytes, the syncs and their
// order relative to the commit are what the default VFS writes; only the
// number of writes changes.
//
// Gathered bytes never outlive what SQLite expects of them:
//   - the commit frame's page writes everything gathered (a commit frame
//     is the one whose header holds the database size, WAL format);
//   - any other call on the WAL file (read, sync, truncate, size, file
//     control, close) and any write that does not continue the gathered
//     bytes writes them first;
//   - releasing the WAL write lock (a transaction that spilled frames and
//     rolled back) writes them before the lock is let go, so another
//     connection's commit is never overwritten by stale frames;
//   - a commit frame's header that starts nothing gathered (the checksum
//     rewrite after an overwritten frame) is written through at once.
package walvfs

import (
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Name is the VFS's name, for the vfs parameter of a connection string.
const Name = "askonce-wal"

const (
	frameHeader = 24 // bytes of a WAL frame's header
	// maxGather is the most bytes gathered before they are written: the
	// most the default VFS writes in one call (its seekAndWriteFd keeps
	// 17 bits of a write's length).
	maxGather    = 1<<17 - 1
	walWriteLock = 0 // the wal-index lock a writer holds (WAL_WRITE_LOCK)
)

// state is what this VFS keeps in each file it opens, past the default
// VFS's own object.
type state struct {
	peer  uintptr // a WAL file's database file, a database file's WAL file
	buf   uintptr // SQLite's memory for maxGather gathered bytes, from the first write
	start int64   // the file offset of buf's first byte
	n     int32   // bytes gathered
	// commit: the last gathered write was a commit frame's header, so the
	// next is its page.
	commit bool
}

var (
	once   sync.Once
	regErr error

	vfs      sqlite3.Tsqlite3_vfs // ours: the default's, with xOpen below
	base     uintptr              // the default VFS
	baseOpen uintptr
	tail     uintptr // offset of a file's state

	methodsMu sync.Mutex
	// The default VFS's methods for each kind of file, and ours for it.
	walBase, dbBase uintptr
	walOwn, dbOwn   sqlite3.Tsqlite3_io_methods
	walOrig         sqlite3.Tsqlite3_io_methods
	dbShmLock       uintptr
	dbClose         uintptr
	// A test's view of the writes to WAL files and of the releases of
	// the write lock.
	written  func(n int32, off int64)
	released func()
)

// Register registers the VFS once per process; later calls return the
// first call's result.
func Register() error {
	once.Do(func() { regErr = register() })
	return regErr
}

func register() error {
	tls := libc.NewTLS()
	defer tls.Close()
	base = sqlite3.Xsqlite3_vfs_find(tls, 0)
	if base == 0 {
		return fmt.Errorf("walvfs: SQLite has no default VFS")
	}
	vfs = *(*sqlite3.Tsqlite3_vfs)(ptr(base))
	if vfs.FiVersion < 1 || vfs.FxOpen == 0 {
		return fmt.Errorf("walvfs: the default VFS has no xOpen")
	}
	baseOpen = vfs.FxOpen
	tail = (uintptr(vfs.FszOsFile) + 7) &^ 7
	vfs.FszOsFile = int32(tail + unsafe.Sizeof(state{}))
	vfs.FpNext = 0
	name, err := libc.CString(Name)
	if err != nil {
		return err
	}
	vfs.FzName = name
	vfs.FxOpen = fp(xOpen)
	if rc := sqlite3.Xsqlite3_vfs_register(tls, uintptr(unsafe.Pointer(&vfs)), 0); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("walvfs: sqlite3_vfs_register: code %d", rc)
	}
	return nil
}

// ptr is p as a pointer: p is SQLite's memory, which Go's collector
// neither moves nor frees.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// fp is f as SQLite's transpiled code holds a function pointer.
func fp(f any) uintptr { return (*[2]uintptr)(unsafe.Pointer(&f))[1] }

// call is the function p points to (fp's inverse), of type F.
func call[F any](p uintptr) F { return *(*F)(unsafe.Pointer(&p)) }

// The default VFS's methods' types.
type (
	closeFunc = func(*libc.TLS, uintptr) int32
	ioFunc    = func(*libc.TLS, uintptr, uintptr, int32, int64) int32 // xRead, xWrite
)

func stateOf(file uintptr) *state { return (*state)(ptr(file + tail)) }

func methodsOf(file uintptr) uintptr { return (*sqlite3.Tsqlite3_file)(ptr(file)).FpMethods }

func xOpen(tls *libc.TLS, _ uintptr, name uintptr, file uintptr, flags int32, outFlags uintptr) int32 {
	*stateOf(file) = state{}
	rc := call[func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32](baseOpen)(tls, base, name, file, flags, outFlags)
	if rc != sqlite3.SQLITE_OK || methodsOf(file) == 0 {
		return rc
	}
	switch {
	case flags&sqlite3.SQLITE_OPEN_MAIN_DB != 0:
		if m := ownDB(methodsOf(file)); m != 0 {
			(*sqlite3.Tsqlite3_file)(ptr(file)).FpMethods = m
		}
	case flags&sqlite3.SQLITE_OPEN_WAL != 0:
		// SQLite opens a WAL into the object right past its Wal, which
		// names the database file: the file whose write lock bounds
		// how long bytes may stay gathered.
		wal := (*sqlite3.TWal)(ptr(file - unsafe.Sizeof(sqlite3.TWal{})))
		if wal.FpWalFd != file || wal.FpDbFd == 0 || methodsOf(wal.FpDbFd) != uintptr(unsafe.Pointer(&dbOwn)) {
			return rc // written as the default VFS writes it
		}
		m := ownWAL(methodsOf(file))
		if m == 0 {
			return rc
		}
		s := stateOf(file)
		s.peer = wal.FpDbFd
		stateOf(wal.FpDbFd).peer = file
		(*sqlite3.Tsqlite3_file)(ptr(file)).FpMethods = m
	}
	return rc
}

// ownDB returns our methods for database files whose default methods
// are m, or 0 when m is not the kind this package has wrapped.
func ownDB(m uintptr) uintptr {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	if dbBase == 0 {
		orig := *(*sqlite3.Tsqlite3_io_methods)(ptr(m))
		if orig.FiVersion < 2 || orig.FxShmLock == 0 {
			return 0
		}
		dbBase, dbShmLock, dbClose, dbOwn = m, orig.FxShmLock, orig.FxClose, orig
		dbOwn.FxShmLock = fp(xShmLock)
		dbOwn.FxClose = fp(xCloseDB)
	}
	if m != dbBase {
		return 0
	}
	return uintptr(unsafe.Pointer(&dbOwn))
}

// ownWAL is ownDB for WAL files.
func ownWAL(m uintptr) uintptr {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	if walBase == 0 {
		walBase, walOrig = m, *(*sqlite3.Tsqlite3_io_methods)(ptr(m))
		walOwn = walOrig
		walOwn.FxClose = fp(xClose)
		walOwn.FxRead = fp(xRead)
		walOwn.FxWrite = fp(xWrite)
		walOwn.FxTruncate = fp(xTruncate)
		walOwn.FxSync = fp(xSync)
		walOwn.FxFileSize = fp(xFileSize)
		walOwn.FxFileControl = fp(xFileControl)
	}
	if m != walBase {
		return 0
	}
	return uintptr(unsafe.Pointer(&walOwn))
}

// write is the default VFS's xWrite.
func write(tls *libc.TLS, file, buf uintptr, n int32, off int64) int32 {
	if written != nil {
		written(n, off)
	}
	return call[ioFunc](walOrig.FxWrite)(tls, file, buf, n, off)
}

// flush writes what file has gathered.
func flush(tls *libc.TLS, file uintptr) int32 {
	s := stateOf(file)
	s.commit = false
	if s.n == 0 {
		return sqlite3.SQLITE_OK
	}
	n := s.n
	s.n = 0
	return write(tls, file, s.buf, n, s.start)
}

func xWrite(tls *libc.TLS, file, buf uintptr, n int32, off int64) int32 {
	s := stateOf(file)
	if s.n > 0 && off != s.start+int64(s.n) {
		if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	commitHeader := n == frameHeader && binary.BigEndian.Uint32(unsafe.Slice((*byte)(ptr(buf)), frameHeader)[4:8]) != 0
	if s.n == 0 && (commitHeader || s.commit) {
		// Nothing may wait behind a commit frame: its header alone, or its
		// page after a header written alone, goes through now.
		s.commit = commitHeader
		return write(tls, file, buf, n, off)
	}
	if s.n+n > maxGather || !s.allocated(tls) {
		// No room (past maxGather, or no memory): what is gathered goes
		// first, then this write alone.
		if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
			return rc
		}
		s.commit = commitHeader
		return write(tls, file, buf, n, off)
	}
	if s.n == 0 {
		s.start = off
	}
	copy(unsafe.Slice((*byte)(ptr(s.buf+uintptr(s.n))), n), unsafe.Slice((*byte)(ptr(buf)), n))
	s.n += n
	if s.commit {
		// The commit frame's page: the transaction's frames reach the
		// file before SQLite publishes it.
		return flush(tls, file)
	}
	s.commit = commitHeader
	return sqlite3.SQLITE_OK
}

// allocated reports whether s has its buffer, allocating it on a WAL
// file's first write (only a connection that writes has one).
func (s *state) allocated(tls *libc.TLS) bool {
	if s.buf == 0 {
		s.buf = sqlite3.Xsqlite3_malloc64(tls, maxGather)
	}
	return s.buf != 0
}

// unlink ends the link between file and its peer, as one of them closes.
func unlink(file uintptr) {
	s := stateOf(file)
	if s.peer != 0 && stateOf(s.peer).peer == file {
		stateOf(s.peer).peer = 0
	}
	s.peer = 0
}

func xClose(tls *libc.TLS, file uintptr) int32 {
	rc := flush(tls, file)
	s := stateOf(file)
	if s.buf != 0 {
		sqlite3.Xsqlite3_free(tls, s.buf)
		s.buf = 0
	}
	unlink(file)
	if crc := call[closeFunc](walOrig.FxClose)(tls, file); rc == sqlite3.SQLITE_OK {
		rc = crc
	}
	return rc
}

func xRead(tls *libc.TLS, file, buf uintptr, n int32, off int64) int32 {
	if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return call[ioFunc](walOrig.FxRead)(tls, file, buf, n, off)
}

func xTruncate(tls *libc.TLS, file uintptr, size int64) int32 {
	if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return call[func(*libc.TLS, uintptr, int64) int32](walOrig.FxTruncate)(tls, file, size)
}

func xSync(tls *libc.TLS, file uintptr, flags int32) int32 {
	if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return call[func(*libc.TLS, uintptr, int32) int32](walOrig.FxSync)(tls, file, flags)
}

func xFileSize(tls *libc.TLS, file, size uintptr) int32 {
	if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return call[func(*libc.TLS, uintptr, uintptr) int32](walOrig.FxFileSize)(tls, file, size)
}

func xFileControl(tls *libc.TLS, file uintptr, op int32, arg uintptr) int32 {
	if rc := flush(tls, file); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return call[func(*libc.TLS, uintptr, int32, uintptr) int32](walOrig.FxFileControl)(tls, file, op, arg)
}

// xCloseDB is a database file's xClose. SQLite closes a database's WAL
// first; should it not, the WAL forgets the file here.
func xCloseDB(tls *libc.TLS, file uintptr) int32 {
	unlink(file)
	return call[closeFunc](dbClose)(tls, file)
}

// xShmLock is a database file's: releasing the WAL write lock first
// writes what its WAL gathered (frames of a transaction that rolled
// back), while no other connection can write the WAL.
func xShmLock(tls *libc.TLS, file uintptr, offset, n, flags int32) int32 {
	if offset == walWriteLock && flags == sqlite3.SQLITE_SHM_UNLOCK|sqlite3.SQLITE_SHM_EXCLUSIVE {
		if released != nil {
			released()
		}
		if wal := stateOf(file).peer; wal != 0 {
			flush(tls, wal)
		}
	}
	return call[func(*libc.TLS, uintptr, int32, int32, int32) int32](dbShmLock)(tls, file, offset, n, flags)
}
