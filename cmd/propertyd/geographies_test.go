package main

import (
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// censusRoutes are the calls made to the census geocoder's routes since
// before, by route below its base URL ("locations/address").
func censusRoutes(mt *httpmock.MockTransport, before map[string]int) map[string]int {
	out := map[string]int{}
	for route, n := range mt.GetCallCountInfo() {
		if d := n - before[route]; d != 0 && strings.Contains(route, census.DefaultBaseURL) {
			out[route[strings.Index(route, census.DefaultBaseURL)+len(census.DefaultBaseURL)+1:]] = d
		}
	}
	return out
}

// loadBoundaries loads TIGER/Line files through the command line, each a
// dataset of its own, as an operator would.
func loadBoundaries(t *testing.T, config string, files ...string) {
	t.Helper()
	for _, f := range files {
		r := dataRun("load", "boundaries", "-config", config, "-failures", filepath.Join(t.TempDir(), "f.csv"), f)
		if r.code != exitOK {
			t.Fatalf("load boundaries %s: exit %d\n%s%s", f, r.code, r.stdout, r.stderr)
		}
	}
}

// The DC tracts of the fixture under their published name.
func dcTracts(t *testing.T) string {
	t.Helper()
	tl := filepath.Join(t.TempDir(), "tl_2020_11_tract.zip")
	raw, err := os.ReadFile(tractsZip)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tl, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestLoadedBoundariesAnswerLookupsWithoutGeographiesCalls loads the
// District's tracts and the counties with data load boundaries, on each
// engine, and starts the service: a reverse lookup inside a loaded tract
// creates its record with the county, FIPS code and tract and calls the
// census geocoder not at all; an address lookup there asks the geocoder
// for its match alone (one locations call, no geographies call) and the
// record has the tract the files give; in Virginia, whose tracts are not
// loaded, both are as before: one geographies call each.
func TestLoadedBoundariesAnswerLookupsWithoutGeographiesCalls(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		config := factsConfigFile(t, database)
		loadBoundaries(t, config, dcTracts(t), countiesJSON)
		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL,
			providertest.CensusPlace{Street: "100 CAPITOL ST NW", City: "WASHINGTON", State: "DC", Zip: "20001",
				Lat: 38.9, Lng: -77.018, CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001", Tract: "006202"},
			providertest.CensusPlace{Street: "10 CLARENDON BLVD", City: "ARLINGTON", State: "VA", Zip: "22201",
				Lat: 38.88, Lng: -77.1, CountyName: "Arlington County", StateFIPS: "51", CountyFIPS: "013", Tract: "101801"})
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
		m := startMain(t, cfg, mt)
		want := func(t *testing.T, what string, d map[string]any, state, county, fips, tract string) {
			t.Helper()
			if d["state"] != state || d["county"] != county || d["fips_code"] != fips || d["census_tract"] != tract {
				t.Errorf("%s: record %v; want %s, %s, %s, tract %s", what, d, state, county, fips, tract)
			}
		}

		before := mt.GetCallCountInfo()
		status, body, _ := getJSON(t, m, "/v1/properties/reverse?lat=38.9004&lng=-77.0177")
		if status != 200 {
			t.Fatalf("reverse inside a loaded tract: %d %v", status, body)
		}
		want(t, "reverse inside", body["data"].(map[string]any), "DC", "District of Columbia", "11001", "006202")
		if meta := body["meta"].(map[string]any); meta["created"] != true || meta["source"] != "census" {
			t.Errorf("reverse inside: meta %v; want a record created, its source the geocoder's", meta)
		}
		if made := censusRoutes(mt, before); len(made) != 0 {
			t.Errorf("reverse inside made the census calls %v; want none", made)
		}

		before = mt.GetCallCountInfo()
		q := url.Values{"street": {"100 Capitol Street NW"}, "city": {"Washington"}, "state": {"DC"}}
		status, body, _ = getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup inside: %d %v", status, body)
		}
		d := body["data"].(map[string]any)
		want(t, "lookup inside", d, "DC", "District of Columbia", "11001", "006202")
		if d["street_address"] != "100 CAPITOL ST NW" || d["zip_code"] != "20001" {
			t.Errorf("lookup inside: record %v; want the geocoder's match", d)
		}
		if made := censusRoutes(mt, before); !maps.Equal(made, map[string]int{"locations/address": 1}) {
			t.Errorf("lookup inside made the census calls %v; want one locations/address and no geographies", made)
		}

		before = mt.GetCallCountInfo()
		q = url.Values{"street": {"10 Clarendon Blvd"}, "city": {"Arlington"}, "state": {"VA"}}
		status, body, _ = getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup outside: %d %v", status, body)
		}
		want(t, "lookup outside", body["data"].(map[string]any), "VA", "Arlington County", "51013", "101801")
		if made := censusRoutes(mt, before); !maps.Equal(made, map[string]int{"geographies/address": 1}) {
			t.Errorf("lookup outside made the census calls %v; want one geographies/address, as before", made)
		}

		before = mt.GetCallCountInfo()
		status, body, _ = getJSON(t, m, "/v1/properties/reverse?lat=38.885&lng=-77.105")
		if status != 200 {
			t.Fatalf("reverse outside: %d %v", status, body)
		}
		want(t, "reverse outside", body["data"].(map[string]any), "VA", "Arlington County", "51013", "101801")
		if made := censusRoutes(mt, before); !maps.Equal(made, map[string]int{"geographies/coordinates": 1}) {
			t.Errorf("reverse outside made the census calls %v; want one geographies/coordinates, as before", made)
		}
	})
}

// tractAroundFranklin is a census tract written for this test in
// TIGER/Line's columns around the house of the extract fixture at 1210
// Example Street NW, inside the District of the county fixture.
const tractAroundFranklin = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{` +
	`"STATEFP":"11","COUNTYFP":"001","TRACTCE":"010100","GEOID":"11001010100","NAME":"101","NAMELSAD":"Census Tract 101",` +
	`"MTFCC":"G5020","FUNCSTAT":"S","ALAND":1000000,"AWATER":0,"INTPTLAT":"+38.8990000","INTPTLON":"-077.0320000"},` +
	`"geometry":{"type":"Polygon","coordinates":[[[-77.045,38.892],[-77.025,38.892],[-77.025,38.908],[-77.045,38.908],[-77.045,38.892]]]}}]}`

// TestReverseInsideLoadedBoundariesKeepsTheAddressPoint: a reverse lookup
// answered from loaded boundaries, with no census call, still takes the
// address of the nearest address point of a loaded extract.
func TestReverseInsideLoadedBoundariesKeepsTheAddressPoint(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		config := factsConfigFile(t, database)
		tracts := filepath.Join(t.TempDir(), "tl_2020_11_tract.geojson")
		if err := os.WriteFile(tracts, []byte(tractAroundFranklin), 0o644); err != nil {
			t.Fatal(err)
		}
		loadBoundaries(t, config, tracts, countiesJSON)
		if r := dataRun("load", "osm", "-config", config, franklinPBF); r.code != exitOK {
			t.Fatalf("load osm: exit %d\n%s", r.code, r.stderr)
		}
		mt := httpmock.NewMockTransport()
		providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL)
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
		m := startMain(t, cfg, mt)

		status, body, _ := getJSON(t, m, "/v1/properties/reverse?lat=38.89912&lng=-77.03040")
		if status != 200 {
			t.Fatalf("reverse on the house: %d %v", status, body)
		}
		d, meta := body["data"].(map[string]any), body["meta"].(map[string]any)
		if d["street_address"] != "1210 EXAMPLE ST NW" || d["zip_code"] != "20005" || d["state"] != "DC" ||
			d["fips_code"] != "11001" || d["census_tract"] != "010100" {
			t.Errorf("the record = %v; want 1210 EXAMPLE ST NW, DC 20005 in the loaded tract 010100", d)
		}
		if match, _ := meta["match"].(map[string]any); match["type"] != "address_point" {
			t.Errorf("meta = %v; want matched to the address point", meta)
		}
		if n := mt.GetTotalCallCount(); n != 0 {
			t.Errorf("%d census calls (%v); want none", n, mt.GetCallCountInfo())
		}
	})
}
