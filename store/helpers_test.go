package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/internal/storetest"
)

// openAt opens (or reopens) the database at path and closes it at the end of
// the test.
func openAt(t testing.TB, path string) *store.DB {
	t.Helper()
	return openWithNow(t, path, nil)
}

// openWithNow opens the database at path with now as its clock (nil means
// time.Now) and closes it at the end of the test.
func openWithNow(t testing.TB, path string, now func() time.Time) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Now: now})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openTemp opens a fresh database in a temporary folder.
func openTemp(t testing.TB) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "propertyd.db")
	return openAt(t, path), path
}

// wantKind fails the test unless err is a *providers.Error of kind and code.
func wantKind(t testing.TB, err error, kind providers.Kind, code string) {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *providers.Error kind %d code %q", err, err, kind, code)
	}
	if pe.Kind != kind || (code != "" && pe.Code != code) {
		t.Fatalf("error kind %d code %q (%v), want kind %d code %q", pe.Kind, pe.Code, err, kind, code)
	}
}

// whiteHouse and newAt are the behaviour table's records.
var (
	whiteHouse = storetest.WhiteHouse
	newAt      = storetest.NewAt
)
