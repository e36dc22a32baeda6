package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/addrsql"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/osmsql"
	"github.com/propertyd/propertyd/store/internal/polysql"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Options tunes a DB. The zero value is the production configuration; the
// pool's size and timeouts can also be set in the URL (pool_max_conns,
// connect_timeout and the other parameters PostgreSQL clients know).
type Options struct {
	// Now returns the current time for created_at, updated_at; nil means
	// time.Now. Tests set it to get fixed times.
	Now func() time.Time
	// AnswerTimeout bounds how long the server may take to answer one
	// statement, batch or copy, or to hand out a connection, in a call
	// whose context has a deadline (one made for a request); past it the
	// call fails as KindUnavailable (database_unavailable) with RetryAfter,
	// as for a server that refuses connections. 0 means no bound but the
	// caller's context. Calls without a deadline (the data commands,
	// migrations) are never bounded.
	AnswerTimeout time.Duration
}

// DB is a providers.Store on a PostgreSQL database, through a pool of
// connections. It is safe for concurrent use; Close it when done.
type DB struct {
	pool *pgxpool.Pool
	now  func() time.Time
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
}

var (
	_ providers.Store        = (*DB)(nil)
	_ providers.OSMFactStore = (*DB)(nil)
	_ providers.PolygonStore = (*DB)(nil)
	_ providers.DatasetStore = (*DB)(nil)
	_ providers.AddressStore = (*DB)(nil)
)

// defaultConnectTimeout bounds connecting when the URL does not say, so a
// database host that does not answer fails start-up and health checks in
// seconds instead of hanging.
const defaultConnectTimeout = 5 * time.Second

// IsURL reports whether database names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsURL(database string) bool {
	d := strings.ToLower(database)
	return strings.HasPrefix(d, "postgres://") || strings.HasPrefix(d, "postgresql://")
}

// parseConfig parses a postgres:// URL into a pool configuration.
func parseConfig(url string) (*pgxpool.Config, error) {
	if !IsURL(url) {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"store: the PostgreSQL database must be a postgres:// URL")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn masks the password in its message.
		return nil, providers.Wrap(err, providers.KindInvalid, providers.CodeInvalidConfig, "store: the database URL is not valid")
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	return cfg, nil
}

// Open connects to the database at url (postgres://user@host:port/db?...)
// and applies the migrations it lacks. The database itself must exist. It
// fails with KindUnavailable (database_unavailable) when the server cannot
// be reached, KindInvalid for a malformed URL, and ErrSchemaTooNew when the
// database was written by a newer binary.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	cfg, err := parseConfig(url)
	if err != nil {
		return nil, err
	}
	if opts.AnswerTimeout > 0 {
		cfg.ConnConfig.Tracer = answerBound{d: opts.AnswerTimeout}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	db := &DB{pool: pool, now: now}
	db.Store = factsql.Store{Facts: db.newFacts()}
	db.Extracts = db.newExtracts()
	db.Layers = db.newLayers()
	db.Lifecycle = db.newLifecycle()
	db.Addresses = db.newAddresses()
	if err := migrate(ctx, pool, migrationFS); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.Store.Facts.FillKeys(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Ping reports whether the database answers a query: KindUnavailable when
// it cannot be reached.
func (db *DB) Ping(ctx context.Context) error {
	return dbErr(ctx, db.pool.Ping(ctx))
}

// Close closes every connection of the pool, waiting for those in use to
// be returned. It is idempotent and always returns nil: the server keeps
// nothing that closing could fail to write.
func (db *DB) Close() error {
	db.closeOnce.Do(db.pool.Close)
	return nil
}

// RetryAfter is what a client is told to wait (Retry-After) when the
// database cannot be reached: pgxpool dials again on the next request, so a
// server that is back is used within this time, without a restart.
const RetryAfter = 5 * time.Second

// dbErr turns a database error into a *providers.Error as the dialect
// table says: an unreachable database is KindUnavailable
// (database_unavailable) with RetryAfter.
func dbErr(ctx context.Context, err error) error { return dialect.Err(ctx, err) }

// unreachable reports whether err says the server could not be reached or
// went away, rather than that a statement failed: a failed connection
// attempt, a network error or a connection closed under the query, and the
// server's own refusals (class 08 connection exceptions, 53 insufficient
// resources such as too many connections, and 57P01-57P03: shutting down,
// crashed, starting up), and a server that refuses the connection itself:
// no such database (3D000) or credentials it does not accept (class 28).
// None of those is propertyd's fault, and each passes once the server or
// the URL is put right.
func unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "53"),
			strings.HasPrefix(pgErr.Code, "28"), pgErr.Code == "3D000",
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03":
			return true
		}
		return false
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// isRetryable reports whether a write transaction lost a race the server
// resolved by aborting it (deadlock or serialization failure) and can
// simply run again.
func isRetryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// stamp returns the current time as stored.
func (db *DB) stamp() time.Time { return rules.Stamp(db.now()) }

// inTx runs fn in a read-committed transaction, committing when it returns
// nil, and runs it again (up to three times in all) when the server aborted
// it for a deadlock or serialization failure.
func (db *DB) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for range 3 {
		err = pgx.BeginFunc(ctx, db.pool, fn)
		if !isRetryable(err) || ctx.Err() != nil {
			break
		}
	}
	return dbErr(ctx, err)
}
