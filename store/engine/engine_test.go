package engine

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestDescribeMasksPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"data/propertyd.db": "data/propertyd.db",
		"postgres://propertyd:s3cret@db.internal:5432/propertyd?sslmode=require": "postgres://propertyd:xxxxx@db.internal:5432/propertyd?sslmode=require",
		"postgresql://db/propertyd": "postgresql://db/propertyd",
		"postgres://u:p@[::1":       "a PostgreSQL URL that does not parse",
	} {
		if got := Describe(in); got != want {
			t.Errorf("Describe(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTheNameChoosesTheEngine(t *testing.T) {
	for in, pg := range map[string]bool{
		"data/propertyd.db": false, "postgres.db": false, "./postgres://x": false,
		"postgres://h/db": true, "POSTGRESQL://h/db": true,
	} {
		if IsPostgres(in) != pg {
			t.Errorf("IsPostgres(%q) = %v, want %v", in, !pg, pg)
		}
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	if v, exists := Version(ctx, path); v != 0 || exists {
		t.Fatalf("Version of a missing file = %d, %v", v, exists)
	}
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open of a file path: %v", err)
	}
	db.Close()
	if v, exists := Version(ctx, path); v != 25 || !exists {
		t.Fatalf("Version after Open = %d, %v; want 25 and existing", v, exists)
	}
}

// A failed Open returns a nil Store, not an engine's nil *DB inside the
// interface: callers check db != nil before closing it.
func TestAFailedOpenReturnsANilStore(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, database := range []string{
		"postgres://postgres@" + closed + "/x?sslmode=disable",
		filepath.Join(file, "sub", "p.db"),
	} {
		db, err := Open(context.Background(), database, Options{})
		if err == nil || db != nil {
			t.Errorf("Open(%q) = %#v, %v; want a nil Store and the error", database, db, err)
		}
	}
}
