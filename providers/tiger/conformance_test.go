package tiger_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/geofile"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/tiger"
	_ "github.com/propertyd/propertyd/store/gpkg" // GeoPackage files
)

// The tract fixture of package geofile: four census tracts of the District
// of Columbia in TIGER/Line's columns (one with a hole, one in two parts, a
// lake's shore with an island in its hole and a pond in the island, a
// five-sided one), as GeoJSON, as the shapefiles of a .zip and as a
// GeoPackage; and this package's two counties (testdata/README.md).
var (
	tractsDir    = filepath.Join("..", "geofile", "testdata")
	countiesPath = filepath.Join("testdata", "counties.geojson")
)

// holds reports whether a feature's polygon holds pt, a hole's inside
// excluded, as loaded boundaries will answer.
func holds(g orb.Geometry, pt orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return planar.PolygonContains(g, pt)
	case orb.MultiPolygon:
		return planar.MultiPolygonContains(g, pt)
	}
	return false
}

// fromFiles answers the location fields at p the way loaded boundaries
// will: the first county and the first tract whose polygons hold p, read
// with CountyOf and TractOf, through Locate. It also says how many tracts
// hold p.
func fromFiles(t *testing.T, counties, tracts []geofile.Feature, p providers.Point) (tiger.Place, bool, int) {
	t.Helper()
	pt := orb.Point{p.Lng, p.Lat}
	var county *tiger.County
	for _, f := range counties {
		if holds(f.Geometry, pt) {
			c, err := tiger.CountyOf(f.Properties)
			if err != nil {
				t.Fatalf("county %d: %v", f.Index, err)
			}
			county = &c
			break
		}
	}
	var tract *tiger.Tract
	n := 0
	for _, f := range tracts {
		if !holds(f.Geometry, pt) {
			continue
		}
		if n++; tract == nil {
			tr, err := tiger.TractOf(f.Properties)
			if err != nil {
				t.Fatalf("tract %d: %v", f.Index, err)
			}
			tract = &tr
		}
	}
	place, found := tiger.Locate(county, tract)
	return place, found, n
}

// serviceAreas is the map as the geocoder holds it: each county and tract
// of the GeoJSON files its polygon with its codes, which the fake sends in
// the geocoder's layers. The codes are read by hand, not through the
// package under test; a county's name is its NAMELSAD, as the geocoder's
// NAME has it.
func serviceAreas(t *testing.T, counties, tracts []geofile.Feature) []providertest.CensusArea {
	t.Helper()
	usps := map[string]string{"11": "DC", "51": "VA"}
	text := func(f geofile.Feature, name string) string {
		s, _ := f.Properties[name].(string)
		return s
	}
	var out []providertest.CensusArea
	for _, f := range counties {
		out = append(out, providertest.CensusArea{Shape: f.Geometry, State: usps[text(f, "STATEFP")],
			StateFIPS: text(f, "STATEFP"), CountyFIPS: text(f, "COUNTYFP"), CountyName: text(f, "NAMELSAD")})
	}
	for _, f := range tracts {
		out = append(out, providertest.CensusArea{Shape: f.Geometry,
			StateFIPS: text(f, "STATEFP"), CountyFIPS: text(f, "COUNTYFP"), Tract: text(f, "TRACTCE")})
	}
	return out
}

// TestLoadedBoundariesAndTheGeocoderAnswerAlike serves the tract and county
// fixtures through the fake Census geocoder to the census module and reads
// them from each file format the loader will take, and asks both for the
// location fields at points inside a tract, inside a tract's hole, in a
// multipolygon's second part, on an island in a hole and in the island's
// own hole, in a county with no tract, and outside every county. Reverse
// and Geocode (of an address the fake places at the point) must give the
// County, FIPSCode and CensusTract the files give; a point in no county is
// not found by Reverse (location_not_found) nor by the files, and Geocode
// finds the address with empty fields.
//
// What differs by nature, stated: the geocoder also answers the state from
// its States layer (Reverse sets State), which TIGER/Line's county and
// tract files do not hold; Geocode's address and point are the address
// matcher's. Neither is a field Locate gives.
//
// A point on an edge is left out: planar.PolygonContains counts a hole's
// edge out, the fake counts every edge in, and the real service's answer
// on a shared edge is not recorded. The loader's spatial look-up decides
// those.
func TestLoadedBoundariesAndTheGeocoderAnswerAlike(t *testing.T) {
	dc := func(tract string) tiger.Place {
		return tiger.Place{County: "District of Columbia", FIPSCode: "11001", CensusTract: tract}
	}
	points := []struct {
		name   string
		p      providers.Point
		tracts int         // how many tracts of the files hold the point
		want   tiger.Place // what both paths must give
		found  bool
		state  string // the geocoder's States layer, by nature its own
	}{
		{"inside a tract", providers.Point{Lat: 38.9, Lng: -77.018}, 1, dc("006202"), true, "DC"},
		{"in a tract's hole: the county without a tract", providers.Point{Lat: 38.9, Lng: -77.0125}, 0, dc(""), true, "DC"},
		{"in the second part of a multipolygon", providers.Point{Lat: 38.892, Lng: -77.066}, 1, dc("000101"), true, "DC"},
		{"in the lake, the hole of the shore's tract", providers.Point{Lat: 38.866, Lng: -77.044}, 0, dc(""), true, "DC"},
		{"on the island in the lake", providers.Point{Lat: 38.868, Lng: -77.042}, 1, dc("980000"), true, "DC"},
		{"in the island's pond", providers.Point{Lat: 38.87, Lng: -77.04}, 0, dc(""), true, "DC"},
		{"in the five-sided tract", providers.Point{Lat: 38.862, Lng: -76.99}, 1, dc("007401"), true, "DC"},
		{"in a county with no tract of the files", providers.Point{Lat: 38.88, Lng: -77.1}, 0,
			tiger.Place{County: "Arlington County", FIPSCode: "51013"}, true, "VA"},
		{"outside every county", providers.Point{Lat: 38.8, Lng: -77.2}, 0, tiger.Place{}, false, ""},
	}
	counties := providertest.Features(t, countiesPath, "")
	service := providertest.Features(t, filepath.Join(tractsDir, "tracts.geojson"), "")
	var places []providertest.CensusPlace
	for i, pt := range points {
		places = append(places, providertest.CensusPlace{Street: fmt.Sprintf("%d CONFORMANCE ST", i+1),
			City: "WASHINGTON", State: "DC", Zip: "20001", Lat: pt.p.Lat, Lng: pt.p.Lng})
	}
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoderAreas(mt, census.DefaultBaseURL, serviceAreas(t, counties, service), places...)
	remote, err := census.New(providers.Settings{Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}

	for _, file := range []string{"tracts.geojson", "tracts.zip", "tracts.gpkg"} {
		tracts := providertest.Features(t, filepath.Join(tractsDir, file), "")
		for i, pt := range points {
			t.Run(file+"/"+pt.name, func(t *testing.T) {
				fromFiles, found, held := fromFiles(t, counties, tracts, pt.p)
				if held != pt.tracts {
					t.Errorf("%d tracts of the files hold the point, want %d", held, pt.tracts)
				}
				if fromFiles != pt.want || found != pt.found {
					t.Errorf("from the files: %+v, found %v; want %+v, found %v", fromFiles, found, pt.want, pt.found)
				}

				before := mt.GetTotalCallCount()
				loc, err := remote.Reverse(context.Background(), pt.p)
				if n := mt.GetTotalCallCount() - before; n != 1 {
					t.Errorf("Reverse made %d upstream calls, want 1", n)
				}
				if !found {
					var e *providers.Error
					if !errors.As(err, &e) || e.Kind != providers.KindNotFound || e.Code != providers.CodeLocationNotFound {
						t.Errorf("Reverse where the files find no county: %+v, %v; want location_not_found", loc, err)
					}
				} else if err != nil {
					t.Errorf("Reverse: %v; the files found %+v", err, fromFiles)
				} else {
					if got := (tiger.Place{County: loc.County, FIPSCode: loc.FIPSCode, CensusTract: loc.CensusTract}); got != fromFiles {
						t.Errorf("the paths differ\nfrom the files    %+v\nfrom the geocoder %+v", fromFiles, got)
					}
					// The one difference by nature: the geocoder's state.
					if loc.State != pt.state {
						t.Errorf("Reverse's state %q, want %q from the States layer", loc.State, pt.state)
					}
				}

				before = mt.GetTotalCallCount()
				geo, err := remote.Geocode(context.Background(), providers.Address{
					Street: places[i].Street, City: "Washington", State: "DC", Zip: "20001"})
				if n := mt.GetTotalCallCount() - before; n != 1 {
					t.Errorf("Geocode made %d upstream calls, want 1", n)
				}
				if err != nil {
					t.Fatalf("Geocode: %v", err)
				}
				if got := (tiger.Place{County: geo.County, FIPSCode: geo.FIPSCode, CensusTract: geo.CensusTract}); got != fromFiles {
					t.Errorf("the paths differ\nfrom the files    %+v\nfrom Geocode      %+v", fromFiles, got)
				}
			})
		}
	}
}
