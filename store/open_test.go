package store_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/internal/storetest"
)

// What a reopened database still holds is in the behaviour table both
// engines run (storetest, ReopenedDatabaseKeepsEverything); what is
// SQLite's own is here: Open makes the missing folders, and Close
// checkpoints the write-ahead log into the file.
func TestOpenMakesFoldersAndCloseCheckpoints(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "nested", "propertyd.db") // folders do not exist yet
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("Open with a missing folder: %v", err)
	}
	saved, _, err := db.Save(ctx, providers.NewProperty{Property: storetest.WhiteHouse(), Canonical: "WH", Keys: []string{"wh key"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Fatalf("write-ahead log is %d bytes after Close; Close must checkpoint it", fi.Size())
	}
	db, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, err := db.Property(ctx, saved.ID); err != nil || !reflect.DeepEqual(got, saved) {
		t.Fatalf("after reopening: Property = %+v, %v; want %+v", got, err, saved)
	}
}

func TestOpenRefusesPathsThatAreNotFiles(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file:x.db?mode=memory"} {
		_, err := store.Open(context.Background(), p, store.Options{})
		wantKind(t, err, providers.KindInvalid, "invalid_config")
	}
	_, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), store.Options{Synchronous: "OFF"})
	wantKind(t, err, providers.KindInvalid, "invalid_config")
}

func TestOpenHandlesPathsWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a?b#c d%20")
	path := filepath.Join(dir, "p.db")
	db := openAt(t, path)
	if _, _, err := db.Save(ctx, newAt("1 MAIN ST", 1, 1)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at %q: %v", path, err)
	}
	db = openAt(t, path)
	if n := total(t, db, providers.SearchFilter{}); n != 1 {
		t.Fatalf("%d records after reopening %q, want 1", n, path)
	}
}

func TestFullSynchronousOpens(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), store.Options{Synchronous: "full", MaxReaders: 1, BusyTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := db.Save(context.Background(), newAt("1 MAIN ST", 1, 1)); err != nil {
		t.Fatal(err)
	}
}

// Two processes opening one new database at once (two commands started
// together, or a server and a migrate) both get it: SQLite refuses one
// of two connections that switch a new file to write-ahead logging at the
// same moment without waiting, and Open waits for the other instead of
// failing with "database is locked".
func TestOpeningANewDatabaseTogetherSucceeds(t *testing.T) {
	for round := range 20 {
		path := filepath.Join(t.TempDir(), "p.db")
		const n = 4
		errs := make([]error, n)
		dbs := make([]*store.DB, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dbs[i], errs[i] = store.Open(context.Background(), path, store.Options{})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: opener %d of %d: %v", round, i+1, n, err)
			}
			if err := dbs[i].Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
