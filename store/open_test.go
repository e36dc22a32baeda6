package store_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
)

func TestEverythingSurvivesCloseAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "nested", "propertyd.db") // folders do not exist yet
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("Open with a missing folder: %v", err)
	}
	saved, _, err := db.Save(ctx, providers.NewProperty{Property: whiteHouse(), Canonical: "WH", Keys: []string{"wh key"}})
	if err != nil {
		t.Fatal(err)
	}
	sec := providers.SectionRecord{Section: "flood", Key: "38.89766,-77.03657", Data: []byte(`{"zone":"X"}`),
		Source: "fema-nfhl", FetchedAt: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)}
	if err := db.PutSection(ctx, sec); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if fi, _ := os.Stat(path + "-wal"); fi.Size() != 0 {
			t.Fatalf("write-ahead log is %d bytes after Close; Close must checkpoint it", fi.Size())
		}
	}

	for round := range 3 { // reopening runs no migration twice
		db := openAt(t, path)
		got, err := db.Property(ctx, saved.ID)
		if err != nil || !reflect.DeepEqual(got, saved) {
			t.Fatalf("reopen %d: Property = %+v, %v; want %+v", round, got, err, saved)
		}
		if got, err := db.PropertyByKey(ctx, "wh key"); err != nil || got.ID != saved.ID {
			t.Fatalf("reopen %d: key resolves to %+v, %v", round, got, err)
		}
		if got, err := db.Nearest(ctx, saved.Point(), 10); err != nil || got.ID != saved.ID {
			t.Fatalf("reopen %d: Nearest = %+v, %v", round, got, err)
		}
		if got, err := db.Section(ctx, "flood", "38.89766,-77.03657"); err != nil || string(got.Data) != `{"zone":"X"}` {
			t.Fatalf("reopen %d: Section = %+v, %v", round, got, err)
		}
		if _, created, err := db.Save(ctx, providers.NewProperty{Property: whiteHouse(), Canonical: "WH"}); err != nil || created {
			t.Fatalf("reopen %d: Save of the stored address created=%v, %v; the unique constraint must survive", round, created, err)
		}
		if err := db.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
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
