package sandbox_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers/amenity"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
)

// The places file is one file: the one embedded here, which the sandbox
// binary serves unless -places names another. LoadPlaces reads it as
// DefaultPlaces does.
func TestDefaultPlacesAreTheFile(t *testing.T) {
	loaded, err := sandbox.LoadPlaces("places.json")
	if err != nil {
		t.Fatalf("LoadPlaces(places.json): %v", err)
	}
	if !reflect.DeepEqual(loaded, sandbox.DefaultPlaces()) {
		t.Error("LoadPlaces of the shipped file differs from DefaultPlaces")
	}
}

// TestDefaultPlacesCoverEveryUpstream protects what tests and benchmarks
// rely on: varied places, each known to every upstream.
func TestDefaultPlacesCoverEveryUpstream(t *testing.T) {
	places := sandbox.DefaultPlaces()
	if len(places) < 6 {
		t.Fatalf("%d default places, want at least 6", len(places))
	}
	states := map[string]bool{}
	sentinels := 0
	vars := append(append([]string(nil), censusacs.DemographicsVariables...), censusacs.HousingVariables...)
	for _, p := range places {
		states[p.State] = true
		if len(p.Aliases) == 0 {
			t.Errorf("%s has no street alias", p.ID)
		}
		if len(p.Flood) == 0 || p.Flood[0].Zone == "" || p.Flood[0].Panel == "" || p.Flood[0].PanelEffective == "" {
			t.Errorf("%s has no flood zone with a dated panel", p.ID)
		}
		for _, v := range vars {
			raw, ok := p.ACS[v]
			if !ok {
				t.Errorf("%s has no ACS value for %s, which censusacs asks for", p.ID, v)
				continue
			}
			if n, err := strconv.ParseFloat(raw, 64); err != nil {
				t.Errorf("%s: ACS %s = %q is not a number", p.ID, v, raw)
			} else if n <= -100000000 {
				sentinels++
			}
		}
		kinds, categories := map[string]bool{}, map[string]bool{}
		for _, e := range p.OSM {
			kinds[e.Type] = true
			if cat, _, ok := amenity.Classify(e.Tags); ok {
				categories[cat] = true
			}
		}
		if !kinds["node"] || !kinds["way"] || len(categories) < 3 {
			t.Errorf("%s: OSM element types %v, categories %v; want nodes, ways and 3+ categories", p.ID, kinds, categories)
		}
		if p.WalkScore == nil || p.FMR == nil {
			t.Errorf("%s lacks a walk score or fair market rents", p.ID)
		}
	}
	if len(states) != len(places) {
		t.Errorf("default places span %d states for %d places", len(states), len(places))
	}
	if sentinels < 2 {
		t.Errorf("default places hold %d ACS sentinel values, want at least 2", sentinels)
	}
}

func TestLoadPlacesRejectsBadFiles(t *testing.T) {
	good := `{"id":"a","street":"1 MAIN ST","city":"X","state":"KS","zip":"66000","lat":38,"lng":-97,` +
		`"county_name":"Y County","state_fips":"20","county_fips":"001","tract":"000100"}`
	with := func(old, new string) string { return `{"places":[` + strings.Replace(good, old, new, 1) + `]}` }
	// two gives two places (ids a and b) the same extra data.
	two := func(extra string) string {
		p := strings.Replace(good, `"tract":"000100"`, extra, 1)
		return `{"places":[` + p + `,` + strings.Replace(p, `"id":"a"`, `"id":"b"`, 1) + `]}`
	}
	for _, tc := range []struct{ name, body, msg string }{
		{"not JSON", `places:`, "decoding"},
		{"unknown field", with(`"city"`, `"town":"Z","city"`), "town"},
		{"no places", `{"places":[]}`, "no places"},
		{"trailing data", `{"places":[` + good + `]} {}`, "after"},
		{"stray bracket", `{"places":[` + good + `]}]`, "after"},
		{"duplicate id", `{"places":[` + good + `,` + good + `]}`, "used twice"},
		{"no id", with(`"id":"a"`, `"id":""`), "no id"},
		{"short tract", with(`"000100"`, `"100"`), "tract"},
		{"letters in county", with(`"001"`, `"0A1"`), "county_fips"},
		{"latitude out of range", with(`"lat":38`, `"lat":98`), "out of range"},
		{"bad panel date", with(`"tract":"000100"`, `"tract":"000100","flood":[{"zone":"AE","sfha":true,"static_bfe":null,"panel_effective":"2019/01/16"}]`), "panel_effective"},
		{"bad ACS name", with(`"tract":"000100"`, `"tract":"000100","acs":{"POP":"1"}`), "ACS variable"},
		{"bad OSM type", with(`"tract":"000100"`, `"tract":"000100","osm":[{"type":"area","id":1,"lat":38,"lng":-97}]`), "osm[0].type"},
		{"walk score above 100", with(`"tract":"000100"`, `"tract":"000100","walkscore":{"walk":120,"transit":null}`), "0-100"},
		{"one OSM element at two places", two(`"tract":"000100","osm":[{"type":"node","id":7,"lat":38,"lng":-97}]`), "both hold OSM element node/7"},
		{"two rents for one county", two(`"tract":"000100","fmr":{"county_name":"Y","rents":[1,2,3,4,5]}`), "county 20001"},
		{"two ACS rows for one tract", two(`"tract":"000100","acs":{"B01003_001E":"5"}`), "tract 20001000100"},
		{"bad FMR year", with(`"tract":"000100"`, `"tract":"000100","fmr":{"county_name":"Y","year":"25","rents":[1,2,3,4,5]}`), "year"},
	} {
		path := filepath.Join(t.TempDir(), "places.json")
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := sandbox.LoadPlaces(path)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: LoadPlaces = %v, want an error mentioning %q", tc.name, err, tc.msg)
		}
	}
	if _, err := sandbox.LoadPlaces(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("LoadPlaces of a missing file succeeded")
	}
	if _, err := sandbox.ParsePlaces([]byte(`{"places":[` + good + `]}`)); err != nil {
		t.Errorf("ParsePlaces of a minimal place: %v", err)
	}
}

func TestPlacesShareNoData(t *testing.T) {
	places := sandbox.DefaultPlaces()
	places[0].ACS["B01003_001E"] = "1"
	places[0].OSM[0].Tags["name"] = "changed"
	again := sandbox.DefaultPlaces()
	if again[0].ACS["B01003_001E"] == "1" || again[0].OSM[0].Tags["name"] == "changed" {
		t.Error("changing the places DefaultPlaces returned changed the next call's")
	}
}
