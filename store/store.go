package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/addrsql"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/osmsql"
	"github.com/propertyd/propertyd/store/internal/polysql"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Options tunes a DB. The zero value is the production configuration.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock held by another
	// connection (another process on the same file, or the writer during a
	// checkpoint) before failing. Zero means 5 seconds.
	BusyTimeout time.Duration
	// MaxReaders caps the pool of read-only connections. Zero means
	// max(4, GOMAXPROCS).
	MaxReaders int
	// Synchronous is SQLite's synchronous setting: "NORMAL" (the default,
	// see the package doc on durability) or "FULL" (fsync on every commit,
	// which also survives an operating-system crash).
	Synchronous string
	// Now returns the current time for created_at, updated_at; nil means
	// time.Now. Tests set it to get fixed times.
	Now func() time.Time
}

// DB is a providers.Store on one SQLite file: one writer connection and a
// pool of readers. It is safe for concurrent use; Close it when done.
type DB struct {
	writer  *sql.DB
	readers *sql.DB
	now     func() time.Time
	// busy is the busy timeout: the most a write of a request waits for
	// the write lock, its turn at the writer connection included (see
	// writeConn). writerBusy is the busy timeout the writer connection
	// has now; only its holder reads or sets it.
	busy, writerBusy time.Duration
	// Store is the facts: providers.FactStore, written once for both
	// engines (store/internal/factsql).
	factsql.Store
	// Extracts are the OpenStreetMap extracts: providers.OSMStore,
	// written once for both engines (store/internal/osmsql).
	osmsql.Extracts
	// Layers are the polygon layers: providers.PolygonStore, written
	// once for both engines (store/internal/polysql).
	polysql.Layers
	// Lifecycle is the one loading lifecycle of datasets loaded from
	// files: providers.DatasetStore (store/internal/loadsql).
	loadsql.Lifecycle
	// Addresses are the address points and ranges loaded from files:
	// providers.AddressStore, written once for both engines
	// (store/internal/addrsql).
	addrsql.Addresses

	closeOnce sync.Once
	closeErr  error
}

var (
	_ providers.Store        = (*DB)(nil)
	_ providers.OSMFactStore = (*DB)(nil)
	_ providers.PolygonStore = (*DB)(nil)
	_ providers.DatasetStore = (*DB)(nil)
	_ providers.AddressStore = (*DB)(nil)
)

// Open opens the database at path, creating the file and its folder when
// missing, and applies the migrations the database lacks. It fails when the
// database was written by a newer binary (ErrSchemaTooNew). path is a file
// system path, not a URI; ":memory:" is refused because each pooled
// connection would see a different empty database.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"store: database path %q must be a file path", path)
	}
	syncMode := strings.ToUpper(opts.Synchronous)
	switch syncMode {
	case "":
		syncMode = "NORMAL"
	case "NORMAL", "FULL":
	default:
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"store: synchronous must be NORMAL or FULL, not %q", opts.Synchronous)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	readers := opts.MaxReaders
	if readers <= 0 {
		readers = max(4, runtime.GOMAXPROCS(0))
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}

	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "store: bad database path")
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError,
			"store: cannot create the database folder")
	}

	common := url.Values{}
	common.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	common.Set("_foreign_keys", "on")
	common.Set("_synchronous", syncMode)

	w := cloneValues(common)
	w.Set("_journal_mode", "WAL")
	w.Set("_txlock", "immediate")
	w.Set("_cache_size", strconv.Itoa(-writerCacheKiB))
	writer, err := sql.Open(writerDriver, dsn(abs, w))
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "store: cannot open the database")
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)

	// The writer creates the file, switches it to WAL (persistent in the
	// file) and brings the schema up to date before any reader opens.
	if err := openingRetried(ctx, busy, func() error { return migrate(ctx, writer, migrationFS) }); err != nil {
		writer.Close()
		return nil, err
	}
	// SQLite keeps its old journal mode where WAL is impossible (some network
	// file systems); the concurrency and durability above depend on WAL.
	var mode string
	if err := writer.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		writer.Close()
		return nil, dbErr(ctx, err)
	}
	if !strings.EqualFold(mode, "wal") {
		writer.Close()
		return nil, providers.Errorf(providers.KindInternal, providers.CodeInternalError,
			"store: the database at %s cannot use write-ahead logging (journal mode %q)", abs, mode)
	}

	r := cloneValues(common)
	r.Set("_query_only", "on")
	r.Set("_cache_size", strconv.Itoa(-readerCacheKiB))
	rdb, err := sql.Open(readerDriver, dsn(abs, r))
	if err != nil {
		writer.Close()
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "store: cannot open the database")
	}
	rdb.SetMaxOpenConns(readers)
	rdb.SetMaxIdleConns(readers)
	rdb.SetConnMaxIdleTime(5 * time.Minute)

	db := &DB{writer: writer, readers: rdb, now: now, busy: busy, writerBusy: busy}
	db.Store = factsql.Store{Facts: db.newFacts()}
	db.Extracts = db.newExtracts()
	db.Layers = db.newLayers()
	db.Lifecycle = db.newLifecycle()
	db.Addresses = db.newAddresses()
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.Store.Facts.FillKeys(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openingRetried runs the first use of a new writer connection again
// while SQLite answers it "database is locked", for up to busy. Two
// processes opening one new file at once both switch it to write-ahead
// logging, and SQLite refuses one of them at once rather than through the
// busy handler (waiting could deadlock the two); the second try finds the
// file in WAL and waits for the other's migrations like any writer.
func openingRetried(ctx context.Context, busy time.Duration, open func() error) error {
	deadline := time.Now().Add(busy)
	wait := 5 * time.Millisecond
	for {
		err := open()
		if err == nil || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return dbErr(ctx, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// writeConn returns the writer connection for one write of a request,
// with SQLite's busy timeout set to what is left of db.busy once the
// connection was had: the wait for the writer's one connection (behind
// other requests' writes, each maybe waiting out another process's lock)
// and the wait for the lock itself share one budget, so no write waits
// longer than the busy timeout the README promises. Before, a write
// queued behind one waiting out a data load's lock waited twice as long.
// Running out of the budget is the busy error: database_unavailable, 503
// with Retry-After. done gives the connection back, with the busy timeout
// every other user of the writer expects.
func (db *DB) writeConn(ctx context.Context) (conn *sql.Conn, done func(), err error) {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, db.busy)
	conn, err = db.writer.Conn(wctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, nil, busyError(err)
		}
		return nil, nil, dbErr(ctx, err)
	}
	done = func() {
		if db.writerBusy != db.busy {
			db.setBusy(conn, db.busy)
		}
		conn.Close()
	}
	left := (db.busy - time.Since(start)).Truncate(time.Millisecond)
	if left <= 0 {
		done()
		return nil, nil, busyError(context.DeadlineExceeded)
	}
	if left < db.busy-10*time.Millisecond {
		if err := db.setBusy(conn, left); err != nil {
			done()
			return nil, nil, dbErr(ctx, err)
		}
	}
	return conn, done, nil
}

// setBusy sets the writer connection's busy timeout; the caller holds it.
func (db *DB) setBusy(conn *sql.Conn, d time.Duration) error {
	_, err := conn.ExecContext(context.Background(), "PRAGMA busy_timeout = "+strconv.FormatInt(d.Milliseconds(), 10))
	if err == nil {
		db.writerBusy = d
	}
	return err
}

// busyError is a write that found no turn at the writer within the busy
// timeout, as the busy error of SQLite itself is reported.
func busyError(cause error) error {
	e := providers.Wrap(fmt.Errorf("store: no turn at the writer within the busy timeout: %w", cause),
		providers.KindUnavailable, providers.CodeDatabaseUnavailable, "the database is unavailable")
	e.RetryAfter = busyRetryAfter
	return e
}

// busyRetryAfter is what a client is told to wait (Retry-After) after a
// write found the database locked for the whole busy timeout.
const busyRetryAfter = 5 * time.Second

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// Page cache sizes, in KiB. The writer's is larger so that bulk inserts keep
// the index pages they touch in memory; each reader's holds the upper levels
// of the indexes searches walk. The operating system caches the file too.
const (
	writerCacheKiB = 16 << 10
	readerCacheKiB = 8 << 10
)

// readerMmapBytes is how much of the file each reader maps into memory
// (PRAGMA mmap_size): none. Mapped (2 GiB), the twelve area searches of
// the latency test (store/engine) took 19 to 39 ms (p50) where they take
// 30 to 59 ms unmapped, since an area search reads its rows by id all over
// the table and the 8 MiB page cache cannot hold them. But every mapped
// page a process touches counts in its resident memory: a load of a
// million assessor rows peaked at 501 MB resident with the mapping, and
// the server's resident memory after reading a million records by id
// (held under 300 MB) would grow the same way. The area searches need a
// better plan (reading fewer rows), not the mapping.
const readerMmapBytes = 0

// readerDriver is the driver name the reader pool opens: go-sqlite3 with
// every new connection's file mapped (readerMmapBytes).
const readerDriver = "sqlite3_propertyd_reader"

// writerDriver is the driver name the writer opens: go-sqlite3 whose
// connections may sort with helper threads (PRAGMA threads), one a core
// beyond the first (up to writerSortThreads). SQLite's sorter splits a
// large sort among them, and only a large one: filling an extract's
// buildings' bands (800,000 entries sorted by key) took 1.8 s with one
// helper against 2.2 to 2.8 s alone, on two cores the load leaves the
// second idle for it. Rebuilding the search indexes of a publish sorts too.
const writerDriver = "sqlite3_propertyd_writer"

// writerSortThreads caps the writer's sort helpers.
const writerSortThreads = 4

// The two drivers: go-sqlite3 with a pragma set on each new connection
// (the writer's as the connection opens: GOMAXPROCS may change).
func init() {
	pragma := func(c *sqlite3.SQLiteConn, p string) error {
		_, err := c.Exec("PRAGMA "+p, nil)
		return err
	}
	sql.Register(readerDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return pragma(c, "mmap_size = "+strconv.Itoa(readerMmapBytes))
	}})
	sql.Register(writerDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return pragma(c, "threads = "+strconv.Itoa(writerSortHelpers()))
	}})
}

// writerSortHelpers is the writer's sort helpers: a core beyond the first,
// up to writerSortThreads; 0 (none) on one core.
func writerSortHelpers() int { return max(min(runtime.GOMAXPROCS(0)-1, writerSortThreads), 0) }

// dsn builds a SQLite URI for the file at abs. The path is escaped so that
// characters such as '?' or '#' in a folder name stay part of the path.
func dsn(abs string, params url.Values) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String() + "?" + params.Encode()
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// Ping reports whether the database answers a query. It asks a reader
// connection, so a health check does not queue behind a long write (such as
// SeedProperties) on the single writer connection.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.readers.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return dbErr(ctx, err)
	}
	return nil
}

// Close checkpoints the write-ahead log into the database file, so the file
// alone is a complete copy, then closes both pools. It is idempotent; later
// calls return the first call's result.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		var errs []error
		ctx := context.Background()
		// Readers first: an open read transaction would stop the checkpoint
		// from truncating the log.
		if err := db.readers.Close(); err != nil {
			errs = append(errs, err)
		}
		if _, err := db.writer.ExecContext(ctx, "PRAGMA optimize"); err != nil {
			errs = append(errs, err)
		}
		if _, err := db.writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			errs = append(errs, err)
		}
		if err := db.writer.Close(); err != nil {
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			db.closeErr = providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "database error")
		}
	})
	return db.closeErr
}

// dbErr turns a database error into a *providers.Error as the dialect
// table says (a SQLite file is never unreachable).
func dbErr(ctx context.Context, err error) error { return dialect.Err(ctx, err) }

// timeLayout is how times are stored: UTC, fixed width, milliseconds, so the
// text sorts in time order.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.ParseInLocation(timeLayout, s, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: bad stored time %q: %w", s, err)
	}
	return t, nil
}

// stamp returns the current time truncated to the stored precision, so a
// value returned by a write equals the one read back later.
func (db *DB) stamp() time.Time { return rules.Stamp(db.now()) }
