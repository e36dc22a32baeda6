package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("OSMExtractServesPlacesInsideItsCoverage", testOSMPlaces)
	register("OSMExtractInvisibleUntilPublishedAndReplacedWhole", testOSMReplace)
	register("OSMExtractLoadResumesAndSkipsSameFile", testOSMResume)
	register("OSMAddressNearestIsThePointClosestWithinTheRadius", testOSMAddressNearest)
	register("OSMAddressNearestPassesOverPointsTheCallerCannotUse", testOSMAddressNearestUsable)
	register("OSMExtractWithABoundaryServesOnlyWhatLiesInsideIt", testOSMBoundary)
	register("OSMPlacesNearReadsWhatItsFilterSelects", testOSMPlaceFilter)
	register("OSMBuildingsAreTheRowsOfTheirFactsDataset", testOSMBuildingFacts)
	// A Facts case: an engine with a second way of finding the records a
	// publish merges runs it through that way too.
	register("FactsOfBuildingsFollowTheirExtract", testFactsOfBuildingsFollowTheirExtract)
	register("FactsOfABuildingStopAtItsCourtyard", testFactsOfABuildingStopAtItsCourtyard)
}

// dc is a small extract's coverage around the White House.
var dc = providers.BBox{West: -77.12, South: 38.79, East: -76.90, North: 38.99}

var whiteHouse = providers.Point{Lat: 38.8977, Lng: -77.0365}

func place(id int64, cat, typ, name string, lat, lng float64) providers.OSMPlace {
	return providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: id, Version: 1},
		Category: cat, Type: typ, Name: name, NameKey: name, Point: providers.Point{Lat: lat, Lng: lng}}
}

// loadOSM loads one extract of places and publishes it.
func loadOSM(t *testing.T, db Store, name, fingerprint string, ts time.Time, places ...providers.OSMPlace) providers.OSMExtract {
	t.Helper()
	ctx := context.Background()
	load, _, err := db.BeginOSM(ctx, name, fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: places}, int64(len(places))); err != nil {
		t.Fatal(err)
	}
	x, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: dc, Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func placeNames(ps []providers.OSMPlace) map[string]bool {
	out := map[string]bool{}
	for _, p := range ps {
		out[p.Name] = true
	}
	return out
}

func testOSMPlaces(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	ts := time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC)
	school := place(1, "schools", "school", "Near School", 38.9000, -77.0365) // about 255 m north
	far := place(2, "parks", "park", "Far Park", 38.9300, -77.0365)           // about 3.6 km north
	building := providers.OSMBuilding{OSMRef: providers.OSMRef{Type: "way", ID: 10, Version: 3}, Building: "house",
		Footprint: square(38.8976, -77.0366, 38.8978, -77.0364), Point: whiteHouse, Levels: ptr(2.0), Flats: ptr(1), StartDate: "1925"}
	addr := providers.OSMAddress{OSMRef: providers.OSMRef{Type: "node", ID: 3, Version: 2}, HouseNumber: "1600",
		Street: "Pennsylvania Avenue Northwest", City: "Washington", Postcode: "20500", Point: whiteHouse}
	load, served, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil || served != nil || load.Generation == 0 {
		t.Fatalf("BeginOSM of a new extract = %+v, %+v, %v", load, served, err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: []providers.OSMPlace{school, far},
		Buildings: []providers.OSMBuilding{building}, Addresses: []providers.OSMAddress{addr}}, 5); err != nil {
		t.Fatal(err)
	}
	// Settled, the load is counted and still not served; published, it
	// says the same counts (loadOSM publishes a load it has not settled,
	// which PublishOSM settles itself).
	if err := db.SettleOSM(ctx, &load); err != nil {
		t.Fatal(err)
	}
	if load.Counts == nil || *load.Counts != (providers.OSMCounts{Places: 2, Buildings: 1, Addresses: 1}) {
		t.Errorf("the settled load's counts = %+v, want 2 places, 1 building, 1 address", load.Counts)
	}
	if _, _, err := db.OSMPlacesNear(ctx, providers.Circle{Center: whiteHouse, RadiusMeters: 2000}, providers.PlaceFilter{}); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("places of a settled load not yet published: %v, want not found", err)
	}
	x, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: dc, Timestamp: ts, Skipped: 1})
	if err != nil {
		t.Fatal(err)
	}
	if x.Places != 2 || x.Buildings != 1 || x.Addresses != 1 || x.Skipped != 1 || x.Date() != "2026-11-20" {
		t.Errorf("published extract = %+v, want 2 places, 1 building, 1 address, 1 skipped, dated 2026-11-20", x)
	}
	got, places, err := db.OSMPlacesNear(ctx, providers.Circle{Center: whiteHouse, RadiusMeters: 2000}, providers.PlaceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "dc" || !got.Timestamp.Equal(ts) || got.Coverage != dc {
		t.Errorf("the covering extract = %+v, want dc of %s covering %+v", got, ts, dc)
	}
	if names := placeNames(places); len(places) != 1 || !names["Near School"] {
		t.Errorf("places within 2 km = %+v, want only the school (the park is 3.6 km away)", places)
	} else if p := places[0]; p.OSMRef != school.OSMRef || p.Category != "schools" || p.Type != "school" || p.Point != school.Point {
		t.Errorf("the school came back as %+v, want %+v", p, school)
	}
	// A circle reaching past the coverage is not the extract's to answer.
	edge := providers.Point{Lat: 38.985, Lng: -77.0365}
	if _, _, err := db.OSMPlacesNear(ctx, providers.Circle{Center: edge, RadiusMeters: 2000}, providers.PlaceFilter{}); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("a circle crossing the coverage's edge: err = %v, want KindNotFound", err)
	}
	if _, _, err := db.OSMPlacesNear(ctx, providers.Circle{Center: providers.Point{Lat: 40.7, Lng: -74}, RadiusMeters: 500}, providers.PlaceFilter{}); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("a point outside every extract: err = %v, want KindNotFound", err)
	}
	xs, err := db.OSMExtracts(ctx)
	if err != nil || len(xs) != 1 || xs[0].Name != "dc" || xs[0].Places != 2 {
		t.Errorf("OSMExtracts = %+v, %v; want dc with 2 places", xs, err)
	}
}

func testOSMReplace(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	old := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	loadOSM(t, db, "dc", "f1", old, place(1, "schools", "school", "Old School", 38.9000, -77.0365),
		place(2, "banks", "bank", "Old Bank", 38.8990, -77.0365))

	// The newer extract, written but not published, is not read.
	newer := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	load, served, err := db.BeginOSM(ctx, "dc", "f2")
	if err != nil || served == nil || served.Fingerprint != "f1" {
		t.Fatalf("BeginOSM of a newer file = %+v, %+v, %v; want a new load beside f1", load, served, err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: []providers.OSMPlace{
		place(3, "schools", "school", "New School", 38.9000, -77.0360)}}, 1); err != nil {
		t.Fatal(err)
	}
	x, places, err := db.OSMPlacesNear(ctx, providers.Circle{Center: whiteHouse, RadiusMeters: 1000}, providers.PlaceFilter{})
	if err != nil || !x.Timestamp.Equal(old) || len(places) != 2 || !placeNames(places)["Old Bank"] {
		t.Fatalf("during the load: %+v, %+v, %v; want the old extract whole", x, places, err)
	}
	if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: dc, Timestamp: newer}); err != nil {
		t.Fatal(err)
	}
	x, places, err = db.OSMPlacesNear(ctx, providers.Circle{Center: whiteHouse, RadiusMeters: 1000}, providers.PlaceFilter{})
	if err != nil || !x.Timestamp.Equal(newer) || len(places) != 1 || !placeNames(places)["New School"] {
		t.Fatalf("after the publish: %+v, %+v, %v; want the new extract alone", x, places, err)
	}
	xs, err := db.OSMExtracts(ctx)
	if err != nil || len(xs) != 1 || xs[0].Places != 1 || xs[0].Fingerprint != "f2" {
		t.Errorf("OSMExtracts = %+v, %v; want dc from f2 with 1 place", xs, err)
	}
}

func testOSMResume(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	load, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	batch := providers.OSMBatch{}
	for i := range 10 {
		batch.Places = append(batch.Places, place(int64(i+1), "restaurants", "cafe", fmt.Sprint("Cafe ", i), 38.8980, -77.0365+float64(i)*1e-4))
	}
	if err := db.PutOSM(ctx, &load, batch, 10); err != nil {
		t.Fatal(err)
	}
	// Killed here; the same file again resumes after the checkpoint.
	again, _, err := open(t, nil).BeginOSM(ctx, "dc", "f1")
	if err != nil || !again.Resumed || again.Done != 10 || again.Generation != load.Generation {
		t.Fatalf("BeginOSM after a kill = %+v, %v; want the load resumed at 10", again, err)
	}
	// The load goes on after its checkpoint: a load writes each element
	// once (the loader's promise; the tables keep no key to merge a second
	// by, migration 0017), so the next batch holds the next elements.
	next := providers.OSMBatch{}
	for i := range 5 {
		next.Places = append(next.Places, place(int64(i+11), "restaurants", "cafe", fmt.Sprint("Cafe ", i+10), 38.8990, -77.0365+float64(i)*1e-4))
	}
	if err := db.PutOSM(ctx, &again, next, 15); err != nil || again.Done != 15 {
		t.Fatalf("PutOSM after the resume: %v, done %d; want done 15", err, again.Done)
	}
	x, err := db.PublishOSM(ctx, again, providers.OSMExtract{Coverage: dc, Timestamp: time.Now()})
	if err != nil || x.Places != 15 {
		t.Fatalf("published %+v, %v; want the 10 places written before the kill and the 5 after", x, err)
	}
	// The same file once published is nothing to do.
	none, served, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil || none.Generation != 0 || served == nil || served.Places != 15 {
		t.Errorf("BeginOSM of the file served = %+v, %+v, %v; want nothing to do", none, served, err)
	}
}

func testOSMAddressNearest(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	addr := func(id int64, number string, lat, lng float64) providers.OSMAddress {
		return providers.OSMAddress{OSMRef: providers.OSMRef{Type: "node", ID: id, Version: 1}, HouseNumber: number,
			Street: "Example Street Northwest", City: "Washington", Postcode: "20005", Point: providers.Point{Lat: lat, Lng: lng}}
	}
	near := addr(1, "1210", 38.89910, -77.03035) // about 4 m east of the point asked
	next := addr(2, "1212", 38.89910, -77.03060) // about 18 m west
	far := addr(3, "1300", 38.90010, -77.03010)  // about 112 m north
	load, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Addresses: []providers.OSMAddress{far, next, near}}, 3); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC)
	if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: dc, Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
	p := providers.Point{Lat: 38.89910, Lng: -77.03040}
	x, a, d, err := db.OSMAddressNearest(ctx, p, 30, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x.Name != "dc" || !x.Timestamp.Equal(ts) || a.OSMRef != near.OSMRef || a.HouseNumber != "1210" ||
		a.Street != near.Street || a.City != "Washington" || a.Postcode != "20005" || a.Point != near.Point {
		t.Errorf("the nearest address point = %+v of %+v, want %+v of dc", a, x, near)
	}
	if d < 3 || d > 6 {
		t.Errorf("its distance = %.1f m, want about 4", d)
	}
	// Nothing within the radius, or outside every extract: not found.
	if _, a, _, err := db.OSMAddressNearest(ctx, providers.Point{Lat: 38.8950, Lng: -77.0304}, 30, nil); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("no address point within 30 m: got %+v, %v; want KindNotFound", a, err)
	}
	if _, _, _, err := db.OSMAddressNearest(ctx, providers.Point{Lat: 40.7, Lng: -74}, 30, nil); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("a point outside every extract: err = %v, want KindNotFound", err)
	}
	if _, _, _, err := db.OSMAddressNearest(ctx, providers.Point{Lat: 91, Lng: 0}, 30, nil); providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("latitude 91: err = %v, want KindInvalid", err)
	}
}

// The nearest address point does not decide alone: the points the
// caller's usable refuses (here, as the reverse lookup refuses those whose
// postcode is no US form, or names another state) are passed over for the
// next within the radius, nearest first; the postcode comes back as it was written. None usable within the radius is
// not found.
func testOSMAddressNearestUsable(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	addr := func(id int64, postcode string, lat, lng float64) providers.OSMAddress {
		return providers.OSMAddress{OSMRef: providers.OSMRef{Type: "node", ID: id, Version: 1}, HouseNumber: fmt.Sprint(id),
			Street: "Hollis Avenue", City: "Queens Village", Postcode: postcode, Point: providers.Point{Lat: lat, Lng: lng}}
	}
	p := providers.Point{Lat: 40.7290, Lng: -73.7440}
	points := []providers.OSMAddress{
		addr(1, "V6J 3Y4", 40.72902, -73.74400),     // about 2 m
		addr(2, "11423;11426", 40.72904, -73.74400), // about 4 m
		addr(3, "NY 11423", 40.72906, -73.74400),    // about 7 m
		addr(5, "11428", 40.72880, -73.74400),       // about 22 m south
		addr(4, "11427", 40.72916, -73.74400),       // about 18 m
		addr(6, "11429", 40.72990, -73.74400),       // about 111 m: outside the radius
	}
	load, _, err := db.BeginOSM(ctx, "queens", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Addresses: points}, int64(len(points))); err != nil {
		t.Fatal(err)
	}
	nyc := providers.BBox{West: -74.3, South: 40.4, East: -73.7, North: 41.0}
	if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: nyc, Timestamp: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var asked []string
	plainZip := func(a providers.OSMAddress) bool {
		asked = append(asked, a.Postcode)
		return len(a.Postcode) == 5 && strings.Trim(a.Postcode, "0123456789") == ""
	}
	_, a, d, err := db.OSMAddressNearest(ctx, p, 30, plainZip)
	if err != nil || a.ID != 4 || a.Postcode != "11427" || d < 17 || d > 19 {
		t.Errorf("the nearest usable address point = %+v at %.1f m, %v; want node 4 (11427), about 18 m", a, d, err)
	}
	if want := []string{"V6J 3Y4", "11423;11426", "NY 11423", "11427"}; !slices.Equal(asked, want) {
		t.Errorf("usable was asked about %q; want the points nearest first until one is taken, %q", asked, want)
	}
	for _, want := range []providers.OSMAddress{points[0], points[1], points[2]} {
		_, a, _, err := db.OSMAddressNearest(ctx, p, 30, func(a providers.OSMAddress) bool { return a.ID == want.ID })
		if err != nil || a.Postcode != want.Postcode {
			t.Errorf("address point %d: postcode %q, %v; want it as written, %q", want.ID, a.Postcode, err, want.Postcode)
		}
	}
	if _, a, _, err := db.OSMAddressNearest(ctx, p, 30, nil); err != nil || a.ID != 1 {
		t.Errorf("with no usable: %+v, %v; want the nearest point, node 1", a, err)
	}
	none := func(providers.OSMAddress) bool { return false }
	if _, a, _, err := db.OSMAddressNearest(ctx, p, 30, none); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("no usable point within the radius: %+v, %v; want KindNotFound", a, err)
	}
}

// dcBoundary is a bounding polygon within dc's box, as a .poly file gives
// one: the box without its north-east corner east of -77.0 and north of
// 38.92 (the notch), and with a hole of about 870 by 1,110 m around
// 38.85, -77.06.
var dcBoundary = orb.MultiPolygon{{
	{{-77.12, 38.79}, {-76.90, 38.79}, {-76.90, 38.92}, {-77.0, 38.92}, {-77.0, 38.99}, {-77.12, 38.99}, {-77.12, 38.79}},
	{{-77.065, 38.845}, {-77.055, 38.845}, {-77.055, 38.855}, {-77.065, 38.855}, {-77.065, 38.845}},
}}

func testOSMBoundary(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	shape, err := wkb.Marshal(dcBoundary)
	if err != nil {
		t.Fatal(err)
	}
	at := func(id int64, name string, lat, lng float64) (providers.OSMPlace, providers.OSMAddress) {
		pt := providers.Point{Lat: lat, Lng: lng}
		return place(id, "restaurants", "cafe", name, lat, lng), providers.OSMAddress{OSMRef: providers.OSMRef{Type: "node", ID: id, Version: 1},
			HouseNumber: fmt.Sprint(id), Street: "Example Street Northwest", City: "Washington", Postcode: "20005", Point: pt}
	}
	inside, insideAddr := at(1, "Inside Cafe", 38.8980, -77.0365)
	notch, notchAddr := at(2, "Notch Cafe", 38.9500, -76.9500)
	hole, holeAddr := at(3, "Hole Cafe", 38.8500, -77.0600)

	// An older extract covering the whole box, without a boundary, and
	// the newer one with it: where the newer's polygon does not reach,
	// the older answers.
	older := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	newer := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, x := range []struct {
		name     string
		ts       time.Time
		boundary []byte
		places   []providers.OSMPlace
		addrs    []providers.OSMAddress
	}{
		{"wide", older, nil, []providers.OSMPlace{notch}, []providers.OSMAddress{notchAddr}},
		{"dc", newer, shape, []providers.OSMPlace{inside, notch, hole}, []providers.OSMAddress{insideAddr, notchAddr, holeAddr}},
	} {
		load, _, err := db.BeginOSM(ctx, x.name, "f-"+x.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: x.places, Addresses: x.addrs}, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: dc, Boundary: x.boundary, Timestamp: x.ts}); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name   string
		c      providers.Circle
		want   string // the extract that answers; "" none
		places int
	}{
		{"a circle inside the polygon", providers.Circle{Center: whiteHouse, RadiusMeters: 2000}, "dc", 1},
		{"a circle in the notch, inside the box", providers.Circle{Center: notch.Point, RadiusMeters: 1000}, "wide", 1},
		{"a circle crossing into the notch", providers.Circle{Center: providers.Point{Lat: 38.93, Lng: -77.01}, RadiusMeters: 2000}, "wide", 0},
		{"a circle around the hole", providers.Circle{Center: hole.Point, RadiusMeters: 300}, "wide", 0},
		{"a circle reaching past the box", providers.Circle{Center: providers.Point{Lat: 38.985, Lng: -77.05}, RadiusMeters: 2000}, "", 0},
	} {
		x, places, err := db.OSMPlacesNear(ctx, tc.c, providers.PlaceFilter{})
		switch {
		case tc.want == "" && providers.KindOf(err) != providers.KindNotFound:
			t.Errorf("%s: extract %q, %v; want no extract (KindNotFound)", tc.name, nameOf(x), err)
		case tc.want == "":
		case err != nil || x.Name != tc.want || len(places) != tc.places:
			t.Errorf("%s: extract %q, %d places, %v; want extract %s with %d places", tc.name, nameOf(x), len(places), err, tc.want, tc.places)
		}
	}

	for _, tc := range []struct {
		name string
		p    providers.Point
		want string
	}{
		{"a point inside the polygon", insideAddr.Point, "dc"},
		{"a point in the notch", notchAddr.Point, "wide"},
		// wide covers it, and has no address point there.
		{"a point in the hole", holeAddr.Point, ""},
	} {
		x, a, _, err := db.OSMAddressNearest(ctx, tc.p, 30, nil)
		switch {
		case tc.want == "" && providers.KindOf(err) != providers.KindNotFound:
			t.Errorf("%s: %+v of extract %q, %v; want none (KindNotFound)", tc.name, a, nameOf(x), err)
		case tc.want == "":
		case err != nil || x.Name != tc.want || a.Point != tc.p:
			t.Errorf("%s: %+v of extract %q, %v; want its address point from %s", tc.name, a, nameOf(x), err, tc.want)
		}
	}

	xs, err := db.OSMExtracts(ctx)
	if err != nil || len(xs) != 2 || xs[0].Name != "dc" || !reflect.DeepEqual(xs[0].Boundary, shape) || xs[1].Boundary != nil {
		t.Errorf("OSMExtracts = %d extracts, %v; want dc with its boundary as published and wide with none", len(xs), err)
	}
}

func nameOf(x *providers.OSMExtract) string {
	if x == nil {
		return ""
	}
	return x.Name
}

// testOSMPlaceFilter: what OSMPlacesNear reads of a circle is exactly the
// places within it that its filter selects (providers.PlaceFilter.Selects,
// by great-circle distance), whatever the filter, on places strewn over
// the circle's box and around its edge; a filter's smaller circle is no
// leave to answer for a circle the extract does not hold whole.
func testOSMPlaceFilter(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(22, 7))
	kinds := [][2]string{{"schools", "school"}, {"transit", "bus_stop"}, {"transit", "station"}, {"grocery", "convenience"},
		{"grocery", "supermarket"}, {"restaurants", "cafe"}}
	var all []providers.OSMPlace
	for i := range 600 {
		k := kinds[rng.IntN(len(kinds))]
		name := fmt.Sprint("Place ", rng.IntN(30))
		if rng.IntN(5) == 0 {
			name = ""
		}
		// Over the 2 km circle's box, its corners included.
		p := place(int64(i+1), k[0], k[1], name, whiteHouse.Lat+(rng.Float64()-0.5)*0.038, whiteHouse.Lng+(rng.Float64()-0.5)*0.05)
		all = append(all, p)
	}
	loadOSM(t, db, "dc", "f1", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), all...)
	c := providers.Circle{Center: whiteHouse, RadiusMeters: 2000}
	for _, f := range []providers.PlaceFilter{
		{},
		{Within: 700},
		{Categories: []string{"schools"}},
		{Types: []string{"station", "supermarket"}},
		{NameKeys: []string{"Place 3", "Place 17"}},
		{Categories: []string{"restaurants"}, Types: []string{"station"}, NameKeys: []string{"Place 4"}},
		{Within: 1200, Types: []string{"bus_stop"}},
		{NameKeys: []string{""}},
		{Within: 5000},
	} {
		_, got, err := db.OSMPlacesNear(ctx, c, f)
		if err != nil {
			t.Fatalf("filter %+v: %v", f, err)
		}
		var want []int64
		for _, p := range all {
			if c.Contains(p.Point) && f.Selects(c.Center, p) {
				want = append(want, p.ID)
			}
		}
		var ids []int64
		for _, p := range got {
			ids = append(ids, p.ID)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Errorf("filter %+v: read %d places %v, want the %d it selects %v", f, len(ids), ids, len(want), want)
		}
	}
	edge := providers.Circle{Center: providers.Point{Lat: 38.985, Lng: -77.0365}, RadiusMeters: 2000}
	if _, _, err := db.OSMPlacesNear(ctx, edge, providers.PlaceFilter{Within: 100}); providers.KindOf(err) != providers.KindNotFound {
		t.Errorf("a circle crossing the coverage's edge, read within 100 m of its center: err = %v, want KindNotFound", err)
	}
}

// The facts of an extract's buildings are written with the buildings, and
// PutOSMFacts makes the facts dataset's rows of them: one a building that
// gives facts, in place of what the facts load held (a run cut short),
// the same when run again.
func testOSMBuildingFacts(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	inA, _, _ := db.Save(ctx, NewAt("1 ELM ST", 38.8977, -77.0365))
	inB, _, _ := db.Save(ctx, NewAt("3 ELM ST", 38.8987, -77.0365))
	inC, _, _ := db.Save(ctx, NewAt("5 ELM ST", 38.8997, -77.0365))
	a := providers.OSMBuilding{OSMRef: providers.OSMRef{Type: "way", ID: 10, Version: 3}, Building: "house",
		Footprint: square(38.8976, -77.0366, 38.8978, -77.0364), Point: whiteHouse, Levels: ptr(2.0), Flats: ptr(1),
		StartDate: "1925", Facts: providers.Facts{PropertyType: ptr("single_family"), Stories: ptr(2.0), Units: ptr(1),
			YearBuilt: ptr(1925)}}
	b := providers.OSMBuilding{OSMRef: providers.OSMRef{Type: "relation", ID: 11, Version: 1}, Building: "yes",
		Footprint: square(38.8986, -77.0366, 38.8988, -77.0364), Point: providers.Point{Lat: 38.8987, Lng: -77.0365}}
	c := providers.OSMBuilding{OSMRef: providers.OSMRef{Type: "relation", ID: 12, Version: 1}, Building: "apartments",
		Footprint: square(38.8996, -77.0366, 38.8998, -77.0364), Point: providers.Point{Lat: 38.8997, Lng: -77.0365},
		Facts: providers.Facts{PropertyType: ptr("multi_family")}}
	load, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Buildings: []providers.OSMBuilding{a, b}}, 2); err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Buildings: []providers.OSMBuilding{c}}, 3); err != nil {
		t.Fatal(err)
	}
	fl, _, err := db.BeginFacts(ctx, "osm-dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	// A row the facts load held that no building gives (a run cut short).
	if err := db.PutFacts(ctx, &fl, nil, []providers.FactRow{{Key: "way/99", Point: &whiteHouse,
		Facts: providers.Facts{Bedrooms: ptr(7)}}}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSMFacts(ctx, load, &fl, 3); err != nil || fl.Done != 3 {
		t.Fatalf("PutOSMFacts: %v, checkpoint %d; want 3", err, fl.Done)
	}
	// Killed here: the facts load resumes at its checkpoint, and making
	// its rows again makes the same rows.
	again := open(t, nil)
	r, _, err := again.BeginFacts(ctx, "osm-dc", "f1")
	if err != nil || !r.Resumed || r.Done != 3 {
		t.Fatalf("BeginFacts after a kill = %+v, %v; want resumed at 3", r, err)
	}
	if err := again.PutOSMFacts(ctx, load, &r, 3); err != nil {
		t.Fatal(err)
	}
	set, err := again.PublishFacts(ctx, r, providers.FactSet{Source: "openstreetmap", Priority: 1 << 20, AsOf: "2026-11-20"}, nil)
	if err != nil || set.Rows != 2 || set.Matched != 2 {
		t.Fatalf("published %+v, %v; want 2 rows (the buildings that give facts) matching 2 records", set, err)
	}
	got := facts(t, again, inA.ID)
	if got.PropertyType == nil || *got.PropertyType != "single_family" || got.Stories == nil || *got.Stories != 2 {
		t.Errorf("record inside the house: type %v, stories %v; want single_family, 2", deref(got.PropertyType), deref(got.Stories))
	}
	wantInt(t, "units of the record inside the house", got.Units, 1)
	wantInt(t, "year of the record inside the house", got.YearBuilt, 1925)
	wantNil(t, "bedrooms of the row the facts load held", got.Bedrooms)
	other := facts(t, again, inB.ID)
	wantNil(t, "type of the record inside a building that gives no facts", other.PropertyType)
	wantNil(t, "year of the record inside a building that gives no facts", other.YearBuilt)
	if p := facts(t, again, inC.ID).PropertyType; p == nil || *p != "multi_family" {
		t.Errorf("record inside the apartments: type %v, want multi_family", deref(p))
	}
}

// building is a building of an extract whose footprint is the square
// south..north, west..east, giving facts f.
func building(id int64, kind string, south, west, north, east float64, f providers.Facts) providers.OSMBuilding {
	return providers.OSMBuilding{OSMRef: providers.OSMRef{Type: "way", ID: id, Version: 1}, Building: kind,
		Footprint: square(south, west, north, east), Point: providers.Point{Lat: (south + north) / 2, Lng: (west + east) / 2},
		Facts: f}
}

// loadBuildings loads an extract of buildings and its facts dataset, and
// publishes the facts; it publishes the extract too unless facts only
// (a load killed between the two).
func loadBuildings(t *testing.T, db Store, fingerprint string, factsOnly bool, bs ...providers.OSMBuilding) providers.FactSet {
	t.Helper()
	ctx := context.Background()
	load, _, err := db.BeginOSM(ctx, "dc", fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Buildings: bs}, int64(len(bs))); err != nil {
		t.Fatal(err)
	}
	fl, _, err := db.BeginFacts(ctx, "osm-dc", fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSMFacts(ctx, load, &fl, int64(len(bs))); err != nil {
		t.Fatal(err)
	}
	set, err := db.PublishFacts(ctx, fl, providers.FactSet{Source: "openstreetmap", Priority: 1 << 20, AsOf: "2026-11-20"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !factsOnly {
		if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: dc, Timestamp: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	return set
}

// The buildings of an extract are the rows of its facts dataset where they
// stand (small ones) or copied (those larger than a latitude band): the
// records inside either take their facts, at the publish and when saved
// after it. A newer extract's buildings replace them whole, the records of
// the former ones losing what they gave. The buildings a served facts
// dataset reads stay while it does, even when the extract they came with
// never got published and another file's load abandons it.
func testFactsOfBuildingsFollowTheirExtract(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	save := func(name string, lat, lng float64) int64 {
		t.Helper()
		p, _, err := db.Save(ctx, NewAt(name, lat, lng))
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	typeOf := func(id int64) any { return deref(facts(t, db, id).PropertyType) }
	house := building(10, "house", 38.8976, -77.0366, 38.8978, -77.0364,
		providers.Facts{PropertyType: ptr("single_family"), YearBuilt: ptr(1925)})
	// More than 0.005 degrees on a side: too large for the bands.
	hangar := building(11, "apartments", 38.9000, -77.0300, 38.9070, -77.0230,
		providers.Facts{PropertyType: ptr("multi_family"), Units: ptr(400)})
	terrace := building(12, "terrace", 38.8986, -77.0366, 38.8988, -77.0364, providers.Facts{PropertyType: ptr("townhouse")})
	bare := building(13, "yes", 38.8996, -77.0366, 38.8998, -77.0364, providers.Facts{})
	// 0.002 degrees a side: of the bands' second size.
	block := building(14, "apartments", 38.9100, -77.0400, 38.9120, -77.0380,
		providers.Facts{PropertyType: ptr("multi_family"), Stories: ptr(6.0)})

	inHouse := save("1 ELM ST", 38.8977, -77.0365)
	inBlock := save("10 ELM ST", 38.9119, -77.0381) // its north-east corner: far from the west edge
	inHangar := save("2 ELM ST", 38.9069, -77.0231) // near the corner: outside the bands' reach of its west edge
	inTerrace := save("3 ELM ST", 38.8987, -77.0365)
	set := loadBuildings(t, db, "f1", false, house, hangar, bare, block)
	if set.Rows != 3 || set.Matched != 3 {
		t.Fatalf("first extract published %d rows matching %d records; want its 3 buildings that give facts, 3 records", set.Rows, set.Matched)
	}
	if s := facts(t, db, inBlock).Stories; s == nil || *s != 6 {
		t.Errorf("stories of the record inside the block = %v, want 6", deref(s))
	}
	if got := typeOf(save("11 ELM ST", 38.9101, -77.0381)); got != "multi_family" {
		t.Errorf("record saved inside the block after the publish: type %v, want multi_family", got)
	}
	if got := typeOf(inHouse); got != "single_family" {
		t.Errorf("record inside the house: type %v, want single_family", got)
	}
	wantInt(t, "year of the record inside the house", facts(t, db, inHouse).YearBuilt, 1925)
	wantInt(t, "units of the record inside the large building", facts(t, db, inHangar).Units, 400)
	wantNil(t, "type of the record where no building of the extract stands yet", facts(t, db, inTerrace).PropertyType)
	if got := typeOf(save("4 ELM ST", 38.89775, -77.03655)); got != "single_family" {
		t.Errorf("record saved inside the house after the publish: type %v, want single_family", got)
	}
	if got := typeOf(save("5 ELM ST", 38.9001, -77.0299)); got != "multi_family" {
		t.Errorf("record saved inside the large building after the publish: type %v, want multi_family", got)
	}
	wantNil(t, "type of a record saved inside a building that gives no facts", facts(t, db, save("6 ELM ST", 38.8997, -77.0365)).PropertyType)

	// A second file's facts are published, and its load killed before its
	// extract is: the extract served is the first file's, its facts the
	// second's. A third file's load then abandons the second's.
	set = loadBuildings(t, db, "f2", true, terrace)
	if set.Rows != 1 || set.Matched != 1 {
		t.Fatalf("second extract published %d rows matching %d records; want 1 and 1", set.Rows, set.Matched)
	}
	wantNil(t, "type of the record inside the house the second extract lacks", facts(t, db, inHouse).PropertyType)
	wantNil(t, "units of the record inside the large building the second extract lacks", facts(t, db, inHangar).Units)
	if got := typeOf(inTerrace); got != "townhouse" {
		t.Errorf("record inside the second extract's terrace: type %v, want townhouse", got)
	}
	if _, _, err := db.BeginOSM(ctx, "dc", "f3"); err != nil {
		t.Fatal(err)
	}
	if got := typeOf(save("7 ELM ST", 38.89875, -77.03655)); got != "townhouse" {
		t.Errorf("record saved inside the served terrace after its extract's load was abandoned: type %v, want townhouse", got)
	}
	wantNil(t, "type of a record saved inside the house no served facts hold", facts(t, db, save("8 ELM ST", 38.89772, -77.03652)).PropertyType)

	// The third file, whole: the house again, the terrace gone.
	set = loadBuildings(t, db, "f3", false, house)
	if set.Rows != 1 {
		t.Fatalf("third extract published %d rows; want 1", set.Rows)
	}
	wantNil(t, "type of the record inside the terrace the third extract lacks", facts(t, db, inTerrace).PropertyType)
	if got := typeOf(inHouse); got != "single_family" {
		t.Errorf("record inside the third extract's house: type %v, want single_family", got)
	}
	wantNil(t, "type of a record saved inside the terrace after the third extract", facts(t, db, save("9 ELM ST", 38.89865, -77.03645)).PropertyType)
}

// ReplacedBuildingsGo checks, through count (which runs a query of one
// number on the engine's database), what a newer extract leaves of the
// former one's buildings: nothing. Its buildings, their band entries and
// the naming of its generation by the facts load go, only the building
// larger than a band was copied into fact_rows, and the dataset says once
// that it has rows found by coordinates. The engines' own tests run it:
// the table above sees the store through its interface only.
func ReplacedBuildingsGo(t *testing.T, db Store, count func(t *testing.T, query string) int64) {
	house := building(10, "house", 38.8976, -77.0366, 38.8978, -77.0364, providers.Facts{PropertyType: ptr("single_family")})
	terrace := building(12, "terrace", 38.8986, -77.0366, 38.8988, -77.0364, providers.Facts{PropertyType: ptr("townhouse")})
	bare := building(13, "yes", 38.8996, -77.0366, 38.8998, -77.0364, providers.Facts{})
	// More than a latitude band a side: copied into fact_rows.
	hangar := building(11, "apartments", 38.9000, -77.0300, 38.9070, -77.0230, providers.Facts{Units: ptr(400)})
	loadBuildings(t, db, "f1", false, house, bare)
	loadBuildings(t, db, "f2", false, terrace, bare, hangar)
	for _, c := range []struct {
		query string
		want  int64
	}{
		{`SELECT COUNT(*) FROM osm_buildings`, 3},
		{`SELECT COUNT(*) FROM osm_buildings WHERE generation = 2`, 3},
		{`SELECT COUNT(*) FROM osm_building_bands`, 1},
		{`SELECT COUNT(*) FROM osm_building_bands WHERE generation = 2`, 1},
		{`SELECT COUNT(*) FROM fact_buildings`, 1},
		{`SELECT COUNT(*) FROM fact_buildings WHERE dataset = 'osm-dc' AND generation = 2 AND osm_generation = 2`, 1},
		{`SELECT COUNT(*) FROM fact_rows WHERE row_key <> 'way/11'`, 0},
		{`SELECT COUNT(*) FROM fact_rows WHERE dataset = 'osm-dc' AND generation = 2 AND row_key = 'way/11'`, 1},
		// Said once, though both its large copy and its bands find
		// records by coordinates.
		{`SELECT point_rows FROM fact_sets WHERE dataset = 'osm-dc'`, 1},
	} {
		if got := count(t, c.query); got != c.want {
			t.Errorf("%s = %d after a second extract, want %d", c.query, got, c.want)
		}
	}
}

// BuildingFactsCopiedBefore0016Go checks a store upgraded from schema 15
// with a facts dataset of an extract's buildings as 15 served it: each
// building copied into fact_rows (and fact_parcel_bands), a house at
// whiteHouse giving single_family. After the upgrade it is served from
// there as before; the extract's next load serves its buildings where they
// stand, the record inside the former copy losing its facts and the
// copies going (count runs a COUNT query on the engine's database). The
// engines' migration tests run it on the database they upgraded.
func BuildingFactsCopiedBefore0016Go(t *testing.T, db Store, count func(t *testing.T, query string) int64) {
	ctx := context.Background()
	old, _, err := db.Save(ctx, NewAt("1 ELM ST", 38.8977, -77.0365))
	if err != nil {
		t.Fatal(err)
	}
	if old.PropertyType == nil || *old.PropertyType != "single_family" {
		t.Fatalf("record inside a building copied before 0016: type %v, want single_family", deref(old.PropertyType))
	}
	terrace := building(12, "terrace", 38.8986, -77.0366, 38.8988, -77.0364, providers.Facts{PropertyType: ptr("townhouse")})
	loadBuildings(t, db, "f2", true, terrace)
	wantNil(t, "type of the record inside the former copy after the next load", facts(t, db, old.ID).PropertyType)
	in, _, err := db.Save(ctx, NewAt("3 ELM ST", 38.8987, -77.0365))
	if err != nil || in.PropertyType == nil || *in.PropertyType != "townhouse" {
		t.Errorf("record inside the next load's building: %v, %v; want townhouse", in, err)
	}
	for _, q := range []string{`SELECT COUNT(*) FROM fact_rows`, `SELECT COUNT(*) FROM fact_parcel_bands`} {
		if n := count(t, q); n != 0 {
			t.Errorf("%s = %d after the next load, want the copies gone", q, n)
		}
	}
}

// ReplacedFeaturesGo checks, through count (a query of one number on the
// engine's database), that a newer extract drops every feature of the
// former one, which is dropped a range of ids at a time: more features
// than one statement drops (dropBatch), written in two loads whose ids
// straddle those of another extract loaded between them, whose features
// all stay. The engines' own tests run it.
func ReplacedFeaturesGo(t *testing.T, db Store, count func(t *testing.T, query string) int64) {
	ctx := context.Background()
	ts := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	many := func(from, n int) []providers.OSMPlace {
		out := make([]providers.OSMPlace, n)
		for i := range out {
			out[i] = place(int64(from+i), "parks", "park", "Park", 38.85+float64(i)*1e-5, -77.05)
		}
		return out
	}
	dcLoad, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &dcLoad, providers.OSMBatch{Places: many(1, 6000)}, 6000); err != nil {
		t.Fatal(err)
	}
	// Another extract written between the first's batches.
	loadOSM(t, db, "va", "v1", ts, many(100000, 7)...)
	addr := providers.OSMAddress{OSMRef: providers.OSMRef{Type: "node", ID: 9, Version: 1}, HouseNumber: "1",
		Street: "Main Street", Point: whiteHouse}
	if err := db.PutOSM(ctx, &dcLoad, providers.OSMBatch{Places: many(6001, 5000), Addresses: []providers.OSMAddress{addr}}, 11001); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishOSM(ctx, dcLoad, providers.OSMExtract{Coverage: dc, Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, `SELECT COUNT(*) FROM osm_places`); n != 11007 {
		t.Fatalf("places of both extracts = %d, want 11,007", n)
	}
	loadOSM(t, db, "dc", "f2", ts.Add(24*time.Hour), place(1, "schools", "school", "New School", 38.9, -77.03))
	for _, c := range []struct {
		query string
		want  int64
	}{
		{`SELECT COUNT(*) FROM osm_places`, 8},
		{`SELECT COUNT(*) FROM osm_places WHERE name = 'Park'`, 7},
		{`SELECT COUNT(*) FROM osm_addresses`, 0},
		{`SELECT COUNT(DISTINCT generation) FROM osm_places`, 2},
	} {
		if got := count(t, c.query); got != c.want {
			t.Errorf("%s = %d after the newer extract of dc, want %d", c.query, got, c.want)
		}
	}
}

// Before0017Extract, Before0017Place, Before0017Address and
// Before0017Building are the rows an engine's test writes into a database
// of schema 16 before FeaturesKeptThrough0017Go upgrades it: extract dc (generation 1, served, over the box dc) with the
// restaurant node 1 at the White House, the address node 2 beside it and
// the house way 3 (its footprint any bytes: nothing reads it here). The
// columns of each table are its 0008-0016 ones.
const (
	Before0017Extract = `INSERT INTO osm_extracts (name, generation, min_lat, max_lat, min_lng, max_lng, timestamp, fingerprint,
		places, buildings, addresses, skipped, loaded_at)
		VALUES ('dc', 1, 38.79, 38.99, -77.12, -76.90, '2026-11-20T21:00:00Z', 'f1', 1, 1, 1, 0, '2026-11-20T22:00:00.000Z')`
	Before0017Place = `INSERT INTO osm_places (id, generation, osm_type, osm_id, version, category, type, name, name_key, latitude, longitude)
		VALUES (7, 1, 'node', 1, 3, 'restaurants', 'restaurant', 'Old Ebbitt', 'old ebbitt', 38.8977, -77.0365)`
	Before0017Address = `INSERT INTO osm_addresses (id, generation, osm_type, osm_id, version, housenumber, street, unit, city, postcode,
		latitude, longitude)
		VALUES (8, 1, 'node', 2, 1, '1600', 'Pennsylvania Avenue Northwest', '', 'Washington', '20500', 38.89771, -77.03651)`
	Before0017Building = `INSERT INTO osm_buildings (id, generation, osm_type, osm_id, version, building, shape,
		min_lat, max_lat, min_lng, max_lng, latitude, longitude, property_type)
		VALUES (9, 1, 'way', 3, 1, 'house', '', 38.8976, 38.8978, -77.0366, -77.0364, 38.8977, -77.0365, 'single_family')`
)

// FeaturesKeptThrough0017Go checks, through count, an extract written
// before migration 0017 (the Before0017 rows) after it: 0017 made the feature
// tables again without their unique key of an element (SQLite cannot
// drop it in place), and every row is served as before, with its id; the
// key is gone, and the tables still say which rows a generation has.
func FeaturesKeptThrough0017Go(t *testing.T, db Store, count func(t *testing.T, query string) int64) {
	ctx := context.Background()
	x, places, err := db.OSMPlacesNear(ctx, providers.Circle{Center: whiteHouse, RadiusMeters: 500}, providers.PlaceFilter{})
	if err != nil || x.Name != "dc" || len(places) != 1 || places[0].Name != "Old Ebbitt" || places[0].OSMRef != (providers.OSMRef{Type: "node", ID: 1, Version: 3}) {
		t.Fatalf("places after 0017 = %+v of %+v, %v; want Old Ebbitt of dc", places, x, err)
	}
	_, a, _, err := db.OSMAddressNearest(ctx, whiteHouse, 30, nil)
	if err != nil || a.HouseNumber != "1600" || a.Street != "Pennsylvania Avenue Northwest" || a.Postcode != "20500" {
		t.Fatalf("address after 0017 = %+v, %v; want 1600 Pennsylvania Avenue Northwest", a, err)
	}
	for q, want := range map[string]int64{
		`SELECT COUNT(*) FROM osm_places WHERE id = 7 AND generation = 1`:                                        1,
		`SELECT COUNT(*) FROM osm_addresses WHERE id = 8 AND generation = 1`:                                     1,
		`SELECT COUNT(*) FROM osm_buildings WHERE id = 9 AND generation = 1 AND property_type = 'single_family'`: 1,
	} {
		if n := count(t, q); n != want {
			t.Errorf("%s = %d after 0017, want %d", q, n, want)
		}
	}
	// Without the key a second row of an element is taken as written:
	// the loader never writes one (each element once), nothing merges it.
	load, _, err := db.BeginOSM(ctx, "dc", "f2")
	if err != nil {
		t.Fatal(err)
	}
	twice := place(1, "restaurants", "restaurant", "Old Ebbitt", 38.8977, -77.0365)
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: []providers.OSMPlace{twice, twice}}, 1); err != nil {
		t.Fatalf("an element written twice in a load after 0017: %v", err)
	}
	if n := count(t, `SELECT COUNT(*) FROM osm_places WHERE osm_type = 'node' AND osm_id = 1`); n != 3 {
		t.Errorf("rows of node 1 = %d, want the former one and the two written", n)
	}
}

// courtyarded is a building of an extract whose footprint is the square
// south..north, west..east less the square hole inside it (a multipolygon
// with an inner ring, as package osmextract writes one), giving facts f.
func courtyarded(id int64, south, west, north, east float64, hole [4]float64, f providers.Facts) providers.OSMBuilding {
	hs, hw, hn, he := hole[0], hole[1], hole[2], hole[3]
	mp := orb.MultiPolygon{{
		{{west, south}, {east, south}, {east, north}, {west, north}, {west, south}},
		{{hw, hs}, {he, hs}, {he, hn}, {hw, hn}, {hw, hs}},
	}}
	raw, err := wkb.Marshal(mp)
	if err != nil {
		panic(err)
	}
	return providers.OSMBuilding{OSMRef: providers.OSMRef{Type: "relation", ID: id, Version: 1}, Building: "apartments",
		Footprint: &providers.Parcel{WKB: raw, South: south, North: north, West: west, East: east},
		Point:     providers.Point{Lat: (south + north) / 2, Lng: (west + east) / 2}, Facts: f}
}

// A building's courtyard (a hole of its footprint) is not the building: a
// record in it takes none of the building's facts, at the publish or saved
// after it, whether the building is small (its bands) or large (copied as
// a parcel), while a record in the building around it takes them.
func testFactsOfABuildingStopAtItsCourtyard(t *testing.T, open Opener) {
	db := open(t, nil)
	ctx := context.Background()
	save := func(name string, lat, lng float64) int64 {
		t.Helper()
		p, _, err := db.Save(ctx, NewAt(name, lat, lng))
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	typeOf := func(id int64) any { return deref(facts(t, db, id).PropertyType) }
	small := courtyarded(20, 38.8970, -77.0370, 38.8976, -77.0362, [4]float64{38.8972, -77.0368, 38.8974, -77.0364},
		providers.Facts{PropertyType: ptr("multi_family"), Stories: ptr(6.0)})
	// More than 0.005 degrees on a side: too large for the bands.
	large := courtyarded(21, 38.9000, -77.0300, 38.9070, -77.0230, [4]float64{38.9020, -77.0280, 38.9050, -77.0250},
		providers.Facts{PropertyType: ptr("multi_family"), Units: ptr(400)})
	inSmall, inSmallCourt := save("1 COURT ST", 38.8971, -77.0366), save("3 COURT ST", 38.8973, -77.0366)
	inLarge, inLargeCourt := save("5 COURT ST", 38.9010, -77.0265), save("7 COURT ST", 38.9035, -77.0265)
	if set := loadBuildings(t, db, "f1", false, small, large); set.Rows != 2 || set.Matched != 2 {
		t.Fatalf("published %d rows matching %d records; want the 2 buildings, matching the 2 records inside them (not those of their courtyards)",
			set.Rows, set.Matched)
	}
	for what, id := range map[string]int64{"the small building": inSmall, "the large building": inLarge,
		"the small building, saved after the publish": save("9 COURT ST", 38.89755, -77.0366),
		"the large building, saved after the publish": save("11 COURT ST", 38.9060, -77.0265)} {
		if got := typeOf(id); got != "multi_family" {
			t.Errorf("record inside %s: type %v, want multi_family", what, got)
		}
	}
	for what, id := range map[string]int64{"the small building's courtyard": inSmallCourt, "the large building's courtyard": inLargeCourt,
		"the small building's courtyard, saved after the publish": save("13 COURT ST", 38.89735, -77.0365),
		"the large building's courtyard, saved after the publish": save("15 COURT ST", 38.9040, -77.0260)} {
		if got := facts(t, db, id); got.PropertyType != nil || got.Stories != nil || got.Units != nil {
			t.Errorf("record inside %s: type %v, stories %v, units %v; want none of the building's facts",
				what, deref(got.PropertyType), deref(got.Stories), deref(got.Units))
		}
	}
}
