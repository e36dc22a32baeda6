package geographies_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/geofile"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// The fixtures of packages geofile and tiger: four census tracts of the
// District of Columbia (one with a hole, one in two parts, a lake's shore
// with an island in its hole and a pond in the island, a five-sided one)
// and two counties, the District holding every tract and Arlington west of
// it with none (their READMEs say how they were made).
var (
	tractsPath   = filepath.Join("..", "..", "geofile", "testdata", "tracts.geojson")
	countiesPath = filepath.Join("..", "..", "tiger", "testdata", "counties.geojson")
)

// Census geocoder routes, as the fake's responders are counted.
var (
	routeMatch       = "GET " + census.DefaultBaseURL + "/locations/address"
	routeMatchLine   = "GET " + census.DefaultBaseURL + "/locations/onelineaddress"
	routeGeocode     = "GET " + census.DefaultBaseURL + "/geographies/address"
	routeGeocodeLine = "GET " + census.DefaultBaseURL + "/geographies/onelineaddress"
	routeReverse     = "GET " + census.DefaultBaseURL + "/geographies/coordinates"
)

// eachEngine runs fn on a SQLite file and on a PostgreSQL schema of its
// own (skipped without PROPERTYD_TEST_POSTGRES).
func eachEngine(t *testing.T, fn func(t *testing.T, database string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "g.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.Schema(t)) })
}

// loaded opens database and loads the fixtures into it as an operator
// would, each file a boundaries dataset of its own: the state's tracts and
// the national counties.
func loaded(t testing.TB, database string) engine.Store {
	t.Helper()
	ctx := context.Background()
	db, err := engine.Open(ctx, database, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	k, ok := dataload.Lookup(providers.KindBoundaries)
	if !ok {
		t.Fatal("no boundaries kind in the catalogue")
	}
	for _, in := range []dataload.Input{
		{Name: "tl_2020_11_tract", Files: []string{tractsPath}},
		{Name: "tl_2020_us_county", Files: []string{countiesPath}},
	} {
		if _, err := dataload.Run(ctx, db, k, in, dataload.Options{}); err != nil {
			t.Fatalf("loading %s: %v", in.Name, err)
		}
	}
	return db
}

// serviceAreas is the map as the geocoder holds it: each county and tract
// of the fixtures its polygon with its codes, read by hand, not through
// the packages under test; a county's name is its NAMELSAD, as the
// geocoder's NAME has it.
func serviceAreas(t *testing.T) []providertest.CensusArea {
	t.Helper()
	usps := map[string]string{"11": "DC", "51": "VA"}
	text := func(f geofile.Feature, name string) string {
		s, _ := f.Properties[name].(string)
		return s
	}
	var out []providertest.CensusArea
	for _, f := range providertest.Features(t, countiesPath, "") {
		out = append(out, providertest.CensusArea{Shape: f.Geometry, State: usps[text(f, "STATEFP")],
			StateFIPS: text(f, "STATEFP"), CountyFIPS: text(f, "COUNTYFP"), CountyName: text(f, "NAMELSAD")})
	}
	for _, f := range providertest.Features(t, tractsPath, "") {
		out = append(out, providertest.CensusArea{Shape: f.Geometry,
			StateFIPS: text(f, "STATEFP"), CountyFIPS: text(f, "COUNTYFP"), Tract: text(f, "TRACTCE")})
	}
	return out
}

// remote is the census module talking to the fake geocoder, which answers
// geographies from the fixtures' polygons and knows places.
func remote(t *testing.T, places ...providertest.CensusPlace) (*census.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoderAreas(mt, census.DefaultBaseURL, serviceAreas(t), places...)
	c, err := census.New(providers.Settings{Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	return c, mt
}

// calls returns the calls made to each route since before (a count of
// every route).
func calls(mt *httpmock.MockTransport, before map[string]int) map[string]int {
	out := map[string]int{}
	for route, n := range mt.GetCallCountInfo() {
		if d := n - before[route]; d != 0 {
			out[route] = d
		}
	}
	return out
}
