// Package engine opens the database propertyd is configured with, on the
// engine its name selects: a postgres:// (or postgresql://) URL opens
// PostgreSQL (package store/postgres), anything else is a SQLite file
// (package store). serve, import, migrate, copy and the benchmarks open
// their databases here and hold them as a Store, so each works on both
// engines and none of them imports a driver.
package engine

import (
	"context"
	"net/url"
	"os"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/postgres"
)

// Store is a database propertyd keeps its records and sections in: the
// providers.Store the service reads and writes through, and the bulk and
// attribute writes of import and the benchmarks. Both engines' DB types
// implement it and are safe for concurrent use.
type Store interface {
	providers.Store
	// SeedProperties inserts records in bulk, all or none, without
	// canonical addresses or keys.
	SeedProperties(ctx context.Context, props []providers.Property) error
	// The assessor datasets and the operator's own facts.
	providers.FactStore
	// The OpenStreetMap extracts.
	providers.OSMStore
	// The layers of polygons loaded from files.
	providers.PolygonStore
	// The one loading lifecycle of datasets loaded from files.
	providers.DatasetStore
	// The address points and ranges loaded from files, and what each
	// serving instance's geocoder answered from them.
	providers.AddressStore
	providers.GeocodeCounter

	// Counts returns how many records and section values the database
	// holds.
	Counts(ctx context.Context) (records, sections int, err error)
	// ListRecords returns up to limit records with ids above afterID, in
	// id order, with their canonical addresses and keys.
	ListRecords(ctx context.Context, afterID int64, limit int) ([]providers.NewProperty, error)
	// CopyRecords writes records as listed, ids included, leaving alone
	// those already present (by id or by address), and adds the keys that
	// do not resolve yet; it returns how many records and keys it added.
	CopyRecords(ctx context.Context, recs []providers.NewProperty) (records, keys int, err error)
	// ListSections returns up to limit section values after (section, key).
	ListSections(ctx context.Context, afterSection, afterKey string, limit int) ([]providers.SectionRecord, error)
	// CopySections writes section values that are absent or fresher than
	// the stored ones; it returns how many it wrote.
	CopySections(ctx context.Context, recs []providers.SectionRecord) (int, error)
}

var (
	_ Store = (*store.DB)(nil)
	_ Store = (*postgres.DB)(nil)
)

// Options tunes Open. The zero value is the production configuration.
type Options struct {
	// Now returns the current time for created_at, updated_at; nil means
	// time.Now.
	Now func() time.Time
	// AnswerTimeout is postgres.Options.AnswerTimeout: how long a
	// PostgreSQL server may take to answer one call made for a request
	// before the store reports it unavailable. SQLite ignores it: its
	// waits are its busy timeout.
	AnswerTimeout time.Duration
}

// IsPostgres reports whether database names a PostgreSQL database rather
// than a SQLite file.
func IsPostgres(database string) bool { return postgres.IsURL(database) }

// Open opens database, applying the migrations it lacks: a PostgreSQL URL
// on that engine (the database must exist; KindUnavailable when the server
// cannot be reached or has no such database), otherwise a SQLite file,
// created with its folder when missing. Either refuses a database written
// by a newer binary (ErrSchemaTooNew). On error the Store is a nil
// interface, never an engine's nil *DB inside one, so a caller's nil check
// holds.
func Open(ctx context.Context, database string, opts Options) (Store, error) {
	if IsPostgres(database) {
		return opened(postgres.Open(ctx, database, postgres.Options{Now: opts.Now, AnswerTimeout: opts.AnswerTimeout}))
	}
	return opened(store.Open(ctx, database, store.Options{Now: opts.Now}))
}

// opened returns an engine's Open result as a Store: nil, not a typed nil
// pointer, with the error.
func opened[DB Store](db DB, err error) (Store, error) {
	if err != nil {
		return nil, err
	}
	return db, nil
}

// ErrSchemaTooNew is the cause of the error Open returns for a database
// written by a newer propertyd, on either engine. Test with errors.Is.
var ErrSchemaTooNew = store.ErrSchemaTooNew

// Version reads the schema version of database without migrating it, and
// whether it already held a propertyd database: a SQLite file that exists,
// a PostgreSQL database whose schema has a version. An unreadable database
// counts as version 0; Open reports what is wrong with it.
func Version(ctx context.Context, database string) (version int, exists bool) {
	if IsPostgres(database) {
		v, err := postgres.VersionAt(ctx, database)
		if err != nil {
			return 0, false
		}
		return v, v > 0
	}
	if _, err := os.Stat(database); err != nil {
		return 0, false
	}
	v, _ := store.VersionAt(ctx, database)
	return v, true
}

// VersionOf reads the schema version of database as Version does, but
// reports why it cannot be read.
func VersionOf(ctx context.Context, database string) (int, error) {
	if IsPostgres(database) {
		return postgres.VersionAt(ctx, database)
	}
	return store.VersionAt(ctx, database)
}

// Describe returns database as it may be printed or logged: a URL with its
// password masked, a file path as it is.
func Describe(database string) string {
	if !IsPostgres(database) {
		return database
	}
	u, err := url.Parse(database)
	if err != nil {
		return "a PostgreSQL URL that does not parse"
	}
	return u.Redacted()
}
