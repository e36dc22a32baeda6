package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// A schema version must mean the same on both engines: the PostgreSQL
// migrations carry exactly the numbers and names of SQLite's.
func TestMigrationsAreNumberedAsSQLites(t *testing.T) {
	mine, err := rules.LoadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	sqlite, err := rules.LoadMigrations(os.DirFS("../migrations"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(ms []rules.Migration) (out []string) {
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	if !reflect.DeepEqual(names(mine), names(sqlite)) || len(mine) == 0 {
		t.Fatalf("PostgreSQL migrations %v, SQLite's %v; every SQLite migration needs its PostgreSQL twin", names(mine), names(sqlite))
	}
}

// embeddedVersions are the versions of the embedded migrations, in order:
// what a database holds once Open migrated it (gaps allowed, as SQLite's).
func embeddedVersions(t *testing.T) []int {
	t.Helper()
	ms, err := rules.LoadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	var vs []int
	for _, m := range ms {
		vs = append(vs, m.Version)
	}
	return vs
}

func appliedVersions(t *testing.T, db *DB) []int {
	t.Helper()
	rows, err := db.pool.Query(context.Background(), "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return vs
}

func TestVersionAtReportsWhatOpenApplied(t *testing.T) {
	ctx := context.Background()
	u := freshSchema(t)
	if v, err := VersionAt(ctx, u); err != nil || v != 0 {
		t.Fatalf("VersionAt of an empty schema = %d, %v; want 0", v, err)
	}
	want := embeddedVersions(t)
	for range 3 {
		db := openURL(t, u, nil)
		if got := appliedVersions(t, db); !reflect.DeepEqual(got, want) {
			t.Fatalf("schema_migrations holds %v, want %v exactly once each", got, want)
		}
		db.Close()
	}
	if v, err := VersionAt(ctx, u); err != nil || v != want[len(want)-1] {
		t.Fatalf("VersionAt after Open = %d, %v; want %d", v, err, want[len(want)-1])
	}
}

// Instances started together against a new database migrate it once.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	u := freshSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() {
			db, err := Open(context.Background(), u, Options{})
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d of 6 at once: %v", i, err)
		}
	}
	db := openURL(t, u, nil)
	if got, want := appliedVersions(t, db), embeddedVersions(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("schema_migrations holds %v after concurrent opens, want %v", got, want)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	db, u := openFresh(t)
	if _, err := db.pool.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(ctx, u, Options{})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open of a database from a newer binary: %v, want ErrSchemaTooNew", err)
	}
	wantKind(t, err, providers.KindInternal, "schema_too_new")
}

func TestMigrationFailureLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	db, _ := openFresh(t)
	// The embedded migrations as applied already ("SELECT 1", skipped),
	// then a good one and a failing one past them.
	files := mapFS{}
	want := embeddedVersions(t)
	for _, v := range want {
		files[fmt.Sprintf("%04d_done.sql", v)] = "SELECT 1"
	}
	next := want[len(want)-1] + 1
	files[fmt.Sprintf("%04d_ok.sql", next)] = "CREATE TABLE t4 (x int)"
	files[fmt.Sprintf("%04d_bad.sql", next+1)] = "CREATE TABLE t5 (x int); INSERT INTO no_such_table VALUES (1)"
	want = append(want, next)
	err := migrate(ctx, db.pool, fs.FS(files.fs()))
	wantKind(t, err, providers.KindInternal, "internal_error")
	if got := appliedVersions(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("applied %v after a failing migration, want %v", got, want)
	}
	var t5 bool
	if err := db.pool.QueryRow(ctx, "SELECT to_regclass('t5') IS NOT NULL").Scan(&t5); err != nil || t5 {
		t.Fatalf("table of the failed migration exists (%v, %v); the migration must roll back whole", t5, err)
	}
}

func TestOpenRefusesWhatIsNotAPostgresURL(t *testing.T) {
	for _, u := range []string{"", "data/propertyd.db", "postgres://[::1", "postgres://h/db?sslmode=bogus"} {
		_, err := Open(context.Background(), u, Options{})
		wantKind(t, err, providers.KindInvalid, "invalid_config")
	}
}
