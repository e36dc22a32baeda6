package geofile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/geofile"
	_ "github.com/propertyd/propertyd/store/gpkg" // GeoPackages are read through it
)

// readAll reads every feature of a file, failing the test on any error.
func readAll(t *testing.T, path string, opts geofile.Options) (*geofile.Reader, []geofile.Feature) {
	t.Helper()
	r, err := geofile.Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { r.Close() })
	var out []geofile.Feature
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r, out
		}
		if err != nil {
			t.Fatalf("%s: Next after %d features: %v", path, len(out), err)
		}
		out = append(out, f)
	}
}

var tigerTractColumns = []string{"STATEFP", "COUNTYFP", "TRACTCE", "GEOID", "NAME", "NAMELSAD", "MTFCC", "FUNCSTAT", "ALAND", "AWATER", "INTPTLAT", "INTPTLON"}

// The same features converted by ogr2ogr into every format are read into
// the same Features: the attributes with the same names, values and types,
// the geometries equal point for point (a shapefile's clockwise rings
// turned as GeoJSON has them), with the coordinate system each declares.
func TestEveryFormatYieldsTheSameFeatures(t *testing.T) {
	for _, set := range []struct {
		source  string
		columns []string
		files   []struct {
			path   string
			layer  string
			format geofile.Format
			crs    int
		}
	}{
		{source: "tracts.geojson", columns: tigerTractColumns, files: []struct {
			path   string
			layer  string
			format geofile.Format
			crs    int
		}{
			{"tracts.geojsonl", "", geofile.GeoJSONSeq, 4326},
			{"tracts.geojsons", "", geofile.GeoJSONSeq, 4326},
			{"tracts.shp", "", geofile.Shapefile, 4269},
			{"tracts.zip", "", geofile.Shapefile, 4269},
			{"tracts.gpkg", "", geofile.GeoPackage, 4269},
		}},
		{source: "flood.geojson", columns: []string{"FLD_ZONE", "ZONE_SUBTY", "SFHA_TF", "STATIC_BFE", "DEPTH"}, files: []struct {
			path   string
			layer  string
			format geofile.Format
			crs    int
		}{
			{"S_FLD_HAZ_AR.shp", "", geofile.Shapefile, 4269},
			{"nfhl.zip", "S_FLD_HAZ_AR", geofile.Shapefile, 4269},
			{"nfhl.gpkg", "s_fld_haz_ar", geofile.GeoPackage, 4269},
		}},
	} {
		ref, want := readAll(t, filepath.Join("testdata", set.source), geofile.Options{})
		if ref.Format() != geofile.GeoJSON || ref.CRS().EPSG != 4326 {
			t.Errorf("%s: format %s, %v; want geojson in WGS 84", set.source, ref.Format(), ref.CRS())
		}
		if len(want) != 4 {
			t.Fatalf("%s: %d features, want 4", set.source, len(want))
		}
		if !slices.Equal(ref.Columns(), set.columns) {
			t.Errorf("%s: columns %v, want %v", set.source, ref.Columns(), set.columns)
		}
		for _, file := range set.files {
			r, got := readAll(t, filepath.Join("testdata", file.path), geofile.Options{Layer: file.layer})
			if r.Format() != file.format || r.CRS().EPSG != file.crs {
				t.Errorf("%s: format %s, %v; want %s, EPSG:%d", file.path, r.Format(), r.CRS(), file.format, file.crs)
			}
			if !slices.Equal(r.Columns(), set.columns) {
				t.Errorf("%s: columns %v, want %v", file.path, r.Columns(), set.columns)
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d features, %s has %d", file.path, len(got), set.source, len(want))
				continue
			}
			for i := range want {
				if got[i].Index != i {
					t.Errorf("%s: feature %d has Index %d", file.path, i, got[i].Index)
				}
				if !reflect.DeepEqual(got[i].Properties, want[i].Properties) {
					t.Errorf("%s: feature %d: properties\n%#v\n%s has\n%#v", file.path, i, got[i].Properties, set.source, want[i].Properties)
				}
				if !orb.Equal(got[i].Geometry, want[i].Geometry) {
					t.Errorf("%s: feature %d: geometry\n%v\n%s has\n%v", file.path, i, got[i].Geometry, set.source, want[i].Geometry)
				}
			}
		}
	}

	// What the shared values are, so the comparison above is not between
	// equally wrong readings.
	_, tracts := readAll(t, "testdata/tracts.shp", geofile.Options{})
	if p := tracts[0].Properties; p["GEOID"] != "11001006202" || p["ALAND"] != int64(2153017) || p["AWATER"] != int64(0) ||
		p["INTPTLON"] != "-077.0124564" || p["NAMELSAD"] != "Census Tract 62.02" {
		t.Errorf("tract 62.02 reads %#v", p)
	}
	_, zones := readAll(t, "testdata/S_FLD_HAZ_AR.shp", geofile.Options{})
	if p := zones[0].Properties; p["FLD_ZONE"] != "AE" || p["ZONE_SUBTY"] != "FLOODWAY" || p["STATIC_BFE"] != 12.5 || p["DEPTH"] != -9999.0 {
		t.Errorf("the floodway reads %#v", p)
	}
	if p := zones[1].Properties; p["ZONE_SUBTY"] != nil || p["STATIC_BFE"] != -9999.0 {
		t.Errorf("an AE zone without subtype nor BFE reads %#v, want ZONE_SUBTY nil and STATIC_BFE -9999", p)
	}
	wantHole := orb.Polygon{
		{{-77.02, 38.895}, {-77.005, 38.895}, {-77.005, 38.905}, {-77.02, 38.905}, {-77.02, 38.895}},
		{{-77.015, 38.898}, {-77.015, 38.902}, {-77.01, 38.902}, {-77.01, 38.898}, {-77.015, 38.898}},
	}
	if !orb.Equal(tracts[0].Geometry, wantHole) {
		t.Errorf("tract 62.02 (a polygon with a hole, counter-clockwise outside) reads %v", tracts[0].Geometry)
	}
}

// A layer of a file that holds several is read by its name; without one
// the file is refused, naming its layers.
func TestALayerIsChosenByName(t *testing.T) {
	r, panels := readAll(t, "testdata/nfhl.zip", geofile.Options{Layer: "S_FIRM_PAN.shp"})
	if r.Layer() != "S_FIRM_PAN" || len(panels) != 1 || panels[0].Properties["FIRM_PAN"] != "1100010019C" {
		t.Fatalf("layer %q: %v", r.Layer(), panels)
	}
	_, gpanels := readAll(t, "testdata/nfhl.gpkg", geofile.Options{Layer: "S_FIRM_PAN"})
	// A dBase date (D) and a GeoPackage DATE are the same time.Time.
	if d := panels[0].Properties["EFF_DATE"]; !reflect.DeepEqual(d, gpanels[0].Properties["EFF_DATE"]) || d == nil {
		t.Errorf("EFF_DATE reads %#v from the shapefile, %#v from the GeoPackage", d, gpanels[0].Properties["EFF_DATE"])
	}
	for _, file := range []string{"testdata/nfhl.zip", "testdata/nfhl.gpkg"} {
		for _, layer := range []string{"", "S_BFE"} {
			_, err := geofile.Open(file, geofile.Options{Layer: layer})
			if !errors.Is(err, geofile.ErrLayer) || !containsAll(err.Error(), file, "S_FIRM_PAN", "S_FLD_HAZ_AR") {
				t.Errorf("Open(%s, layer %q) = %v, want ErrLayer naming the file and both layers", file, layer, err)
			}
		}
	}
}

// Holes go to the outer ring that holds them, whatever the order of the
// rings in the record: the smallest that holds them (a pond on an island in
// a lake is the island's), and a hole inside no outer ring is an outer
// ring of its own.
func TestHolesGoToTheOuterRingThatHoldsThem(t *testing.T) {
	_, tracts := readAll(t, "testdata/tracts.shp", geofile.Options{})
	lake, ok := tracts[2].Geometry.(orb.MultiPolygon)
	if !ok || len(lake) != 2 || len(lake[0]) != 2 || len(lake[1]) != 2 {
		t.Fatalf("tract 9800 (a lake's shore with an island holding a pond) reads %v, want two polygons with a hole each", tracts[2].Geometry)
	}
	if lake[1][1].Bound() != (orb.Bound{Min: orb.Point{-77.041, 38.869}, Max: orb.Point{-77.039, 38.871}}) {
		t.Errorf("the island's hole is %v, want the pond", lake[1][1])
	}

	dir := t.TempDir()
	a, b := square(-77.0, 38.9, 0.01, true), square(-76.9, 38.9, 0.01, true)
	holeA, holeB := square(-77.0, 38.9, 0.002, false), square(-76.9, 38.9, 0.002, false)
	island := square(-77.0, 38.9, 0.001, true)
	stray := square(-76.5, 38.9, 0.002, false)
	writeShapefile(t, filepath.Join(dir, "rings"), [][][]orb.Point{
		{holeB, a, holeA, b},                   // holes before their outer rings, in the other order
		{a, holeA, island},                     // an island inside a hole
		{a, stray},                             // a hole inside no outer ring
		{holeA},                                // a lone counter-clockwise ring
		{b, square(-76.9, 38.9, 0.002, false)}, // one outer ring: its hole, turned clockwise
	}, []testField{{"ID", 'N', 4, 0}}, [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}})
	_, got := readAll(t, filepath.Join(dir, "rings.shp"), geofile.Options{})
	bound := func(r []orb.Point) orb.Bound { return orb.Ring(r).Bound() }
	type shape [][]orb.Bound // polygons' rings by their bounds
	shapes := func(g orb.Geometry) shape {
		var polys []orb.Polygon
		switch g := g.(type) {
		case orb.Polygon:
			polys = []orb.Polygon{g}
		case orb.MultiPolygon:
			polys = g
		}
		var s shape
		for _, p := range polys {
			var rings []orb.Bound
			for i, r := range p {
				if (i == 0) != (r.Orientation() == orb.CCW) {
					t.Errorf("ring %d of %v runs %v", i, p, r.Orientation())
				}
				rings = append(rings, r.Bound())
			}
			s = append(s, rings)
		}
		return s
	}
	want := []shape{
		{{bound(a), bound(holeA)}, {bound(b), bound(holeB)}},
		{{bound(a), bound(holeA)}, {bound(island)}},
		{{bound(a)}, {bound(stray)}},
		{{bound(holeA)}},
		{{bound(b), bound(holeB)}},
	}
	for i, w := range want {
		if s := shapes(got[i].Geometry); !reflect.DeepEqual(s, w) {
			t.Errorf("record %d: polygons of rings %v, want %v", i+1, s, w)
		}
	}
	if _, ok := got[4].Geometry.(orb.Polygon); !ok {
		t.Errorf("one outer ring reads as %T, want an orb.Polygon", got[4].Geometry)
	}
}

// containsAll reports whether s holds every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Polygons come out as RFC 7946 orients them whatever their file says:
// a GeoJSON polygon written clockwise outside reads counter-clockwise
// outside and clockwise in its hole.
func TestPolygonsComeOutAsRFC7946OrientsThem(t *testing.T) {
	p := filepath.Join(t.TempDir(), "clockwise.geojson")
	os.WriteFile(p, []byte(`{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [
		[[-77.02, 38.895], [-77.02, 38.905], [-77.005, 38.905], [-77.005, 38.895], [-77.02, 38.895]],
		[[-77.015, 38.898], [-77.01, 38.898], [-77.01, 38.902], [-77.015, 38.902], [-77.015, 38.898]]]}}]}`), 0o644)
	_, got := readAll(t, p, geofile.Options{})
	want := orb.Polygon{
		{{-77.02, 38.895}, {-77.005, 38.895}, {-77.005, 38.905}, {-77.02, 38.905}, {-77.02, 38.895}},
		{{-77.015, 38.898}, {-77.015, 38.902}, {-77.01, 38.902}, {-77.01, 38.898}, {-77.015, 38.898}},
	}
	if !orb.Equal(got[0].Geometry, want) {
		t.Errorf("a clockwise GeoJSON polygon reads %v, want %v", got[0].Geometry, want)
	}
}
