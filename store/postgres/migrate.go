package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

//go:embed migrations/*.sql
var embedded embed.FS

// migrationFS holds the migrations as NNNN_name.sql files at its root.
var migrationFS = func() fs.FS {
	sub, err := fs.Sub(embedded, "migrations")
	if err != nil {
		panic(err)
	}
	return sub
}()

// ErrSchemaTooNew is the cause of the error Open returns for a database whose
// schema was written by a newer propertyd; it is the same error the SQLite
// engine returns. Test with errors.Is.
var ErrSchemaTooNew = rules.ErrSchemaTooNew

// migrateLock is the advisory lock every migration transaction takes first
// (together with the schema's name), so that instances starting at once
// against a new database apply each migration once, one after the other.
const migrateLock = "propertyd migrate "

// migrate brings the database up to the newest migration in fsys. Each
// migration runs in its own transaction together with its row in
// schema_migrations (PostgreSQL's DDL is transactional), so a failed
// migration leaves no trace and is tried again on the next Open.
func migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) error {
	ms, err := rules.LoadMigrations(fsys)
	if err != nil {
		return providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "store: bad embedded migrations")
	}
	known := rules.Latest(ms)
	err = locked(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, queries.CreateMigrations)
		return err
	})
	if err != nil {
		return dbErr(ctx, err)
	}
	for _, m := range ms {
		if err := apply(ctx, pool, m, known); err != nil {
			return err
		}
	}
	// A database with no pending migration still needs the version check.
	current, err := version(ctx, pool)
	if err != nil {
		return dbErr(ctx, err)
	}
	if current > known {
		return rules.TooNew(current, known)
	}
	return nil
}

// locked runs fn in a transaction that first takes the migration lock.
func locked(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1 || current_schema()))", migrateLock); err != nil {
			return err
		}
		return fn(tx)
	})
}

// errApplied ends the transaction of a migration found already applied.
var errApplied = errors.New("already applied")

func apply(ctx context.Context, pool *pgxpool.Pool, m rules.Migration, known int) error {
	err := locked(ctx, pool, func(tx pgx.Tx) error {
		var current int
		if err := tx.QueryRow(ctx, queries.SchemaVersion).Scan(&current); err != nil {
			return err
		}
		if current > known {
			return rules.TooNew(current, known)
		}
		var n int
		if err := tx.QueryRow(ctx, queries.MigrationApplied, m.Version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return errApplied
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return providers.Wrap(fmt.Errorf("migration %s: %w", m.Name, err), providers.KindInternal,
				providers.CodeInternalError, "store: database migration failed")
		}
		_, err := tx.Exec(ctx, queries.RecordMigration, m.Version, m.Name)
		return err
	})
	if errors.Is(err, errApplied) {
		return nil
	}
	return dbErr(ctx, err)
}

// querier is what version needs of a pool or a connection.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// version returns the schema version of the database q is connected to: 0
// when it holds no propertyd schema in the search path.
func version(ctx context.Context, q querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass('schema_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := q.QueryRow(ctx, queries.SchemaVersion).Scan(&v)
	return v, err
}

// VersionAt reads the schema version of the database at url without
// migrating it: 0 when it holds no propertyd schema yet. It lets `propertyd
// migrate` report what it changed. Its errors are those of Open.
func VersionAt(ctx context.Context, url string) (int, error) {
	cfg, err := parseConfig(url)
	if err != nil {
		return 0, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return 0, dbErr(ctx, err)
	}
	defer conn.Close(context.Background())
	v, err := version(ctx, conn)
	return v, dbErr(ctx, err)
}
