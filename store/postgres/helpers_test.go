package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
)

// testServerEnv names the environment variable that points the tests at a
// PostgreSQL server, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable. The user must be
// allowed to create schemas in that database.
const testServerEnv = "PROPERTYD_TEST_POSTGRES"

// serverURL returns the test server's URL, or skips the test saying how to
// run it.
func serverURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(testServerEnv)
	if u == "" {
		t.Skipf("no PostgreSQL to test against: set %s, e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable (.ci/run starts one)",
			testServerEnv, testServerEnv)
	}
	return u
}

// freshSchema creates a schema of its own for the test, dropped with
// everything in it when the test ends, and returns the server's URL with
// that schema as its search_path: tests run in parallel against one
// database and leave nothing behind.
func freshSchema(t testing.TB) string {
	t.Helper()
	base := serverURL(t)
	ctx := context.Background()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "propertyd_test_" + hex.EncodeToString(b)
	admin := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Fatalf("connecting to %s: %v", testServerEnv, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	admin("CREATE SCHEMA " + schema)
	t.Cleanup(func() { admin("DROP SCHEMA " + schema + " CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", testServerEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// openURL opens the database at u and closes it at the end of the test.
func openURL(t testing.TB, u string, now func() time.Time) *DB {
	t.Helper()
	db, err := Open(context.Background(), u, Options{Now: now})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openFresh opens a store on a new schema.
func openFresh(t testing.TB) (*DB, string) {
	t.Helper()
	u := freshSchema(t)
	return openURL(t, u, nil), u
}

func ptr[T any](v T) *T { return &v }

// wantKind fails the test unless err is a *providers.Error of kind and code.
func wantKind(t testing.TB, err error, kind providers.Kind, code string) {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Kind != kind || (code != "" && pe.Code != code) {
		t.Fatalf("error %v, want kind %d code %q", err, kind, code)
	}
}
