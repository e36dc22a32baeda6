// Package pgtest gives tests a PostgreSQL database of their own: the
// engine's tests, the conformance run and the command's end-to-end tests on
// PostgreSQL. It is the PostgreSQL engine's test kit, the one package
// besides store/postgres that uses the driver, and only tests import it. It
// lives under the module's internal folder, not under store/, because the
// command's tests (cmd/propertyd) need it as much as the store's do.
//
// Tests find the server through PROPERTYD_TEST_POSTGRES, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable; without it they
// skip, saying how to run them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the environment variable that points tests at a PostgreSQL
// server whose user may create schemas in its database.
const Env = "PROPERTYD_TEST_POSTGRES"

// URL returns the test server's URL, or skips the test saying how to run it.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skipf("no PostgreSQL to test against: set %s, e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable (.ci/run starts one)",
			Env, Env)
	}
	return u
}

// Schema creates an empty schema of the test's own, dropped with everything
// in it when the test ends, and returns the server's URL with that schema as
// its search_path: tests run in parallel against one database and leave
// nothing behind. It skips the test when no server is configured.
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "propertyd_test_" + hex.EncodeToString(b)
	exec(t, base, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { exec(t, base, "DROP SCHEMA "+schema+" CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", Env, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs one statement on its own connection to the database at u.
func exec(t testing.TB, u, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connecting to %s: %v", Env, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Exec runs one statement on the database at u (a URL Schema returned, say)
// and fails the test if it fails: for a test that must put a database in a
// state propertyd would not, such as a schema from a newer binary.
func Exec(t testing.TB, u, sql string) { t.Helper(); exec(t, u, sql) }
