package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("FactsLoadedBeforeTheRecordJoinItOnSave", testFactsBeforeRecord)
	register("FactsPublishedReachExistingRecords", testFactsAfterRecord)
	register("FactsInvisibleUntilPublished", testFactsInvisibleUntilPublished)
	register("FactsPrecedenceImportThenDatasetsInOrder", testFactsPrecedence)
	register("FactsUnitInheritsBuildingTypeYearStories", testFactsUnits)
	register("FactsNewerLoadReplacesOnlyItsDataset", testFactsReplace)
	register("FactsLoadResumesAndSkipsSameFiles", testFactsResume)
	register("FactsJoinByCoordinatesWithinRadius", testFactsPoint)
	register("FactsTwoFilesJoinOnKeyHigherRankWins", testFactsTwoFiles)
	register("FactsJoinInsideTheirParcel", testFactsParcel)
	register("FactsJoinParcelsOfEverySize", testFactsParcelSizes)
	register("FactsPublishMergesEveryBatch", testFactsManyBatches)
	register("FactsReadDuringTheMergeAreDroppedAfterIt", testFactsReadDuringTheMerge)
}

// testFactsManyBatches publishes rows for more records than one merge
// transaction holds (2,000), which an engine may merge side by side: every
// record gets its own row's facts and the progress ends at the total.
func testFactsManyBatches(t *testing.T, open Opener) {
	ctx := context.Background()
	const n = 4100
	props := make([]providers.Property, n)
	rows := make([]providers.FactRow, n)
	for i := range props {
		street := fmt.Sprintf("%d MAIN ST", i+1)
		props[i] = NewAt(street, 39.8+float64(i)*1e-5, -89.65).Property
		rows[i] = row(street, providers.FactsKey(street, "62701", ""), providers.Facts{Bedrooms: ptr(i % 7), YearBuilt: ptr(1900 + i%120)})
	}
	if err := open(t, nil).SeedProperties(ctx, props); err != nil {
		t.Fatal(err)
	}
	db := open(t, nil) // a new handle keys the seeded records
	l, _, err := db.BeginFacts(ctx, "allegheny", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, rows, n, 0, 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var last, total int
	set, err := db.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-09-30"}, func(done, all int) {
		mu.Lock()
		defer mu.Unlock()
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		last, total = done, all
	})
	if err != nil {
		t.Fatal(err)
	}
	if set.Matched != n || last != n || total != n {
		t.Fatalf("published %+v with progress %d/%d, want %d rows matched and merged", set, last, total, n)
	}
	if _, count, err := db.Search(ctx, providers.SearchFilter{Zip: "62701", MinYearBuilt: ptr(1900), Page: 1, PerPage: 1}); err != nil || count != n {
		t.Fatalf("%d records have a year built after the publish (%v), want all %d", count, err, n)
	}
	for _, i := range []int{0, 1999, 2000, 4099} {
		ps, _, err := db.Search(ctx, providers.SearchFilter{Zip: "62701", Page: 1 + i, PerPage: 1})
		if err != nil || len(ps) != 1 {
			t.Fatalf("record %d: %v", i, err)
		}
		p := ps[0]
		var k int
		fmt.Sscanf(p.StreetAddress, "%d", &k)
		wantInt(t, p.StreetAddress+" bedrooms", p.Bedrooms, (k-1)%7)
		wantInt(t, p.StreetAddress+" year built", p.YearBuilt, 1900+(k-1)%120)
	}
}

// testFactsReadDuringTheMerge plays a serving instance on its own handle:
// it polls FactsVersion as each one does every facts.refresh, drops the
// records it holds in memory when the version changed, and reads a
// record while a publish merges others before it, which puts the
// record's former facts back in its memory. One poll after the publish
// ends, it must see the version change again and read the record anew,
// with the load's facts: a version that changed only when the merge
// began left it serving the former facts until cache.record_ttl.
func testFactsReadDuringTheMerge(t *testing.T, open Opener) {
	ctx := context.Background()
	const n = 2*2000 + 1 // three merge transactions, the last holding the last record alone
	props := make([]providers.Property, n)
	rows := make([]providers.FactRow, n)
	for i := range props {
		street := fmt.Sprintf("%d MAIN ST", i+1)
		props[i] = NewAt(street, 39.8+float64(i)*1e-5, -89.65).Property
		rows[i] = row(street, providers.FactsKey(street, "62701", ""), providers.Facts{YearBuilt: ptr(1900 + i%120)})
	}
	if err := open(t, nil).SeedProperties(ctx, props); err != nil {
		t.Fatal(err)
	}
	db, inst := open(t, nil), open(t, nil)
	lastRec, _, err := inst.Search(ctx, providers.SearchFilter{Zip: "62701", Page: n, PerPage: 1})
	if err != nil || len(lastRec) != 1 {
		t.Fatalf("the last record: %v", err)
	}
	id := lastRec[0].ID

	var mu sync.Mutex
	held := map[int64]*providers.Property{}
	seen, err := inst.FactsVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	poll := func() error {
		v, err := inst.FactsVersion(ctx)
		if err == nil && v != seen {
			seen = v
			clear(held)
		}
		return err
	}
	read := func() (*providers.Property, error) {
		if p := held[id]; p != nil {
			return p, nil
		}
		p, err := inst.Property(ctx, id)
		if err == nil {
			held[id] = p
		}
		return p, err
	}

	l, _, err := db.BeginFacts(ctx, "allegheny", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, rows, n, 0, 0); err != nil {
		t.Fatal(err)
	}
	readDuring := false
	_, err = db.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-09-30"}, func(done, all int) {
		mu.Lock()
		defer mu.Unlock()
		if readDuring {
			return
		}
		// A batch before the last record's is merged: the instance polls,
		// then reads the record, not merged yet.
		readDuring = true
		if err := poll(); err != nil {
			t.Errorf("poll during the merge: %v", err)
			return
		}
		p, err := read()
		if err != nil || p.YearBuilt != nil {
			t.Errorf("the last record read during the merge: %v, year built %v; want it not merged yet", err, deref(p.YearBuilt))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !readDuring {
		t.Fatal("the publish reported no progress during its merge")
	}
	if err := poll(); err != nil { // one facts.refresh after the end
		t.Fatal(err)
	}
	p, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if p.YearBuilt == nil {
		t.Fatalf("one poll after the load ended, the instance still serves the record as read during the merge, without the year built loaded (facts version %q unchanged since the merge began)", seen)
	}
	wantInt(t, "year built", p.YearBuilt, 1900+(n-1)%120)
}

// square is a parcel: the WKB of the polygon from (west, south) to (east,
// north), with its box.
func square(south, west, north, east float64) *providers.Parcel {
	poly := orb.Polygon{{{west, south}, {east, south}, {east, north}, {west, north}, {west, south}}}
	raw, err := wkb.Marshal(poly)
	if err != nil {
		panic(err)
	}
	return &providers.Parcel{WKB: raw, South: south, North: north, West: west, East: east}
}

func testFactsParcel(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	// A parcel of about 220 m by 160 m; its records are farther than the
	// 30 m a point row reaches from its centre.
	before, _, _ := db.Save(ctx, NewAt("1 FARM RD", 41.8810, -87.6310))
	outside, _, _ := db.Save(ctx, NewAt("2 FARM RD", 41.8830, -87.6310))
	parcel := square(41.8800, -87.6320, 41.8820, -87.6300)
	load(t, db, "parcels", "p1", 1, "2026-01-01", nil,
		providers.FactRow{Key: "A", Point: &providers.Point{Lat: 41.8810, Lng: -87.6310}, Parcel: parcel,
			Facts: providers.Facts{LotSqft: ptr(380000), YearBuilt: ptr(1950), Bedrooms: ptr(3)}})
	wantInt(t, "year of a record inside the parcel, saved before the load", facts(t, db, before.ID).YearBuilt, 1950)
	wantNil(t, "year of a record outside the parcel", facts(t, db, outside.ID).YearBuilt)
	after, _, _ := db.Save(ctx, NewAt("3 FARM RD", 41.8801, -87.6319))
	wantInt(t, "lot of a record inside the parcel's corner, saved after", after.LotSqft, 380000)
	unit := NewAt("1 FARM RD", 41.8815, -87.6305)
	unit.Property.Unit = "APT 2"
	u, _, _ := db.Save(ctx, unit)
	wantInt(t, "a unit's year from its building's parcel", u.YearBuilt, 1950)
	wantNil(t, "a unit's bedrooms from its building's parcel", u.Bedrooms)
}

// A parcel is found by its box whatever its size: the small ones through
// the latitude bands (fact_parcel_bands, whose band is 0.005 degrees), the
// large ones through the engine's spatial index, a small one across a
// band's edge from the band of its south edge. A newer load of the
// dataset replaces them all.
func testFactsParcelSizes(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	// 41.8750 is a band edge (41.8750 * 200 = 8375): the small parcel's
	// south edge lies in the band south of it, its records in either.
	small := square(41.8748, -87.6320, 41.8752, -87.6316)
	// About 2.2 km by 1.7 km: far more than a band.
	large := square(41.8900, -87.6600, 41.9100, -87.6400)
	// Exactly as wide and as tall as a band may hold.
	edge := square(41.8600, -87.6200, 41.8650, -87.6150)
	load(t, db, "parcels", "p1", 1, "2026-01-01", nil,
		providers.FactRow{Key: "S", Point: &providers.Point{Lat: 41.8750, Lng: -87.6318}, Parcel: small,
			Facts: providers.Facts{YearBuilt: ptr(1901)}},
		providers.FactRow{Key: "L", Point: &providers.Point{Lat: 41.9000, Lng: -87.6500}, Parcel: large,
			Facts: providers.Facts{YearBuilt: ptr(1902)}},
		providers.FactRow{Key: "E", Point: &providers.Point{Lat: 41.8625, Lng: -87.6175}, Parcel: edge,
			Facts: providers.Facts{YearBuilt: ptr(1903)}})
	for _, c := range []struct {
		name     string
		lat, lng float64
		want     int
	}{
		{"small parcel, south of the band edge", 41.8749, -87.6317, 1901},
		{"small parcel, north of the band edge", 41.8751, -87.6319, 1901},
		{"large parcel, near its north-east corner", 41.9099, -87.6401, 1902},
		{"large parcel, near its south-west corner", 41.8901, -87.6599, 1902},
		{"band-sized parcel, its north-east corner", 41.8650, -87.6150, 1903},
		{"band-sized parcel, its south-west corner", 41.8600, -87.6200, 1903},
	} {
		r, _, err := db.Save(ctx, NewAt(fmt.Sprintf("%d PARCEL ST", int(c.lat*1e4)%1000), c.lat, c.lng))
		if err != nil {
			t.Fatal(err)
		}
		wantInt(t, "year of a record saved inside the "+c.name, r.YearBuilt, c.want)
	}
	out, _, _ := db.Save(ctx, NewAt("9 PARCEL ST", 41.8753, -87.6318))
	wantNil(t, "year of a record just north of the small parcel", out.YearBuilt)
	out, _, _ = db.Save(ctx, NewAt("10 PARCEL ST", 41.8750, -87.6315))
	wantNil(t, "year of a record just east of the small parcel", out.YearBuilt)

	// The next load has only the large parcel: the small ones are gone.
	load(t, db, "parcels", "p2", 1, "2026-02-01", nil,
		providers.FactRow{Key: "L", Point: &providers.Point{Lat: 41.9000, Lng: -87.6500}, Parcel: large,
			Facts: providers.Facts{YearBuilt: ptr(1904)}})
	r, _, _ := db.Save(ctx, NewAt("11 PARCEL ST", 41.8749, -87.6317))
	wantNil(t, "year of a record in a small parcel the newer load dropped", r.YearBuilt)
	r, _, _ = db.Save(ctx, NewAt("12 PARCEL ST", 41.9050, -87.6450))
	wantInt(t, "year of a record in the large parcel of the newer load", r.YearBuilt, 1904)
}

// load runs a whole load of rows (and keys) into dataset at priority.
func load(t *testing.T, db Store, dataset, fingerprint string, priority int, asOf string,
	keys []providers.FactKey, rows ...providers.FactRow) providers.FactSet {
	t.Helper()
	ctx := context.Background()
	l, _, err := db.BeginFacts(ctx, dataset, fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if l.Generation == 0 {
		t.Fatalf("BeginFacts(%s, %s) found nothing to do", dataset, fingerprint)
	}
	if err := db.PutFacts(ctx, &l, keys, rows, int64(len(rows)), 0, 0); err != nil {
		t.Fatal(err)
	}
	set, err := db.PublishFacts(ctx, l, providers.FactSet{Priority: priority, AsOf: asOf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func row(key, factsKey string, f providers.Facts) providers.FactRow {
	return providers.FactRow{Key: key, FactsKey: factsKey, Facts: f}
}

func facts(t *testing.T, db Store, id int64) *providers.Property {
	t.Helper()
	p, err := db.Property(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantInt(t *testing.T, name string, got *int, want int) {
	t.Helper()
	if got == nil || *got != want {
		t.Fatalf("%s = %v, want %d", name, deref(got), want)
	}
}

func wantNil[T any](t *testing.T, name string, got *T) {
	t.Helper()
	if got != nil {
		t.Fatalf("%s = %v, want unknown (null)", name, *got)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return "null"
	}
	return *p
}

func testFactsBeforeRecord(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	set := load(t, db, "cook-county", "f1", 1, "2026-09-30", nil,
		row("P1", providers.FactsKey("1 MAIN ST", "62701", ""), providers.Facts{PropertyType: ptr("single_family"),
			Bedrooms: ptr(3), Bathrooms: ptr(2.5), LivingAreaSqft: ptr(1850), LotSqft: ptr(5000), YearBuilt: ptr(1925),
			Stories: ptr(2.0)}),
		row("P2", providers.FactsKey("9 ELSEWHERE ST", "62701", ""), providers.Facts{Bedrooms: ptr(1)}))
	if set.Rows != 2 || set.Matched != 0 || set.Generation == 0 || set.AsOf != "2026-09-30" || set.Source != "cook-county" {
		t.Fatalf("published %+v, want 2 rows, none matched yet", set)
	}
	saved, created, err := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	if err != nil || !created {
		t.Fatal(created, err)
	}
	wantInt(t, "bedrooms", saved.Bedrooms, 3)
	wantInt(t, "living_area_sqft", saved.LivingAreaSqft, 1850)
	wantInt(t, "year_built", saved.YearBuilt, 1925)
	if saved.Bathrooms == nil || *saved.Bathrooms != 2.5 || saved.Stories == nil || *saved.Stories != 2 {
		t.Fatalf("bathrooms %v stories %v, want 2.5 and 2", deref(saved.Bathrooms), deref(saved.Stories))
	}
	wantNil(t, "units", saved.Units)
	if saved.FactsOrigin != `{"source":"cook-county","as_of":"2026-09-30"}` {
		t.Fatalf("origin %s", saved.FactsOrigin)
	}
	if got := facts(t, db, saved.ID); got.FactsOrigin != saved.FactsOrigin || *got.Bedrooms != 3 {
		t.Fatalf("read back %+v, want what Save returned", got)
	}
	// The same address in another spelling of the unit-less key is the
	// same record; a second Save does not merge again.
	again, created, err := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	if err != nil || created || again.ID != saved.ID || *again.Bedrooms != 3 {
		t.Fatalf("second Save: %+v created %v %v", again, created, err)
	}
}

func testFactsAfterRecord(t *testing.T, open Opener) {
	c := newClock()
	db := open(t, c.Now)
	ctx := context.Background()
	a, _, _ := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	b, _, _ := db.Save(ctx, NewAt("2 MAIN ST", 39.8, -89.64))
	c.Advance(time.Minute)
	v1, err := db.FactsVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var progressed int
	l, _, err := db.BeginFacts(ctx, "nyc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, []providers.FactRow{row("A", providers.FactsKey("1 MAIN ST", "62701", ""),
		providers.Facts{Units: ptr(4), PropertyType: ptr("multi_family")})}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	set, err := db.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-01-01", Source: "nyc-pluto"},
		func(done, total int) { progressed = done })
	if err != nil {
		t.Fatal(err)
	}
	if set.Matched != 1 || set.Rows != 1 || progressed != 1 {
		t.Fatalf("set %+v progress %d, want 1 row matched and 1 record merged", set, progressed)
	}
	got := facts(t, db, a.ID)
	wantInt(t, "units", got.Units, 4)
	if *got.PropertyType != "multi_family" || !strings.Contains(got.FactsOrigin, `"source":"nyc-pluto"`) {
		t.Fatalf("record %+v origin %s", got.Facts(), got.FactsOrigin)
	}
	if want := c.Now().UTC().Truncate(time.Millisecond); !got.UpdatedAt.Equal(want) || !got.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("created %v updated %v, want created unchanged %v and updated at the merge, %v", got.CreatedAt, got.UpdatedAt, a.CreatedAt, want)
	}
	if other := facts(t, db, b.ID); other.Units != nil || other.FactsOrigin != "" {
		t.Fatalf("record without a row got facts %+v", other.Facts())
	}
	v2, _ := db.FactsVersion(ctx)
	if v1 == v2 {
		t.Fatalf("facts version %q did not change with a publish", v1)
	}
	sets, err := db.FactSets(ctx)
	if err != nil || len(sets) != 1 || sets[0].Dataset != "nyc" || sets[0].Source != "nyc-pluto" || sets[0].LoadedAt.IsZero() {
		t.Fatalf("FactSets = %+v, %v", sets, err)
	}
}

func testFactsInvisibleUntilPublished(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	l, _, err := db.BeginFacts(ctx, "cook", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, []providers.FactRow{row("A", providers.FactsKey("1 MAIN ST", "62701", ""),
		providers.Facts{Bedrooms: ptr(2)})}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	saved, _, err := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	if err != nil {
		t.Fatal(err)
	}
	if saved.Bedrooms != nil {
		t.Fatalf("a record saved during a load saw its unpublished rows: bedrooms %d", *saved.Bedrooms)
	}
	if sets, _ := db.FactSets(ctx); len(sets) != 0 {
		t.Fatalf("an unpublished load is listed: %+v", sets)
	}
	if _, err := db.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-01-01"}, nil); err != nil {
		t.Fatal(err)
	}
	wantInt(t, "bedrooms after publish", facts(t, db, saved.ID).Bedrooms, 2)
}

func testFactsPrecedence(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	saved, _, _ := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	key := providers.FactsKey("1 MAIN ST", "62701", "")
	load(t, db, "second", "s1", 2, "2026-02-02", nil, row("A", key, providers.Facts{Bedrooms: ptr(5), YearBuilt: ptr(1990), Units: ptr(1)}))
	load(t, db, "first", "f1", 1, "2026-01-01", nil, row("A", key, providers.Facts{Bedrooms: ptr(4), LotSqft: ptr(7000)}))
	if err := db.PutImportFacts(ctx, saved.ID, providers.Facts{Bedrooms: ptr(3)}, "2026-03-03"); err != nil {
		t.Fatal(err)
	}
	got := facts(t, db, saved.ID)
	wantInt(t, "bedrooms (import)", got.Bedrooms, 3)
	wantInt(t, "lot_sqft (first)", got.LotSqft, 7000)
	wantInt(t, "year_built (second)", got.YearBuilt, 1990)
	const want = `{"source":"import","as_of":"2026-03-03","fields":{"bedrooms":{"source":"import","as_of":"2026-03-03"},` +
		`"lot_sqft":{"source":"first","as_of":"2026-01-01"},"year_built":{"source":"second","as_of":"2026-02-02"},` +
		`"units":{"source":"second","as_of":"2026-02-02"}}}`
	if got.FactsOrigin != want {
		t.Fatalf("origin\n got %s\nwant %s", got.FactsOrigin, want)
	}
	// A reload of the first dataset keeps the import's facts on top.
	load(t, db, "first", "f2", 1, "2026-04-04", nil, row("A", key, providers.Facts{Bedrooms: ptr(6)}))
	got = facts(t, db, saved.ID)
	wantInt(t, "bedrooms after reload", got.Bedrooms, 3)
	wantNil(t, "lot_sqft after reload without it", got.LotSqft)
}

func testFactsUnits(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	unit := func(u string) providers.NewProperty {
		np := NewAt("100 LAKE ST", 39.8, -89.65)
		np.Property.Unit = u
		np.Keys = []string{"100 LAKE ST|" + u}
		return np
	}
	building := providers.FactsKey("100 LAKE ST", "62701", "")
	load(t, db, "cook", "f1", 1, "2026-09-30", nil,
		row("B", building, providers.Facts{PropertyType: ptr("condo"), YearBuilt: ptr(1962), Stories: ptr(12.0),
			Units: ptr(80), Bedrooms: ptr(120 - 40), LivingAreaSqft: ptr(90000)}),
		row("U2", providers.FactsKey("100 LAKE ST", "62701", "APT 2"), providers.Facts{Bedrooms: ptr(2), LivingAreaSqft: ptr(1100)}))
	a, _, err := db.Save(ctx, unit("APT 1"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := db.Save(ctx, unit("APT 2"))
	// APT 10 shares APT 1's key as a prefix; it must not take APT 1's rows.
	c, _, _ := db.Save(ctx, unit("APT 10"))
	whole, _, _ := db.Save(ctx, unit(""))
	for _, p := range []*providers.Property{a, b, c} {
		if *p.PropertyType != "condo" || *p.YearBuilt != 1962 || *p.Stories != 12 {
			t.Fatalf("unit %s: %+v, want the building's type, year and stories", p.Unit, p.Facts())
		}
		if p.Units != nil {
			t.Fatalf("unit %s inherited the building's unit count", p.Unit)
		}
	}
	wantNil(t, "APT 1 bedrooms", a.Bedrooms)
	wantNil(t, "APT 1 living area", a.LivingAreaSqft)
	wantInt(t, "APT 2 bedrooms (its own row)", b.Bedrooms, 2)
	wantInt(t, "APT 2 living area", b.LivingAreaSqft, 1100)
	wantNil(t, "APT 10 bedrooms", c.Bedrooms)
	wantInt(t, "the building's units", whole.Units, 80)
	wantInt(t, "the building's area", whole.LivingAreaSqft, 90000)

	// A reload reaches the units too.
	load(t, db, "cook", "f2", 1, "2026-10-30", nil, row("B", building, providers.Facts{PropertyType: ptr("condo"), YearBuilt: ptr(1963)}))
	wantInt(t, "APT 1 year after reload", facts(t, db, a.ID).YearBuilt, 1963)
	wantNil(t, "APT 2 bedrooms after its row went", facts(t, db, b.ID).Bedrooms)
}

func testFactsReplace(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	a, _, _ := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	b, _, _ := db.Save(ctx, NewAt("2 MAIN ST", 39.8, -89.64))
	ka, kb := providers.FactsKey("1 MAIN ST", "62701", ""), providers.FactsKey("2 MAIN ST", "62701", "")
	load(t, db, "one", "f1", 1, "2025-01-01", nil, row("A", ka, providers.Facts{Bedrooms: ptr(2)}), row("B", kb, providers.Facts{Bedrooms: ptr(3)}))
	load(t, db, "two", "g1", 2, "2025-01-01", nil, row("A", ka, providers.Facts{Units: ptr(1)}))
	set := load(t, db, "one", "f2", 1, "2026-01-01", nil, row("A", ka, providers.Facts{Bedrooms: ptr(4)}))
	if set.Rows != 1 || set.Matched != 1 {
		t.Fatalf("second load %+v, want 1 row, 1 matched", set)
	}
	got := facts(t, db, a.ID)
	wantInt(t, "bedrooms from the newer file", got.Bedrooms, 4)
	wantInt(t, "units of the other dataset kept", got.Units, 1)
	if gb := facts(t, db, b.ID); gb.Bedrooms != nil || gb.FactsOrigin != "" {
		t.Fatalf("a row gone from the newer file left facts %+v %s", gb.Facts(), gb.FactsOrigin)
	}
}

func testFactsResume(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	key := providers.FactsKey("1 MAIN ST", "62701", "")
	l, _, err := db.BeginFacts(ctx, "cook", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, []providers.FactRow{row("A", key, providers.Facts{Bedrooms: ptr(2)})}, 10, 1, 120); err != nil {
		t.Fatal(err)
	}
	// Killed here. The same files resume at the checkpoint.
	again := open(t, nil)
	r, served, err := again.BeginFacts(ctx, "cook", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Resumed || r.Generation != l.Generation || r.Done != 10 || r.Failed != 1 || r.FailuresSize != 120 || served != nil {
		t.Fatalf("resumed %+v served %v, want the checkpoint 10/1/120", r, served)
	}
	// Rewriting a row already written (the batch after the checkpoint ran
	// again) keeps one row.
	if err := again.PutFacts(ctx, &r, nil, []providers.FactRow{row("A", key, providers.Facts{Bedrooms: ptr(2)}),
		row("B", providers.FactsKey("2 MAIN ST", "62701", ""), providers.Facts{Bedrooms: ptr(1)})}, 12, 1, 120); err != nil {
		t.Fatal(err)
	}
	set, err := again.PublishFacts(ctx, r, providers.FactSet{Priority: 1, AsOf: "2026-01-01"}, nil)
	if err != nil || set.Rows != 2 || set.Failed != 1 {
		t.Fatalf("published %+v, %v; want 2 rows, 1 failed", set, err)
	}
	// The same files again: nothing to do.
	n, served, err := again.BeginFacts(ctx, "cook", "f1")
	if err != nil || n.Generation != 0 || served == nil || served.Fingerprint != "f1" {
		t.Fatalf("same files again: load %+v served %+v %v, want nothing to do", n, served, err)
	}
	// Other files abandon an unfinished load of yet others.
	x, _, _ := again.BeginFacts(ctx, "cook", "f2")
	_ = again.PutFacts(ctx, &x, nil, []providers.FactRow{row("Z", key, providers.Facts{Bedrooms: ptr(9)})}, 1, 0, 0)
	y, _, err := again.BeginFacts(ctx, "cook", "f3")
	if err != nil || y.Resumed || y.Generation == 0 || y.Done != 0 {
		t.Fatalf("f3 after an unfinished f2: %+v %v", y, err)
	}
	if err := again.PutFacts(ctx, &y, nil, nil, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	set, err = again.PublishFacts(ctx, y, providers.FactSet{Priority: 1, AsOf: "2026-01-01"}, nil)
	if err != nil || set.Rows != 0 {
		t.Fatalf("f3 published %+v %v; the abandoned rows must be gone", set, err)
	}
}

func testFactsPoint(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	// 0.0001 degrees of latitude is about 11 m; 0.001 about 111 m.
	near, _, _ := db.Save(ctx, NewAt("1 MAIN ST", 41.8800, -87.6300))
	far, _, _ := db.Save(ctx, NewAt("2 MAIN ST", 41.8900, -87.6300))
	rev, _, _ := db.Save(ctx, providers.NewProperty{Property: providers.Property{Latitude: 41.8700, Longitude: -87.6300, Source: "census"}})
	load(t, db, "parcels", "p1", 1, "2026-01-01", nil,
		providers.FactRow{Key: "1", Point: &providers.Point{Lat: 41.8801, Lng: -87.6300}, Facts: providers.Facts{YearBuilt: ptr(1901)}},
		providers.FactRow{Key: "2", Point: &providers.Point{Lat: 41.8802, Lng: -87.6300}, Facts: providers.Facts{YearBuilt: ptr(1902)}},
		providers.FactRow{Key: "3", Point: &providers.Point{Lat: 41.8910, Lng: -87.6300}, Facts: providers.Facts{YearBuilt: ptr(1903)}},
		providers.FactRow{Key: "4", Point: &providers.Point{Lat: 41.87005, Lng: -87.6300}, Facts: providers.Facts{YearBuilt: ptr(1904)}})
	wantInt(t, "nearest row's year", facts(t, db, near.ID).YearBuilt, 1901)
	wantNil(t, "year of a record 111 m from any row", facts(t, db, far.ID).YearBuilt)
	wantInt(t, "reverse-geocoded record's year", facts(t, db, rev.ID).YearBuilt, 1904)
}

func testFactsTwoFiles(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	a, _, _ := db.Save(ctx, NewAt("1 MAIN ST", 39.8, -89.65))
	b, _, _ := db.Save(ctx, NewAt("2 MAIN ST", 39.8, -89.64))
	keys := []providers.FactKey{{JoinKey: "17051210010000", FactsKey: providers.FactsKey("1 MAIN ST", "62701", "")},
		{JoinKey: "17051210020000", FactsKey: providers.FactsKey("2 MAIN ST", "62701", "")}}
	// Rows of one key in one batch: the highest rank wins whatever the
	// order, and of equal ranks the later, as one row after another would.
	set := load(t, db, "cook", "f1", 1, "2026-09-30", keys,
		providers.FactRow{Key: "17051210010000", Rank: 2025, JoinKey: "17051210010000", Facts: providers.Facts{Bedrooms: ptr(4)}},
		providers.FactRow{Key: "17051210010000", Rank: 2023, JoinKey: "17051210010000", Facts: providers.Facts{Bedrooms: ptr(2)}},
		providers.FactRow{Key: "17051210020000", Rank: 2023, JoinKey: "17051210020000", Facts: providers.Facts{Bedrooms: ptr(1)}},
		providers.FactRow{Key: "17051210020000", Rank: 2025, JoinKey: "17051210020000", Facts: providers.Facts{Bedrooms: ptr(3)}},
		providers.FactRow{Key: "17051210020000", Rank: 2025, JoinKey: "17051210020000", Facts: providers.Facts{Bedrooms: ptr(5)}},
		providers.FactRow{Key: "99999999999999", Rank: 2025, JoinKey: "99999999999999", Facts: providers.Facts{Bedrooms: ptr(1)}})
	if set.Rows != 3 || set.Matched != 2 {
		t.Fatalf("published %+v, want 3 rows (one a key), 2 matched", set)
	}
	wantInt(t, "bedrooms of the newest year", facts(t, db, a.ID).Bedrooms, 4)
	wantInt(t, "bedrooms of the later row of the newest year", facts(t, db, b.ID).Bedrooms, 5)
}
