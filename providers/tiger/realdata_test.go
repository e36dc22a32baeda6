package tiger_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/tiger"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// realTracts is a TIGER/Line tract file exactly as the Census Bureau
// publishes it: the District of Columbia's 179 tracts of the 2010 Census
// (2010 edition, every column suffixed with 10, NAD83), kept with the
// reference recordings under shared/upstreams/tiger-line, whose README
// says where it came from. The test is skipped where it is not present.
const realTracts = "tl_2010_11_tract10.zip"

// TestRealTractsLoadAndLocateAtTheirInternalPoints loads the published
// tract file with dataload.Run into a real store, as `propertyd data load
// boundaries` does, and checks what an operator's lookups would get: the
// dataset is dated by the year in the file's name, holds every tract and
// refuses none, and for every tract of the file the polygon found at the
// tract's own internal point (INTPTLAT10/INTPTLON10, which the Census
// Bureau places inside the tract) is that tract, and only it, with the
// FIPS code and tract code Locate gives equal to the file's columns read
// by hand; the dataset's coverage box holds every internal point.
func TestRealTractsLoadAndLocateAtTheirInternalPoints(t *testing.T) {
	path := filepath.Join(recordings.Dir(t, "tiger-line"), realTracts)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the published tract file is not present: %v", err)
	}
	want := providertest.Features(t, path, "")
	if len(want) != 179 {
		t.Fatalf("%s has %d tracts; the District's 2010 file has 179", realTracts, len(want))
	}
	t.Run("sqlite", func(t *testing.T) { testRealTracts(t, filepath.Join(t.TempDir(), "real.db"), path) })
	t.Run("postgres", func(t *testing.T) { testRealTracts(t, pgtest.Schema(t), path) })
}

func testRealTracts(t *testing.T, database, path string) {
	ctx := context.Background()
	db, err := engine.Open(ctx, database, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	k, ok := dataload.Lookup(providers.KindBoundaries)
	if !ok {
		t.Fatal("no boundaries kind in the catalogue")
	}
	res, err := dataload.Run(ctx, db, k, dataload.Input{Name: dataload.Name(path), Files: []string{path}}, dataload.Options{})
	if err != nil {
		t.Fatalf("loading %s: %v", realTracts, err)
	}
	d := res.Dataset
	if d.Vintage != "2010" {
		t.Errorf("vintage %q, want 2010 (the year of %s): the ACS vintage check would compare against the wrong year", d.Vintage, realTracts)
	}
	if d.Rows != 179 || d.Failed != 0 {
		t.Errorf("loaded %d tracts and refused %d; the file holds 179 good ones", d.Rows, d.Failed)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings on a file as published: %q", res.Warnings)
	}

	text := func(props map[string]any, name string) string {
		s, _ := props[name].(string)
		return s
	}
	for _, f := range providertest.Features(t, path, "") {
		geoid := text(f.Properties, "GEOID10")
		lat, errLat := strconv.ParseFloat(text(f.Properties, "INTPTLAT10"), 64)
		lng, errLng := strconv.ParseFloat(text(f.Properties, "INTPTLON10"), 64)
		if errLat != nil || errLng != nil {
			t.Fatalf("tract %s: internal point %q %q does not read", geoid,
				text(f.Properties, "INTPTLAT10"), text(f.Properties, "INTPTLON10"))
		}
		p := providers.Point{Lat: lat, Lng: lng}
		if !d.Covers(p) {
			t.Errorf("tract %s: its internal point %v is outside the dataset's coverage %+v", geoid, p, d.Coverage)
		}
		polys, err := db.PolygonsAt(ctx, tiger.LayerTract, d.Generation, p)
		if err != nil {
			t.Fatalf("tract %s: PolygonsAt %v: %v", geoid, p, err)
		}
		if len(polys) != 1 || polys[0].Key != geoid {
			keys := make([]string, len(polys))
			for i, poly := range polys {
				keys[i] = poly.Key
			}
			t.Errorf("at the internal point %v of tract %s the store finds %q: a lookup there would name the wrong tract", p, geoid, keys)
			continue
		}
		attrs, err := tiger.AttrsOf(polys[0].Attrs)
		if err != nil {
			t.Fatalf("tract %s: stored attrs %s: %v", geoid, polys[0].Attrs, err)
		}
		tract, err := tiger.TractOf(attrs)
		if err != nil {
			t.Fatalf("tract %s: stored attrs %s: %v", geoid, polys[0].Attrs, err)
		}
		place, _ := tiger.Locate(nil, &tract)
		wantFIPS := text(f.Properties, "STATEFP10") + text(f.Properties, "COUNTYFP10")
		if place.FIPSCode != wantFIPS || place.CensusTract != text(f.Properties, "TRACTCE10") {
			t.Errorf("tract %s: Locate gives FIPS %q tract %q, the file %q %q", geoid,
				place.FIPSCode, place.CensusTract, wantFIPS, text(f.Properties, "TRACTCE10"))
		}
		if tract.NameLSAD != text(f.Properties, "NAMELSAD10") {
			t.Errorf("tract %s: stored NAMELSAD %q, the file %q", geoid, tract.NameLSAD, text(f.Properties, "NAMELSAD10"))
		}
	}
}
