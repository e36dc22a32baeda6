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

// The records of a database at schema 18 for the upgrade through 0019:
// record 1 was made by match=best taking one of two addresses, and was
// reached by the client's spelling as well as its own address; record 2 was
// matched alone. Each engine's upgrade test runs them, then
// KeysOfABestChoiceGoThrough0019.
var Before0019Records = []string{
	`INSERT INTO properties (id, street_address, city, state, zip_code, latitude, longitude, canonical, source, created_at, updated_at, first_match)
		VALUES (1, '500 TWIN OAKS DR', 'ROUND ROCK', 'TX', '78664', 30.5, -97.6, '500 TWIN OAKS DR, ROUND ROCK, TX, 78664', 'census',
		'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z',
		'{"type":"geocoder","matched_address":"500 TWIN OAKS DR, ROUND ROCK, TX, 78664","candidates":[{"address":"500 TWIN OAKS DR, ROUND ROCK, TX, 78664"},{"address":"500 TWIN OAKS DR, DALLAS, TX, 75201"}]}')`,
	`INSERT INTO properties (id, street_address, city, state, zip_code, latitude, longitude, canonical, source, created_at, updated_at, first_match)
		VALUES (2, '1 MAIN ST', 'AUSTIN', 'TX', '78701', 30.2, -97.7, '1 MAIN ST, AUSTIN, TX, 78701', 'census',
		'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{"type":"geocoder","matched_address":"1 MAIN ST, AUSTIN, TX, 78701"}')`,
	`INSERT INTO property_keys (key, property_id) VALUES ('500 twin oaks dr|tx', 1), ('500 twin oaks dr|round rock|tx|78664', 1), ('1 main st|austin|tx', 2)`,
}

// KeysOfABestChoiceGoThrough0019: after the upgrade, the record match=best
// chose among several addresses is reached by none of its former keys (the
// client's ambiguous spelling above all; its own address is found again
// through the geocoder), while it and the record matched alone keep
// everything else.
func KeysOfABestChoiceGoThrough0019(t *testing.T, db providers.Store) {
	t.Helper()
	ctx := context.Background()
	for _, key := range []string{"500 twin oaks dr|tx", "500 twin oaks dr|round rock|tx|78664"} {
		if p, err := db.PropertyByKey(ctx, key); providers.KindOf(err) != providers.KindNotFound {
			t.Errorf("key %q of the record match=best chose after 0019: %+v, %v; want not found", key, p, err)
		}
	}
	if p, err := db.Property(ctx, 1); err != nil || p.StreetAddress != "500 TWIN OAKS DR" {
		t.Errorf("the record match=best chose, by id: %+v, %v", p, err)
	}
	if p, err := db.PropertyByKey(ctx, "1 main st|austin|tx"); err != nil || p.ID != 2 {
		t.Errorf("the record matched alone, by its key: %+v, %v", p, err)
	}
}
