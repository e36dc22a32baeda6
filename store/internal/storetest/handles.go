package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("ReopenedDatabaseKeepsEverything", testReopenedDatabaseKeepsEverything)
	register("AnotherHandleSeesEveryWrite", testAnotherHandleSeesEveryWrite)
}

// A record, its keys, its place in the spatial index, its unique address and
// a section all outlive the handle that wrote them; Close may be called
// twice.
func testReopenedDatabaseKeepsEverything(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	saved, _, err := db.Save(ctx, providers.NewProperty{Property: WhiteHouse(), Canonical: "WH", Keys: []string{"wh key"}})
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
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v, want nil (Close is idempotent)", err)
	}
	for round := range 2 { // reopening runs no migration twice
		db := open(t, nil)
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
		if _, created, err := db.Save(ctx, providers.NewProperty{Property: WhiteHouse(), Canonical: "WH"}); err != nil || created {
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

// Two instances sharing a database: what one writes, the other reads at
// once, with the same values.
func testAnotherHandleSeesEveryWrite(t *testing.T, open Opener) {
	ctx := context.Background()
	c := newClock()
	a, b := open(t, c.Now), open(t, c.Now)
	saved, _, err := a.Save(ctx, NewAt("9 SHARED WAY", 39.8, -89.65))
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Property(ctx, saved.ID)
	if err != nil || !reflect.DeepEqual(got, saved) {
		t.Fatalf("the other instance reads %+v, %v; want %+v", got, err, saved)
	}
	again, created, err := b.Save(ctx, NewAt("9 SHARED WAY", 39.8, -89.65))
	if err != nil || created || again.ID != saved.ID {
		t.Fatalf("the other instance's Save of the same address = id %v created %v, %v; want id %d, not created", again, created, err, saved.ID)
	}
	at := c.Now().UTC().Truncate(time.Millisecond)
	if err := b.PutSection(ctx, providers.SectionRecord{Section: "flood", Key: "k", Data: []byte(`{}`), FetchedAt: at, ExpiresAt: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	sec, err := a.Section(ctx, "flood", "k")
	if err != nil || !sec.FetchedAt.Equal(at) || sec.FetchedAt.Location() != time.UTC {
		t.Fatalf("the first instance reads the section as %+v, %v; want fetched at %v in UTC", sec, err, at)
	}
}
