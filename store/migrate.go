package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
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
// silently lose data, so the old binary refuses it. Test with errors.Is; it
// is the same error the PostgreSQL engine returns.
var ErrSchemaTooNew = rules.ErrSchemaTooNew

// loadMigrations reads the NNNN_name.sql files of fsys in version order.
func loadMigrations(fsys fs.FS) ([]rules.Migration, error) { return rules.LoadMigrations(fsys) }

// migrate brings the database up to the newest migration in fsys. Each
// migration runs in its own transaction together with its row in
// schema_migrations, so a failed migration leaves no trace and is retried on
// the next Open; BEGIN IMMEDIATE (the writer's lock mode) serializes two
// processes opening the same new file.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "store: bad embedded migrations")
	}
	if _, err := db.ExecContext(ctx, queries.CreateMigrations); err != nil {
		return dbErr(ctx, err)
	}
	known := rules.Latest(ms)
	for _, m := range ms {
		if err := apply(ctx, db, m, known); err != nil {
			return err
		}
	}
	// A database with no pending migration still needs the version check.
	return checkVersion(ctx, db, known)
}

func apply(ctx context.Context, db *sql.DB, m rules.Migration, known int) (err error) {
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
	if err := tx.QueryRowContext(ctx, queries.SchemaVersion).Scan(&current); err != nil {
		return dbErr(ctx, err)
	}
	if current > known {
		return rules.TooNew(current, known)
	}
	var n int
	if err := tx.QueryRowContext(ctx, queries.MigrationApplied, m.Version).Scan(&n); err != nil {
		return dbErr(ctx, err)
	}
	if n > 0 {
		return tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return providers.Wrap(fmt.Errorf("migration %s: %w", m.Name, err), providers.KindInternal,
			providers.CodeInternalError, "store: database migration failed")
	}
	if _, err := tx.ExecContext(ctx, queries.RecordMigration, m.Version, m.Name); err != nil {
		return dbErr(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return dbErr(ctx, err)
	}
	return nil
}

func checkVersion(ctx context.Context, db *sql.DB, known int) error {
	var current int
	if err := db.QueryRowContext(ctx, queries.SchemaVersion).Scan(&current); err != nil {
		return dbErr(ctx, err)
	}
	if current > known {
		return rules.TooNew(current, known)
	}
	return nil
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
	err = db.QueryRowContext(ctx, queries.SchemaVersion).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("not a propertyd database: %w", err)
	}
	return v, nil
}
