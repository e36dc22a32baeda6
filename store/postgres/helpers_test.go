package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// freshSchema returns a URL on a schema of the test's own (see pgtest).
func freshSchema(t testing.TB) string { return pgtest.Schema(t) }

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

// openOneConn opens a fresh schema on a pool of one connection, so that a
// test sees what a statement leaves on the connection the next one gets.
func openOneConn(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), freshSchema(t)+"&pool_max_conns=1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
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
