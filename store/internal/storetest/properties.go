package storetest

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("SaveThenReadReturnsEveryFieldAsSaved", testSaveThenReadReturnsEveryFieldAsSaved)
	register("UnknownAttributesStayUnknown", testUnknownAttributesStayUnknown)
	register("MissingPropertyIsNotFound", testMissingPropertyIsNotFound)
	register("SaveSameAddressTwiceReturnsTheFirstRecord", testSaveSameAddressTwiceReturnsTheFirstRecord)
	register("SameAddressWithDifferentUnitsAreTwoRecords", testSameAddressWithDifferentUnitsAreTwoRecords)
	register("ReverseGeocodedRecordsAreAlwaysNew", testReverseGeocodedRecordsAreAlwaysNew)
	register("KeyFollowsTheNewestSave", testKeyFollowsTheNewestSave)
	register("ConcurrentSavesOfOneAddressMakeOneRecord", testConcurrentSavesOfOneAddressMakeOneRecord)
	register("SaveRejectsCoordinatesOutOfRange", testSaveRejectsCoordinatesOutOfRange)
	register("SeedPropertiesAreReadable", testSeedPropertiesAreReadable)
	register("PutImportFacts", testPutImportFacts)
	register("CanceledContextFailsEveryMethod", testCanceledContextFailsEveryMethod)
}

func testSaveThenReadReturnsEveryFieldAsSaved(t *testing.T, open Opener) {
	ctx := context.Background()
	c := newClock()
	db := open(t, c.Now)
	want := WhiteHouse()
	// Facts come from their sources, never from Save (see PutImportFacts).
	want.PropertyType, want.Bedrooms = nil, nil

	saved, created, err := db.Save(ctx, providers.NewProperty{
		Property:  want,
		Canonical: "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20500",
		Keys:      []string{"1600 pennsylvania ave nw|washington|dc|20500", "1600 penn ave|washington|dc|"},
	})
	if err != nil || !created {
		t.Fatalf("Save = created %v, err %v; want a new record", created, err)
	}
	if saved.ID <= 0 {
		t.Fatalf("saved id = %d, want a positive id", saved.ID)
	}
	stamp := c.Now().UTC().Truncate(time.Millisecond)
	want.ID, want.CreatedAt, want.UpdatedAt = saved.ID, stamp, stamp
	if !reflect.DeepEqual(*saved, want) {
		t.Fatalf("Save returned\n%+v\nwant\n%+v", *saved, want)
	}

	byID, err := db.Property(ctx, saved.ID)
	if err != nil {
		t.Fatalf("Property(%d): %v", saved.ID, err)
	}
	if !reflect.DeepEqual(*byID, want) {
		t.Fatalf("Property(%d) =\n%+v\nwant\n%+v", saved.ID, *byID, want)
	}
	for _, k := range []string{"1600 pennsylvania ave nw|washington|dc|20500", "1600 penn ave|washington|dc|"} {
		byKey, err := db.PropertyByKey(ctx, k)
		if err != nil {
			t.Fatalf("PropertyByKey(%q): %v; a client spelling saved with the record does not resolve", k, err)
		}
		if !reflect.DeepEqual(*byKey, want) {
			t.Fatalf("PropertyByKey(%q) =\n%+v\nwant\n%+v", k, *byKey, want)
		}
	}
}

func testUnknownAttributesStayUnknown(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	p := WhiteHouse()
	p.PropertyType, p.Bedrooms = nil, nil
	saved, _, err := db.Save(ctx, providers.NewProperty{Property: p, Canonical: "X"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Property(ctx, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.PropertyType != nil || got.Bedrooms != nil {
		t.Fatalf("property_type %v, bedrooms %v; want both unknown (nil), not zero values", got.PropertyType, got.Bedrooms)
	}
}

func testMissingPropertyIsNotFound(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	_, err := db.Property(ctx, 12345)
	wantKind(t, err, providers.KindNotFound, "property_not_found")
	_, err = db.PropertyByKey(ctx, "nowhere|nocity|zz|00000")
	wantKind(t, err, providers.KindNotFound, "property_not_found")
}

func testSaveSameAddressTwiceReturnsTheFirstRecord(t *testing.T, open Opener) {
	ctx := context.Background()
	c := newClock()
	db := open(t, c.Now)
	first, created, err := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	if err != nil || !created {
		t.Fatalf("first Save: created %v, err %v", created, err)
	}
	c.Advance(time.Hour)
	again := NewAt("1 MAIN ST", 39.9, -89.7) // a slightly different geocode of the same address
	again.Keys = []string{"1 main street|springfield|il|"}
	second, created, err := db.Save(ctx, again)
	if err != nil {
		t.Fatal(err)
	}
	if created {
		t.Fatal("second Save of the same canonical address reported created=true; clients would see a duplicate")
	}
	if !reflect.DeepEqual(second, first) {
		t.Fatalf("second Save returned\n%+v\nwant the first record unchanged\n%+v", second, first)
	}
	got, err := db.PropertyByKey(ctx, "1 main street|springfield|il|")
	if err != nil || got.ID != first.ID {
		t.Fatalf("key of the second Save resolves to %v (err %v), want record %d", got, err, first.ID)
	}
	if n := total(t, db, providers.SearchFilter{}); n != 1 {
		t.Fatalf("%d records after saving one address twice, want 1", n)
	}
}

func testSameAddressWithDifferentUnitsAreTwoRecords(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	a := NewAt("10 ELM ST", 39.8, -89.65)
	a.Property.Unit, a.Keys = "APT 1", []string{"10 elm st apt 1"}
	b := NewAt("10 ELM ST", 39.8, -89.65)
	b.Property.Unit, b.Keys = "APT 2", []string{"10 elm st apt 2"}
	ra, ca, err := db.Save(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	rb, cb, err := db.Save(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if !ca || !cb || ra.ID == rb.ID {
		t.Fatalf("units APT 1 and APT 2 gave ids %d, %d (created %v, %v); want two new records", ra.ID, rb.ID, ca, cb)
	}
	for key, want := range map[string]*providers.Property{"10 elm st apt 1": ra, "10 elm st apt 2": rb} {
		got, err := db.PropertyByKey(ctx, key)
		if err != nil || got.ID != want.ID || got.Unit != want.Unit {
			t.Fatalf("PropertyByKey(%q) = %+v, %v; want id %d unit %q", key, got, err, want.ID, want.Unit)
		}
	}
}

func testReverseGeocodedRecordsAreAlwaysNew(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	rev := providers.NewProperty{Property: providers.Property{
		Latitude: 40.7128, Longitude: -74.006, County: "New York County", FIPSCode: "36061",
		CensusTract: "002100", Source: "census",
	}}
	a, ca, err := db.Save(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	b, cb, err := db.Save(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	if !ca || !cb || a.ID == b.ID {
		t.Fatalf("two reverse records gave ids %d, %d (created %v, %v); want two rows", a.ID, b.ID, ca, cb)
	}
	if a.StreetAddress != "" || a.FIPSCode != "36061" {
		t.Fatalf("reverse record = %+v", a)
	}
}

func testKeyFollowsTheNewestSave(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	a := NewAt("5 OAK AVE", 39.8, -89.65)
	a.Keys = []string{"5 oak"}
	b := NewAt("5 OAK CT", 39.81, -89.66)
	b.Keys = []string{"5 oak"}
	if _, _, err := db.Save(ctx, a); err != nil {
		t.Fatal(err)
	}
	rb, _, err := db.Save(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.PropertyByKey(ctx, "5 oak")
	if err != nil || got.ID != rb.ID {
		t.Fatalf("key saved with two records resolves to %+v (%v), want the newer record %d", got, err, rb.ID)
	}
}

func testConcurrentSavesOfOneAddressMakeOneRecord(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	other := open(t, nil) // a second handle: separate writer connection, as another process would have
	const n = 50
	var (
		wg      sync.WaitGroup
		ids     = make([]int64, n)
		created = make([]bool, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := db
			if i%2 == 1 {
				h = other
			}
			np := NewAt("77 RACE ST", 39.8, -89.65)
			np.Keys = []string{fmt.Sprintf("77 race st #%d", i)}
			p, c, err := h.Save(ctx, np)
			errs[i], created[i] = err, c
			if p != nil {
				ids[i] = p.ID
			}
		}()
	}
	wg.Wait()
	nCreated := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Save %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("Save %d returned id %d, Save 0 id %d; concurrent clients got different records for one address", i, ids[i], ids[0])
		}
		if created[i] {
			nCreated++
		}
	}
	if nCreated != 1 {
		t.Fatalf("%d Saves reported created, want exactly 1", nCreated)
	}
	if got := total(t, db, providers.SearchFilter{}); got != 1 {
		t.Fatalf("%d rows after 50 concurrent Saves of one address, want 1", got)
	}
	for i := range n {
		p, err := db.PropertyByKey(ctx, fmt.Sprintf("77 race st #%d", i))
		if err != nil || p.ID != ids[0] {
			t.Fatalf("key of Save %d resolves to %+v (%v), want %d", i, p, err, ids[0])
		}
	}
}

func testSaveRejectsCoordinatesOutOfRange(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	for _, tc := range []struct {
		lat, lng float64
		param    string
	}{{91, 0, "latitude"}, {-90.5, 0, "latitude"}, {0, 180.01, "longitude"}, {0, -181, "longitude"}} {
		np := NewAt("BAD", tc.lat, tc.lng)
		_, _, err := db.Save(ctx, np)
		wantKind(t, err, providers.KindInvalid, "invalid_parameter")
		if pe := providers.As(err); len(pe.Params) != 1 || pe.Params[0].Parameter != tc.param {
			t.Fatalf("Save(%v, %v) error params %+v, want %s", tc.lat, tc.lng, pe.Params, tc.param)
		}
	}
	if n := total(t, db, providers.SearchFilter{}); n != 0 {
		t.Fatalf("%d rows after rejected saves, want 0", n)
	}
}

func testSeedPropertiesAreReadable(t *testing.T, open Opener) {
	ctx := context.Background()
	c := newClock()
	db := open(t, c.Now)
	created := time.Date(2020, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	seed := []providers.Property{
		{StreetAddress: "1 A ST", City: "AUSTIN", State: "TX", ZipCode: "78701", Latitude: 30.27, Longitude: -97.74, Bedrooms: ptr(2), CreatedAt: created},
		{StreetAddress: "2 B ST", City: "AUSTIN", State: "TX", ZipCode: "78701", Latitude: 30.28, Longitude: -97.75, PropertyType: ptr("condo")},
	}
	if err := db.SeedProperties(ctx, seed); err != nil {
		t.Fatal(err)
	}
	got, n, err := db.Search(ctx, providers.SearchFilter{Zip: "78701", Page: 1, PerPage: 10})
	if err != nil || n != 2 || len(got) != 2 {
		t.Fatalf("Search after seeding: %d of %d, %v; want 2", len(got), n, err)
	}
	if !got[0].CreatedAt.Equal(created) || !got[0].UpdatedAt.Equal(created) || *got[0].Bedrooms != 2 {
		t.Fatalf("seeded record 1 = %+v, want created/updated %v and 2 bedrooms", got[0], created)
	}
	stamp := c.Now().UTC().Truncate(time.Millisecond)
	if !got[1].CreatedAt.Equal(stamp) || *got[1].PropertyType != "condo" || got[1].Bedrooms != nil {
		t.Fatalf("seeded record 2 = %+v, want created %v, condo, unknown bedrooms", got[1], stamp)
	}
	near, err := db.Nearest(ctx, providers.Point{Lat: 30.2801, Lng: -97.7501}, 100)
	if err != nil || near.ID != got[1].ID {
		t.Fatalf("Nearest to a seeded record = %+v, %v; seeding must fill the spatial index", near, err)
	}
	// A Save of a seeded address is a separate record: seeded rows have no canonical address.
	np := providers.NewProperty{Property: seed[0], Canonical: "1 A ST, AUSTIN, TX, 78701"}
	_, created2, err := db.Save(ctx, np)
	if err != nil || !created2 {
		t.Fatalf("Save of a seeded address: created %v, %v", created2, err)
	}
	err = db.SeedProperties(ctx, []providers.Property{{Latitude: 1, Longitude: 1}, {Latitude: 100}})
	wantKind(t, err, providers.KindInvalid, "invalid_parameter")
}

func testPutImportFacts(t *testing.T, open Opener) {
	ctx := context.Background()
	c := newClock()
	db := open(t, c.Now)
	p := WhiteHouse()
	saved, _, err := db.Save(ctx, providers.NewProperty{Property: p, Canonical: "WH"})
	if err != nil {
		t.Fatal(err)
	}
	if saved.PropertyType != nil || saved.Bedrooms != nil || saved.FactsOrigin != "" {
		t.Fatalf("Save kept facts %v %v %q: a record's facts come from its sources only", saved.PropertyType, saved.Bedrooms, saved.FactsOrigin)
	}
	c.Advance(90 * time.Second)
	if err := db.PutImportFacts(ctx, saved.ID, providers.Facts{PropertyType: ptr("condo"), Bathrooms: ptr(1.5)}, "2026-01-02"); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)
	if err := db.PutImportFacts(ctx, saved.ID, providers.Facts{Bedrooms: ptr(3)}, "2026-01-03"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Property(ctx, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.PropertyType == nil || *got.PropertyType != "condo" || got.Bedrooms == nil || *got.Bedrooms != 3 ||
		got.Bathrooms == nil || *got.Bathrooms != 1.5 {
		t.Fatalf("after two imports: %+v, want condo, 3 bedrooms, 1.5 baths (a nil fact must not erase)", got.Facts())
	}
	// Both imports are the import's: one source, one date (the latest).
	const origin = `{"source":"import","as_of":"2026-01-03"}`
	if got.FactsOrigin != origin {
		t.Fatalf("facts origin\n got %s\nwant %s", got.FactsOrigin, origin)
	}
	if want := c.Now().UTC().Truncate(time.Millisecond); !got.UpdatedAt.Equal(want) || !got.CreatedAt.Equal(saved.CreatedAt) {
		t.Fatalf("created %v updated %v, want created unchanged %v and updated %v", got.CreatedAt, got.UpdatedAt, saved.CreatedAt, want)
	}
	wantKind(t, db.PutImportFacts(ctx, 999, providers.Facts{PropertyType: ptr("condo")}, "2026-01-03"), providers.KindNotFound, "property_not_found")
	wantKind(t, db.PutImportFacts(ctx, saved.ID, providers.Facts{PropertyType: ptr("castle")}, "2026-01-03"), providers.KindInvalid, "invalid_parameter")
	wantKind(t, db.PutImportFacts(ctx, saved.ID, providers.Facts{Bedrooms: ptr(-1)}, "2026-01-03"), providers.KindInvalid, "invalid_parameter")
	wantKind(t, db.PutImportFacts(ctx, saved.ID, providers.Facts{YearBuilt: ptr(1492)}, "2026-01-03"), providers.KindInvalid, "invalid_parameter")
}

func testCanceledContextFailsEveryMethod(t *testing.T, open Opener) {
	db := open(t, nil)
	saved, _, err := db.Save(context.Background(), NewAt("1 MAIN ST", 39.8, -89.65))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Property":      func() error { _, err := db.Property(ctx, saved.ID); return err },
		"PropertyByKey": func() error { _, err := db.PropertyByKey(ctx, "1 MAIN ST|springfield|il|62701"); return err },
		"Nearest":       func() error { _, err := db.Nearest(ctx, saved.Point(), 100); return err },
		"Save":          func() error { _, _, err := db.Save(ctx, NewAt("2 MAIN ST", 39.8, -89.65)); return err },
		"Search": func() error {
			_, _, err := db.Search(ctx, providers.SearchFilter{Page: 1, PerPage: 10})
			return err
		},
		"Section":        func() error { _, err := db.Section(ctx, "flood", "k"); return err },
		"PutSection":     func() error { return db.PutSection(ctx, providers.SectionRecord{Section: "flood", Key: "k"}) },
		"Ping":           func() error { return db.Ping(ctx) },
		"SeedProperties": func() error { return db.SeedProperties(ctx, []providers.Property{{}}) },
		"PutImportFacts": func() error { return db.PutImportFacts(ctx, saved.ID, providers.Facts{Bedrooms: ptr(2)}, "2026-01-01") },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) { wantKind(t, call(), providers.KindCanceled, "canceled") })
	}
	if n := total(t, db, providers.SearchFilter{}); n != 1 {
		t.Fatalf("%d records after canceled writes, want 1", n)
	}

	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	_, err = db.Property(dctx, saved.ID)
	wantKind(t, err, providers.KindTimeout, "")
}
