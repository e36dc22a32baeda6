package geographies_test

import (
	"context"
	"maps"
	"path/filepath"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/geographies"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/store/engine"
)

// Places of the fake geocoder: one inside tract 006202 (twice, on two TIGER
// edges of one street), one in the District's part no loaded tract holds,
// and one in Arlington, Virginia, whose county is loaded but none of whose
// tracts are.
var (
	capitolSt = providertest.CensusPlace{Street: "100 CAPITOL ST NW", City: "WASHINGTON", State: "DC", Zip: "20001",
		Lat: 38.9, Lng: -77.018}
	capitolStEast = providertest.CensusPlace{Street: "100 CAPITOL ST NW", City: "WASHINGTON", State: "DC", Zip: "20002",
		Lat: 38.9035, Lng: -77.006}
	riverSt = providertest.CensusPlace{Street: "5 RIVER ST SW", City: "WASHINGTON", State: "DC", Zip: "20024",
		Lat: 38.86, Lng: -77.07}
	clarendon = providertest.CensusPlace{Street: "10 CLARENDON BLVD", City: "ARLINGTON", State: "VA", Zip: "22201",
		Lat: 38.88, Lng: -77.1}
)

// counted is an Around counting the module's calls run under it.
type counted struct{ n int }

func (c *counted) around(ctx context.Context, call func(context.Context) error) error {
	c.n++
	return call(ctx)
}

// TestReverseInsideCallsNothing: a point a loaded county and tract hold is
// answered from them with no call and outside the module's breaker; a
// point beyond the loaded tracts is the module's, under its breaker.
func TestReverseInsideCallsNothing(t *testing.T) {
	db := loaded(t, filepath.Join(t.TempDir(), "g.db"))
	next, mt := remote(t)
	br := &counted{}
	rev := geographies.NewReverse(geographies.NewBoundaries(db), next, br.around)
	ctx := context.Background()

	p := providers.Point{Lat: 38.9, Lng: -77.018}
	got, err := rev.Reverse(ctx, p)
	want := providers.Location{Point: p, State: "DC", County: "District of Columbia", FIPSCode: "11001", CensusTract: "006202"}
	if err != nil || got.Point != want.Point || fieldsOf(got) != fieldsOf(want) {
		t.Errorf("Reverse inside = %+v, %v; want %+v", got, err, want)
	}
	if n := mt.GetTotalCallCount(); n != 0 || br.n != 0 {
		t.Errorf("a point inside made %d upstream calls, %d under the breaker; want none", n, br.n)
	}

	got, err = rev.Reverse(ctx, providers.Point{Lat: 38.88, Lng: -77.1})
	if err != nil || got.FIPSCode != "51013" || got.CensusTract != "" {
		t.Errorf("Reverse in Arlington = %+v, %v; want the geocoder's county without a tract", got, err)
	}
	if made := mt.GetCallCountInfo()[routeReverse]; made != 1 || br.n != 1 {
		t.Errorf("a point beyond the loaded tracts made %d reverse calls, %d under the breaker; want 1 and 1", made, br.n)
	}
	_, err = rev.Reverse(ctx, providers.Point{Lat: 95, Lng: -77})
	if providers.KindOf(err) != providers.KindInvalid || mt.GetTotalCallCount() != 1 {
		t.Errorf("an invalid point: %v after %d calls; want the module's invalid_parameter and no call", err, mt.GetTotalCallCount())
	}
}

// TestGeocodeInsideAsksTheMatchAlone: an address of a state whose tracts
// and counties are loaded, in fields or in one line, is matched by the
// locations search alone and its match and each of its others get their
// geographies from the files: no geographies call at all.
func TestGeocodeInsideAsksTheMatchAlone(t *testing.T) {
	db := loaded(t, filepath.Join(t.TempDir(), "g.db"))
	next, mt := remote(t, capitolSt, capitolStEast)
	br := &counted{}
	geo := geographies.NewGeocoder(geographies.NewBoundaries(db), next, br.around)
	ctx := context.Background()

	got, err := geo.Geocode(ctx, providers.Address{Street: "100 Capitol St NW", City: "Washington", State: "DC"})
	if err != nil {
		t.Fatal(err)
	}
	want := fields{"DC", "District of Columbia", "11001", "006202"}
	if fieldsOf(got) != want || got.MatchedAddress != "100 CAPITOL ST NW, WASHINGTON, DC, 20001" ||
		len(got.Others) != 1 || fieldsOf(got.Others[0]) != want || got.Others[0].Zip != "20002" {
		t.Errorf("Geocode = %+v; want both matches in tract 006202", got)
	}
	if made := calls(mt, nil); !maps.Equal(made, map[string]int{routeMatch: 1}) || br.n != 1 {
		t.Errorf("calls %v, %d under the breaker; want one locations/address and no geographies", made, br.n)
	}

	before := mt.GetCallCountInfo()
	got, err = geo.Geocode(ctx, providers.Address{Line: "100 Capitol St NW, Washington, DC 20001"})
	if err != nil || fieldsOf(got) != want {
		t.Errorf("Geocode of the line = %+v, %v; want tract 006202", got, err)
	}
	if made := calls(mt, before); !maps.Equal(made, map[string]int{routeMatchLine: 1}) {
		t.Errorf("a one-line address made the calls %v; want one locations/onelineaddress", made)
	}

	before = mt.GetCallCountInfo()
	_, err = geo.Geocode(ctx, providers.Address{Street: "1 Nowhere St", State: "DC"})
	if providers.CodeOf(err) != providers.ErrNoMatch.Code {
		t.Errorf("an address the geocoder does not know: %v, want address_not_found", err)
	}
	if made := calls(mt, before); !maps.Equal(made, map[string]int{routeMatch: 1}) {
		t.Errorf("a no-match made the calls %v; want the locations search alone", made)
	}
}

// TestGeocodeOutsideIsAsToday: an address of a state whose tracts are not
// loaded is geocoded by the module as before, geographies included, in one
// call; a match beyond the loaded tracts of its state gets its geographies
// from the module's reverse lookup; with no boundaries loaded nothing
// changes.
func TestGeocodeOutsideIsAsToday(t *testing.T) {
	ctx := context.Background()
	db := loaded(t, filepath.Join(t.TempDir(), "g.db"))
	next, mt := remote(t, riverSt, clarendon)
	geo := geographies.NewGeocoder(geographies.NewBoundaries(db), next, nil)

	got, err := geo.Geocode(ctx, providers.Address{Street: "10 Clarendon Blvd", State: "VA"})
	if err != nil || fieldsOf(got) != (fields{"VA", "Arlington County", "51013", ""}) {
		t.Errorf("Geocode in Virginia = %+v, %v", got, err)
	}
	if made := calls(mt, nil); !maps.Equal(made, map[string]int{routeGeocode: 1}) {
		t.Errorf("an address of a state whose tracts are not loaded made the calls %v; want one geographies/address", made)
	}

	before := mt.GetCallCountInfo()
	got, err = geo.Geocode(ctx, providers.Address{Street: "5 River St SW", State: "DC"})
	if err != nil || fieldsOf(got) != (fields{"DC", "District of Columbia", "11001", ""}) {
		t.Errorf("Geocode beyond the loaded tracts = %+v, %v", got, err)
	}
	if made := calls(mt, before); !maps.Equal(made, map[string]int{routeMatch: 1, routeReverse: 1}) {
		t.Errorf("a match beyond the loaded tracts made the calls %v; want the match and one reverse lookup", made)
	}

	empty, err := engine.Open(ctx, filepath.Join(t.TempDir(), "empty.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	before = mt.GetCallCountInfo()
	geo = geographies.NewGeocoder(geographies.NewBoundaries(empty), next, nil)
	if _, err := geo.Geocode(ctx, providers.Address{Line: "5 River St SW, Washington, DC"}); err != nil {
		t.Fatal(err)
	}
	if made := calls(mt, before); !maps.Equal(made, map[string]int{routeGeocodeLine: 1}) {
		t.Errorf("with no boundaries loaded the calls were %v; want one geographies/onelineaddress", made)
	}
}

// TestGeocodeWithoutAMatchOnlyModuleIsAsToday: a geocoder that cannot match
// without geographies is asked as before, whatever is loaded.
func TestGeocodeWithoutAMatchOnlyModuleIsAsToday(t *testing.T) {
	db := loaded(t, filepath.Join(t.TempDir(), "g.db"))
	next, mt := remote(t, capitolSt)
	geo := geographies.NewGeocoder(geographies.NewBoundaries(db), providers.GeocoderFunc(next.Geocode), nil)
	got, err := geo.Geocode(context.Background(), providers.Address{Street: "100 Capitol St NW", State: "DC"})
	if err != nil || got.CensusTract != "006202" {
		t.Errorf("Geocode = %+v, %v", got, err)
	}
	if made := calls(mt, nil); !maps.Equal(made, map[string]int{routeGeocode: 1}) {
		t.Errorf("calls %v; want one geographies/address", made)
	}
}

// brokenStore is a database that does not answer.
type brokenStore struct{}

var errDown = providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable, "the database is not answering")

func (brokenStore) Datasets(context.Context, string) ([]providers.Dataset, error) {
	return nil, errDown
}
func (brokenStore) DatasetsVersion(context.Context) (string, error) { return "", errDown }
func (brokenStore) PolygonsAt(context.Context, string, int64, providers.Point) ([]providers.LayerPolygon, error) {
	return nil, errDown
}

var _ geographies.Polygons = brokenStore{}

// TestAStoreThatFailsIsAnError: a database that does not answer fails the
// lookup (database_unavailable) without spending the upstream's goodwill.
func TestAStoreThatFailsIsAnError(t *testing.T) {
	next, mt := remote(t, capitolSt)
	local := geographies.NewBoundaries(brokenStore{})
	ctx := context.Background()
	if _, err := geographies.NewReverse(local, next, nil).Reverse(ctx, providers.Point{Lat: 38.9, Lng: -77.018}); providers.CodeOf(err) != providers.CodeDatabaseUnavailable {
		t.Errorf("Reverse: %v, want database_unavailable", err)
	}
	if _, err := geographies.NewGeocoder(local, next, nil).Geocode(ctx, providers.Address{Street: "100 Capitol St NW", State: "DC"}); providers.CodeOf(err) != providers.CodeDatabaseUnavailable {
		t.Errorf("Geocode: %v, want database_unavailable", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d upstream calls with the database down, want none", n)
	}
}

// BenchmarkReverseInside times a reverse lookup answered from the loaded
// boundaries: the datasets' version read twice and a county and a tract
// looked up, on SQLite.
func BenchmarkReverseInside(b *testing.B) {
	db := loaded(b, filepath.Join(b.TempDir(), "g.db"))
	rev := geographies.NewReverse(geographies.NewBoundaries(db), nil, nil)
	ctx := context.Background()
	p := providers.Point{Lat: 38.9, Lng: -77.018}
	b.ResetTimer()
	for b.Loop() {
		if _, err := rev.Reverse(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
