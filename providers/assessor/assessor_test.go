package assessor_test

// The fixtures under testdata/ are written in the publishers' own columns
// and formats, with invented values (see each preset's comment in
// presets.go for where the format is documented):
//   - cook-county/: the SODA API CSVs of the Cook County Assessor's
//     "Single and Multi-Family Improvement Characteristics" (x54s-btds)
//     and "Parcel Addresses" (3723-97qp), columns as in
//     ccao-data/data-architecture's open_data views;
//   - nyc-pluto/pluto.csv: the CSV DCP's PLUTO build writes (export_pluto);
//   - allegheny/assessments.csv: Allegheny County's assessment master file
//     as WPRDC publishes it.

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/assessor"
	"github.com/propertyd/propertyd/store"
)

var testNow = func() time.Time { return time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC) }

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// lookup saves the record a lookup of the address would create: the
// geocoder's canonical address (matched) and the client's unit.
func lookup(t *testing.T, db *store.DB, matched, unit string, lat, lng float64) *providers.Property {
	t.Helper()
	parts := strings.Split(matched, ", ")
	p, _, err := db.Save(context.Background(), providers.NewProperty{
		Property: providers.Property{StreetAddress: parts[0], Unit: unit, City: parts[1], State: parts[2], ZipCode: parts[3],
			Latitude: lat, Longitude: lng, Source: "census"},
		Canonical: address.Canonical(matched),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testOptions are Options with the dataset to load when not a preset.
type testOptions struct {
	assessor.Options
	Dataset *assessor.Dataset
}

func load(t *testing.T, db providers.FactStore, preset string, o any, files ...string) assessor.Result {
	t.Helper()
	var opts assessor.Options
	var d assessor.Dataset
	var err error
	switch o := o.(type) {
	case assessor.Options:
		opts = o
		d, err = assessor.Dataset{Name: preset, Preset: preset, AsOf: "2026-09-30"}.Resolve()
	case testOptions:
		opts = o.Options
		d, err = o.Dataset.Resolve()
	}
	if err != nil {
		t.Fatal(err)
	}
	if opts.Now == nil {
		opts.Now = testNow
	}
	if opts.Priority == 0 {
		opts.Priority = 1
	}
	res, err := assessor.Load(context.Background(), db, d, files, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type want struct {
	ptype                       string
	beds, area, lot, year, unit int // -1: unknown
	baths, stories              float64
}

func check(t *testing.T, db *store.DB, id int64, name string, w want) {
	t.Helper()
	p, err := db.Property(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	f := p.Facts()
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	i := func(v *int) int {
		if v == nil {
			return -1
		}
		return *v
	}
	fl := func(v *float64) float64 {
		if v == nil {
			return -1
		}
		return *v
	}
	got := want{str(f.PropertyType), i(f.Bedrooms), i(f.LivingAreaSqft), i(f.LotSqft), i(f.YearBuilt), i(f.Units), fl(f.Bathrooms), fl(f.Stories)}
	if got != w {
		t.Errorf("%s: facts %+v, want %+v", name, got, w)
	}
}

func failures(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != "file,line,key,kept,reason" {
		t.Fatalf("failures file header %v", recs)
	}
	out := map[string][]string{}
	for _, r := range recs[1:] {
		if _, dup := out[r[2]]; dup {
			t.Errorf("failure of %s written twice", r[2])
		}
		out[r[2]] = r
	}
	return out
}

func TestCookCountyPreset(t *testing.T) {
	db := openStore(t)
	dir := t.TempDir()
	ck1 := lookup(t, db, "4417 N KEDZIE AVE, CHICAGO, IL, 60625", "", 41.9621, -87.7084)
	ck3 := lookup(t, db, "4425 N KEDZIE AVE, CHICAGO, IL, 60625", "", 41.9623, -87.7084)
	ck5 := lookup(t, db, "2917 N DAMEN AVE, CHICAGO, IL, 60618", "", 41.9350, -87.6787)
	ck6 := lookup(t, db, "3540 W IRVING PARK RD, CHICAGO, IL, 60618", "", 41.9539, -87.7148)
	ck7 := lookup(t, db, "6118 N HARLEM AVE, CHICAGO, IL, 60631", "", 41.9930, -87.8067)
	ck8 := lookup(t, db, "5208 N SHERIDAN RD, CHICAGO, IL, 60640", "UNIT 1A", 41.9765, -87.6551)
	bad1 := lookup(t, db, "4501 N KEDZIE AVE, CHICAGO, IL, 60625", "", 41.9636, -87.7084)

	fails := filepath.Join(dir, "failures.csv")
	// The files in either order: the one with the address columns is the key file.
	res := load(t, db, "cook-county", assessor.Options{Failures: fails},
		"testdata/cook-county/characteristics.csv", "testdata/cook-county/addresses.csv")
	if res.Read != 230+234 || res.Set.Source != "cook-county-assessor" || res.Set.AsOf != "2026-09-30" {
		t.Fatalf("result %+v", res)
	}
	check(t, db, ck1.ID, "CK1 (203)", want{"single_family", 3, 1210, 3750, 1926, -1, 1.5, 1})
	check(t, db, ck3.ID, "CK3 (211, two apartments)", want{"multi_family", 5, 2460, 3125, 1918, 2, 2, 2})
	// Two cards: the main building (card 1) gives the facts.
	check(t, db, ck5.ID, "CK5 (multi-card)", want{"single_family", 4, 2400, 6250, 1895, -1, 2.5, 2})
	check(t, db, ck6.ID, "CK6 (2024 over 2023)", want{"single_family", 3, 1320, 3125, 1951, -1, 1.5, 1})
	check(t, db, ck7.ID, "CK7 (split level)", want{"single_family", 3, 1540, 7200, 1962, -1, 1.5, -1})
	check(t, db, ck8.ID, "CK8 (condo unit, no characteristics)", want{"", -1, -1, -1, -1, -1, -1, -1})
	check(t, db, bad1.ID, "BAD1 (year 19x6, bedrooms three)", want{"single_family", -1, 1200, 3125, -1, -1, 1, 1})

	// A record created after the load has its facts at once.
	ck2 := lookup(t, db, "4421 N KEDZIE AVE, CHICAGO, IL, 60625", "", 41.9622, -87.7084)
	check(t, db, ck2.ID, "CK2 (looked up after the load)", want{"single_family", 4, 1880, 3125, 1912, -1, 2, 2})
	if ck2.Bedrooms == nil || *ck2.Bedrooms != 4 || !strings.Contains(ck2.FactsOrigin, `"source":"cook-county-assessor","as_of":"2026-09-30"`) {
		t.Fatalf("Save of a new record returned %+v %s, want its facts", ck2.Facts(), ck2.FactsOrigin)
	}

	f := failures(t, fails)
	for key, reason := range map[string]string{
		"13141070900000": "year_built", "13141070910000": "year_built: must be from 1600 to 2027, not 1492",
		"13141070930000": "bedrooms: must be a whole number from 0 to 100, not 400",
		"13141070950000": `property_type: class: unknown code "2Q9"`,
	} {
		if r, ok := f[key]; !ok || r[3] != "yes" || !strings.Contains(r[4], reason) {
			t.Errorf("failure of %s = %v, want kept with %q", key, r, reason)
		}
	}
	if r, ok := f["13141070940000"]; !ok || r[3] != "no" || !strings.Contains(r[4], "address") {
		// BAD5: blank address in the addresses file.
		t.Errorf("failure of the blank address = %v", r)
	}
	if res.Failed != int64(len(f)) {
		t.Errorf("result counts %d failures, the file has %d", res.Failed, len(f))
	}

	// The same files again: nothing to do, nothing written.
	again := load(t, db, "cook-county", assessor.Options{Failures: fails},
		"testdata/cook-county/addresses.csv", "testdata/cook-county/characteristics.csv")
	if !again.AlreadyLoaded || again.Set.Generation != res.Set.Generation {
		t.Fatalf("second run %+v, want already loaded", again)
	}
}

func TestMissingColumnsStopBeforeAnyRow(t *testing.T) {
	db := openStore(t)
	d := assessor.Dataset{Name: "mine", Mapping: assessor.Mapping{
		Key: []string{"bbl"}, Address: &assessor.AddressColumns{Street: []string{"address"}, Zip: "zipcode", DefaultState: "NY"},
		Fields: map[string]assessor.Field{"bedrooms": {Column: "bedroomz"}, "year_built": {Column: "yearbuilt"}, "stories": {Column: "floorz"}},
	}}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := assessor.Load(context.Background(), db, d, []string{"testdata/nyc-pluto/pluto.csv"}, assessor.Options{})
	if !errors.Is(err, assessor.ErrMissingColumn) {
		t.Fatalf("err = %v, want a missing column", err)
	}
	// Every column missing is named, in the mapping's order, and then the
	// file's own columns.
	if want := "pluto.csv: the file has no column bedroomz, floorz (its columns: borough, block, lot, "; !strings.Contains(err.Error(), want) {
		t.Fatalf("the message %q does not say %q", err, want)
	}
	if sets, _ := db.FactSets(context.Background()); len(sets) != 0 {
		t.Fatalf("a refused load left %+v", sets)
	}
}

func TestNYCPlutoPreset(t *testing.T) {
	db := openStore(t)
	// The geocoder writes "7TH AVE" where PLUTO writes "7 AVENUE".
	ny1 := lookup(t, db, "417 7TH AVE, BROOKLYN, NY, 11215", "", 40.6564, -73.9741)
	ny2 := lookup(t, db, "71-23 QUEENS BLVD, FLUSHING, NY, 11375", "", 40.7370, -73.8781)
	ny4 := lookup(t, db, "250 W 108TH ST, NEW YORK, NY, 10025", "APT 5C", 40.8025, -73.9660)
	res := load(t, db, "nyc-pluto", assessor.Options{Failures: filepath.Join(t.TempDir(), "f.csv")}, "testdata/nyc-pluto/pluto.csv")
	if res.Set.Matched < 3 {
		t.Fatalf("result %+v, want at least the three records matched", res.Set)
	}
	check(t, db, ny1.ID, "NY1 (A1)", want{"single_family", -1, 1840, 2000, 1925, 1, -1, 2})
	check(t, db, ny2.ID, "NY2 (B1, 2.5 floors)", want{"multi_family", -1, 2210, 2375, 1931, 2, -1, 2.5})
	// A unit of a condominium's billing lot: the building's type, year and stories only.
	check(t, db, ny4.ID, "NY4 unit (R4 billing lot)", want{"condo", -1, -1, -1, 2008, -1, -1, 12})
}

func TestAlleghenyPreset(t *testing.T) {
	db := openStore(t)
	ac1 := lookup(t, db, "5733 BEECHWOOD BLVD, PITTSBURGH, PA, 15217", "", 40.4306, -79.9225)
	ac4 := lookup(t, db, "2217 MURRAY AVE, PITTSBURGH, PA, 15217", "UNIT 101", 40.4330, -79.9230)
	// Written 615 in PROPERTYHOUSENUM and " -617" in PROPERTYFRACTION: the
	// range's first number is the address.
	ac7 := lookup(t, db, "615 WALNUT ST, PITTSBURGH, PA, 15232", "", 40.4510, -79.9340)
	res := load(t, db, "allegheny", assessor.Options{Failures: filepath.Join(t.TempDir(), "f.csv")}, "testdata/allegheny/assessments.csv")
	if res.Set.Rows == 0 {
		t.Fatalf("result %+v", res)
	}
	check(t, db, ac1.ID, "AC1 (single family)", want{"single_family", 4, 2310, 5400, 1927, -1, 2.5, 2})
	check(t, db, ac4.ID, "AC4 (condo unit row)", want{"condo", 1, 880, -1, 2006, -1, 1, 1})
	check(t, db, ac7.ID, "AC7 (a house-number range)", want{"townhouse", 3, 1960, 1900, 1998, -1, 2.5, 3})
}

// dying fails PutFacts after n batches: a load killed mid-way.
type dying struct {
	providers.FactStore
	n int
}

func (d *dying) PutFacts(ctx context.Context, l *providers.FactLoad, k []providers.FactKey, r []providers.FactRow, done, failed, size int64) error {
	if d.n == 0 {
		return errors.New("killed")
	}
	d.n--
	return d.FactStore.PutFacts(ctx, l, k, r, done, failed, size)
}

func TestLoadResumesWithoutDuplicates(t *testing.T) {
	db := openStore(t)
	ck1 := lookup(t, db, "4417 N KEDZIE AVE, CHICAGO, IL, 60625", "", 41.9621, -87.7084)
	fails := filepath.Join(t.TempDir(), "failures.csv")
	d, _ := assessor.Dataset{Name: "cook-county", Preset: "cook-county", AsOf: "2026-09-30"}.Resolve()
	files := []string{"testdata/cook-county/characteristics.csv", "testdata/cook-county/addresses.csv"}
	for _, n := range []int{3, 5} { // killed in the key file, then in the characteristics
		_, err := assessor.Load(context.Background(), &dying{db, n}, d, files,
			assessor.Options{Failures: fails, BatchRows: 50, Priority: 1, Now: testNow})
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("load %d: %v, want killed", n, err)
		}
		if sets, _ := db.FactSets(context.Background()); len(sets) != 0 {
			t.Fatalf("a killed load is served: %+v", sets)
		}
	}
	res := load(t, db, "cook-county", assessor.Options{Failures: fails, BatchRows: 50}, files...)
	if !res.Resumed || res.Set.Rows != 228 || res.Read != 464 || res.Failed != 6 {
		t.Fatalf("resumed load %+v, want the clean load's 228 rows, 464 read, 6 failed", res)
	}
	if f := failures(t, fails); len(f) != 6 {
		t.Fatalf("failures file holds %d rows, want 6 (each once)", len(f))
	}
	check(t, db, ck1.ID, "CK1 after a resumed load", want{"single_family", 3, 1210, 3750, 1926, -1, 1.5, 1})
}

// A GeoJSON FeatureCollection (RFC 7946) of parcel polygons, gzipped or
// not, with a mapping of its own: a record inside a parcel takes its facts.
func TestGeoJSONParcelsJoinTheRecordsInside(t *testing.T) {
	for _, file := range []string{"testdata/geojson/parcels.geojson", "testdata/geojson/parcels.geojson.gz"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			db := openStore(t)
			// Inside the second parcel, 20 m from its west edge (its centre is 20 m further east).
			in := lookup(t, db, "1 LAKE ST, MADISON, WI, 53703", "", 43.07025, -89.39925)
			res := load(t, db, "", testOptions{Options: assessor.Options{Failures: filepath.Join(t.TempDir(), "f.csv")}, Dataset: &assessor.Dataset{
				Name: "dane", AsOf: "2026-01-01", Mapping: assessor.Mapping{
					Key: []string{"PARCEL_ID"}, Point: &assessor.PointColumns{},
					Fields: map[string]assessor.Field{"year_built": {Column: "YEAR_BUILT"}, "bedrooms": {Column: "BEDROOMS"},
						"lot_sqft": {Column: "LOT_SQFT"}},
				}}}, file)
			if res.Set.Rows != 4 || res.Set.Matched != 1 {
				t.Fatalf("result %+v, want 4 rows, 1 matched", res.Set)
			}
			check(t, db, in.ID, "the record inside the second parcel", want{"", 4, -1, 21001, 1958, -1, -1, -1})
			// Inside the multipolygon, looked up after the load.
			later := lookup(t, db, "9 LAKE ST, MADISON, WI, 53703", "", 43.07010, -89.39790)
			check(t, db, later.ID, "the record inside the multipolygon", want{"", 5, -1, 9000, 1899, -1, -1, -1})
		})
	}
}

// publishSpy records the load PublishFacts was given.
type publishSpy struct {
	providers.FactStore
	got []providers.FactLoad
}

func (s *publishSpy) PublishFacts(ctx context.Context, l providers.FactLoad, set providers.FactSet,
	progress func(done, total int)) (providers.FactSet, error) {
	s.got = append(s.got, l)
	return s.FactStore.PublishFacts(ctx, l, set, progress)
}

// Options.InPlace reaches the store with the load it publishes, which
// otherwise may merge around a rebuild of its search indexes.
func TestInPlaceReachesThePublish(t *testing.T) {
	d, _ := assessor.Dataset{Name: "allegheny", Preset: "allegheny", AsOf: "2026-09-30"}.Resolve()
	for _, inPlace := range []bool{false, true} {
		spy := &publishSpy{FactStore: openStore(t)}
		_, err := assessor.Load(context.Background(), spy, d, []string{"testdata/allegheny/assessments.csv"},
			assessor.Options{Failures: filepath.Join(t.TempDir(), "f.csv"), Priority: 1, Now: testNow, InPlace: inPlace})
		if err != nil {
			t.Fatal(err)
		}
		if len(spy.got) != 1 || spy.got[0].InPlace != inPlace {
			t.Fatalf("InPlace %v: published %+v", inPlace, spy.got)
		}
	}
}
