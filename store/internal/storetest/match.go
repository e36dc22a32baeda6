package storetest

import (
	"context"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("RecordRemembersHowItWasFirstMatched", testRecordRemembersHowItWasFirstMatched)
}

// A record keeps the match it was created with, read back by id, by key,
// by search and near a point, on another handle (another instance, or the
// same after a restart); a later Save of the same address with another
// match leaves it as first written, and a record saved without one reads
// back with none.
func testRecordRemembersHowItWasFirstMatched(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	first := NewAt("1 MAIN ST", 39.8, -89.65)
	first.Property.Match = `{"type":"non_exact","matched_address":"1 MAIN ST, SPRINGFIELD, IL, 62701","differences":["zip"]}`
	saved, created, err := db.Save(ctx, first)
	if err != nil || !created || saved.Match != first.Property.Match {
		t.Fatalf("Save = %+v, created %v, err %v; want the match kept as given", saved, created, err)
	}
	again := NewAt("1 MAIN ST", 39.8, -89.65)
	again.Property.Match = `{"type":"exact","matched_address":"1 MAIN ST, SPRINGFIELD, IL, 62701","differences":[]}`
	again.Keys = []string{"1 main street|springfield|il|62701"}
	if second, created, err := db.Save(ctx, again); err != nil || created || second.Match != first.Property.Match {
		t.Fatalf("second Save = %+v, created %v, err %v; want the first match unchanged", second, created, err)
	}
	plain, _, err := db.Save(ctx, NewAt("2 MAIN ST", 39.81, -89.66))
	if err != nil || plain.Match != "" {
		t.Fatalf("a record saved without a match reads %q (err %v), want none", plain.Match, err)
	}

	other := open(t, nil)
	byID, err := other.Property(ctx, saved.ID)
	if err != nil || byID.Match != first.Property.Match {
		t.Fatalf("Property on another handle: match %q, err %v", byID.Match, err)
	}
	byKey, err := other.PropertyByKey(ctx, "1 main street|springfield|il|62701")
	if err != nil || byKey.Match != first.Property.Match {
		t.Fatalf("PropertyByKey on another handle: match %q, err %v", byKey.Match, err)
	}
	near, err := other.Nearest(ctx, providers.Point{Lat: 39.8, Lng: -89.65}, 10)
	if err != nil || near.Match != first.Property.Match {
		t.Fatalf("Nearest on another handle: match %q, err %v", near.Match, err)
	}
	page, _, err := other.Search(ctx, providers.SearchFilter{Zip: "62701", Page: 1, PerPage: 10})
	if err != nil || len(page) != 2 || page[0].Match != first.Property.Match || page[1].Match != "" {
		t.Fatalf("Search on another handle: %+v, err %v", page, err)
	}
}
