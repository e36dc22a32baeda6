package geographies_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/geographies"
	"github.com/propertyd/propertyd/providers/kits/providertest"
)

// fields are the location fields both paths must give alike.
type fields struct{ State, County, FIPSCode, CensusTract string }

func fieldsOf(l providers.Location) fields {
	return fields{l.State, l.County, l.FIPSCode, l.CensusTract}
}

// TestLoadedBoundariesAnswerAsTheGeocoder loads the tract and county
// fixtures with dataload.Run into a real store and serves the same polygons
// through the fake Census geocoder, and asks both for the location fields
// at points inside a tract, in a tract's hole, in a multipolygon's second
// part, on an island in a hole and in its pond, in a county with no tract,
// outside every county, and at every point of a grid over both counties:
// Reverse through the loaded boundaries must give what the geocoder's
// Reverse gives (the error too), with no call where a county and a tract
// hold the point; Geocode of an address there, through the boundaries,
// what the geocoder's Geocode gives, with its match asked alone.
//
// A point on an edge is left out of the named points, and the grid's steps
// miss every edge: the fake counts every edge in, the store a shared
// edge's east or north side only (providers.PolygonStore), and the real
// service's answer on an edge is not recorded.
func TestLoadedBoundariesAnswerAsTheGeocoder(t *testing.T) {
	eachEngine(t, testLoadedBoundariesAnswerAsTheGeocoder)
}

func testLoadedBoundariesAnswerAsTheGeocoder(t *testing.T, database string) {
	ctx := context.Background()
	named := []struct {
		name  string
		p     providers.Point
		local bool // a loaded county and tract hold it
	}{
		{"inside a tract", providers.Point{Lat: 38.9, Lng: -77.018}, true},
		{"in a tract's hole", providers.Point{Lat: 38.9, Lng: -77.0125}, false},
		{"in the second part of a multipolygon", providers.Point{Lat: 38.892, Lng: -77.066}, true},
		{"in the first part of a multipolygon", providers.Point{Lat: 38.905, Lng: -77.065}, true},
		{"in the lake, the hole of the shore's tract", providers.Point{Lat: 38.866, Lng: -77.044}, false},
		{"on the island in the lake", providers.Point{Lat: 38.868, Lng: -77.042}, true},
		{"in the island's pond", providers.Point{Lat: 38.87, Lng: -77.04}, false},
		{"in the five-sided tract", providers.Point{Lat: 38.862, Lng: -76.99}, true},
		{"in a county with no tract of the files", providers.Point{Lat: 38.88, Lng: -77.1}, false},
		{"in the District, in no tract of the files", providers.Point{Lat: 38.86, Lng: -77.07}, false},
		{"outside every county", providers.Point{Lat: 38.8, Lng: -77.2}, false},
	}
	var places []providertest.CensusPlace
	for i, pt := range named {
		places = append(places, providertest.CensusPlace{Street: fmt.Sprintf("%d CONFORMANCE ST", i+1),
			City: "WASHINGTON", State: "DC", Zip: "20001", Lat: pt.p.Lat, Lng: pt.p.Lng})
	}
	db := loaded(t, database)
	next, mt := remote(t, places...)
	local := geographies.NewBoundaries(db)
	rev := geographies.NewReverse(local, next, nil)
	geo := geographies.NewGeocoder(local, next, nil)

	// reverseAlike asks both paths at p and says whether the boundaries
	// answered alone.
	reverseAlike := func(t *testing.T, p providers.Point) bool {
		t.Helper()
		want, wantErr := next.Reverse(ctx, p)
		before := mt.GetCallCountInfo()
		got, err := rev.Reverse(ctx, p)
		made := calls(mt, before)
		if providers.CodeOf(err) != providers.CodeOf(wantErr) || (err == nil) != (wantErr == nil) {
			t.Fatalf("at %v: Reverse through the boundaries: %v; the geocoder's: %v", p, err, wantErr)
		}
		if fieldsOf(got) != fieldsOf(want) || (err == nil && got.Point != p) {
			t.Errorf("at %v the paths differ\nthrough the boundaries %+v\nthe geocoder           %+v", p, got, want)
		}
		switch {
		case len(made) == 0:
			return true
		case !maps.Equal(made, map[string]int{routeReverse: 1}):
			t.Errorf("at %v Reverse made the calls %v, want none or one reverse lookup", p, made)
		}
		return false
	}

	for i, pt := range named {
		t.Run(pt.name, func(t *testing.T) {
			if answered := reverseAlike(t, pt.p); answered != pt.local {
				t.Errorf("answered from the files alone: %v, want %v", answered, pt.local)
			}
			a := providers.Address{Street: places[i].Street, City: "Washington", State: "DC", Zip: "20001"}
			want, err := next.Geocode(ctx, a)
			if err != nil {
				t.Fatalf("the geocoder's Geocode: %v", err)
			}
			before := mt.GetCallCountInfo()
			got, err := geo.Geocode(ctx, a)
			made := calls(mt, before)
			if err != nil {
				t.Fatalf("Geocode through the boundaries: %v", err)
			}
			if fieldsOf(got) != fieldsOf(want) || got.MatchedAddress != want.MatchedAddress || got.Point != want.Point {
				t.Errorf("the paths differ\nthrough the boundaries %+v\nthe geocoder           %+v", got, want)
			}
			wantCalls := map[string]int{routeMatch: 1}
			if !pt.local {
				wantCalls[routeReverse] = 1 // the state's tracts are loaded, the point lies beyond them
			}
			if !maps.Equal(made, wantCalls) {
				t.Errorf("Geocode made the calls %v, want %v", made, wantCalls)
			}
		})
	}

	t.Run("grid", func(t *testing.T) {
		inside := 0
		for i := range 37 {
			for j := range 23 {
				p := providers.Point{Lat: 38.8437 + float64(j)*0.00331, Lng: -77.1263 + float64(i)*0.00417}
				if reverseAlike(t, p) {
					inside++
				}
			}
		}
		if inside < 20 {
			t.Errorf("only %d points of the grid were answered from the files: the grid misses the tracts", inside)
		}
		t.Logf("%d of %d points answered from the files alone", inside, 37*23)
	})
}
