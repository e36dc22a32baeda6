package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/internal/storetest"
)

// TestWriteLockedOutIsUnavailable: a write that waits its whole busy
// timeout behind another process's transaction (a data load rebuilding the
// search indexes holds one) is database_unavailable, which the gateway
// answers 503 with Retry-After, and it leaves nothing behind.
func TestWriteLockedOutIsUnavailable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "propertyd.db")
	db, err := store.Open(ctx, path, store.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = db.Save(ctx, storetest.NewAt("1 MAIN ST", 39.8, -89.65))
	wantKind(t, err, providers.KindUnavailable, providers.CodeDatabaseUnavailable)
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.RetryAfter <= 0 {
		t.Fatalf("error %v carries no Retry-After", err)
	}
	tx.Rollback()
	if got, _, err := db.Search(ctx, providers.SearchFilter{Zip: "62701", Page: 1, PerPage: 10}); err != nil || len(got) != 0 {
		t.Fatalf("after the refused write: %d records (%v), want none", len(got), err)
	}
	if _, _, err := db.Save(ctx, storetest.NewAt("1 MAIN ST", 39.8, -89.65)); err != nil {
		t.Fatalf("the write once the lock is gone: %v", err)
	}
}
