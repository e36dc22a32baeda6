package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

//go:embed migrations/*.sql
var embedded embed.FS

// migrationFS holds the migrations as NNNN_name.sql files at its root.
var migrationFS = mustSub(embedded, "migrations")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// ErrSchemaTooNew is the cause of the error Open returns for a database whose
// schema was written by a newer propertyd: reading it with older code could
// silently lose data, so the old binary refuses it. Test with errors.Is.
var ErrSchemaTooNew = errors.New("store: database schema is newer than this binary")

// migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads NNNN_name.sql files from fsys sorted by number. A
// file that does not start with a positive number, or two files with the same
// number, are programming errors reported as errors.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".sql" {
			continue
		}
		num, _, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration %q is not named NNNN_name.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("store: migrations %q and %q share version %d", other, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate brings the database up to the newest migration in fsys. Each
// migration runs in its own transaction together with its row in
// schema_migrations, so a failed migration leaves no trace and is retried on
// the next Open; BEGIN IMMEDIATE (the writer's lock mode) serializes two
// processes opening the same new file.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return providers.Wrap(err, providers.KindInternal, "internal_error", "store: bad embedded migrations")
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
	)`); err != nil {
		return dbErr(ctx, err)
	}
	known := 0
	if len(ms) > 0 {
		known = ms[len(ms)-1].version
	}
	for _, m := range ms {
		if err := apply(ctx, db, m, known); err != nil {
			return err
		}
	}
	// A database with no pending migration still needs the version check.
	return checkVersion(ctx, db, known)
}

func apply(ctx context.Context, db *sql.DB, m migration, known int) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return dbErr(ctx, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var current int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return dbErr(ctx, err)
	}
	if current > known {
		return tooNew(current, known)
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", m.version).Scan(&n); err != nil {
		return dbErr(ctx, err)
	}
	if n > 0 {
		return tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return providers.Wrap(fmt.Errorf("migration %s: %w", m.name, err), providers.KindInternal,
			"internal_error", "store: database migration failed")
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.version, m.name); err != nil {
		return dbErr(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return dbErr(ctx, err)
	}
	return nil
}

func checkVersion(ctx context.Context, db *sql.DB, known int) error {
	var current int
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return dbErr(ctx, err)
	}
	if current > known {
		return tooNew(current, known)
	}
	return nil
}

func tooNew(current, known int) error {
	return providers.Wrap(fmt.Errorf("%w: version %d, this binary knows up to %d", ErrSchemaTooNew, current, known),
		providers.KindInternal, "schema_too_new",
		fmt.Sprintf("store: database schema version %d is newer than this binary supports (%d); run a newer propertyd", current, known))
}

// VersionAt reads the schema version of the database file at path without
// opening it for writing or migrating it: 0 when the file holds no
// propertyd schema yet. It lets `propertyd migrate` report what it changed.
func VersionAt(ctx context.Context, path string) (int, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite3", dsn(abs, url.Values{"mode": {"ro"}, "_busy_timeout": {"5000"}}))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var v int
	err = db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("not a propertyd database: %w", err)
	}
	return v, nil
}
