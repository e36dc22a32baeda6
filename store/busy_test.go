package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	db, tx := lockedByAnother(t, 100*time.Millisecond)
	_, _, err := db.Save(ctx, storetest.NewAt("1 MAIN ST", 39.8, -89.65))
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

// TestQueuedWritesWaitNoLongerThanTheBusyTimeout: writes queued behind one
// another while another process holds the write lock each give up within
// the busy timeout of their own start, their turn at the writer included,
// as the README promises; not one busy timeout more for each write ahead
// of them.
func TestQueuedWritesWaitNoLongerThanTheBusyTimeout(t *testing.T) {
	ctx := context.Background()
	const busy = 400 * time.Millisecond
	db, tx := lockedByAnother(t, busy)
	const writers = 3
	took := make(chan time.Duration, writers)
	errs := make(chan error, writers)
	for i := range writers {
		go func() {
			start := time.Now()
			var err error
			if i%2 == 0 {
				_, _, err = db.Save(ctx, storetest.NewAt(fmt.Sprintf("%d MAIN ST", i+1), 39.8, -89.65))
			} else {
				err = db.PutSection(ctx, providers.SectionRecord{Section: "flood", Key: fmt.Sprint(i), Data: []byte(`{}`),
					FetchedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)})
			}
			took <- time.Since(start)
			errs <- err
		}()
	}
	for range writers {
		d, err := <-took, <-errs
		wantKind(t, err, providers.KindUnavailable, providers.CodeDatabaseUnavailable)
		if d > busy+250*time.Millisecond {
			t.Errorf("a write waited %v with the busy timeout at %v", d, busy)
		}
	}
	tx.Rollback()
	if _, _, err := db.Save(ctx, storetest.NewAt("9 MAIN ST", 39.8, -89.65)); err != nil {
		t.Fatalf("a write once the lock is gone: %v", err)
	}
}

// lockedByAnother opens a store with the busy timeout busy, and a
// transaction of another connection (another process, as a data load is)
// that holds the write lock until the test rolls it back or ends.
func lockedByAnother(t *testing.T, busy time.Duration) (*store.DB, *sql.Tx) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "propertyd.db")
	db, err := store.Open(context.Background(), path, store.Options{BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	other, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	tx, err := other.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return db, tx
}
