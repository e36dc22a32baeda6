package layergen_test

import (
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers/geofile"
	"github.com/propertyd/propertyd/providers/kits/layergen"
)

// holding lists the features of l whose polygon holds p.
func holding(t *testing.T, l layergen.Layer, p orb.Point) []string {
	t.Helper()
	var keys []string
	err := l.Each(func(f layergen.Feature) error {
		if planar.PolygonContains(f.Polygon, p) {
			keys = append(keys, f.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestEveryLayerTilesItsArea is what the latency test and the benchmark
// count on: a random point inside a layer's box is in exactly one of its
// polygons, and At and ZoneAt find the one that holds it.
func TestEveryLayerTilesItsArea(t *testing.T) {
	tracts, flood := layergen.NewTracts(200), layergen.NewFlood(100)
	if tracts.Len() != 200 || tracts.Counties() != 4 || flood.Zones() != 100 {
		t.Fatalf("%d tracts in %d counties, %d zones; want 200 in 4, 100", tracts.Len(), tracts.Counties(), flood.Zones())
	}
	if !tracts.Inner().Contains(flood.Box().Min) || !tracts.Inner().Contains(flood.Box().Max) {
		t.Fatalf("the flood map %v is not inside the state %v", flood.Box(), tracts.Inner())
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	in := func(b orb.Bound) orb.Point {
		return orb.Point{b.Min[0] + rnd.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rnd.Float64()*(b.Max[1]-b.Min[1])}
	}
	for range 100 {
		p := in(tracts.Inner())
		got := holding(t, tracts.TractLayer(2024), p)
		if len(got) != 1 {
			t.Fatalf("tracts holding %v: %v, want exactly one", p, got)
		}
		if f, ok := tracts.At(p); !ok || f.Key != got[0] {
			t.Errorf("At(%v) = %s, %v; the tract holding it is %s", p, f.Key, ok, got[0])
		}
		counties := holding(t, tracts.CountyLayer(2024), p)
		if len(counties) != 1 || counties[0] != got[0][:5] {
			t.Errorf("counties holding %v: %v, want the one of tract %s", p, counties, got[0])
		}
	}
	for range 300 {
		p := in(flood.Box())
		got := holding(t, flood.HazardLayer(), p)
		if len(got) != 1 {
			t.Fatalf("hazard areas holding %v: %v, want exactly one", p, got)
		}
		i, j, ok := flood.ZoneAt(p)
		if ok && flood.Zone(i, j).Key != got[0] || !ok && got[0][len(flood.DFIRMID)+1] != 'X' {
			t.Errorf("ZoneAt(%v) = %d, %d, %v; the area holding it is %s", p, i, j, ok, got[0])
		}
		if area := flood.AreaAt(p); area != got[0] {
			t.Errorf("AreaAt(%v) = %s; the area holding it is %s", p, area, got[0])
		}
		if panels := holding(t, flood.PanelLayer(), p); len(panels) != 1 {
			t.Errorf("panels holding %v: %v, want exactly one", p, panels)
		}
	}
}

// TestShapefilesReadBackAsGenerated writes each layer as a shapefile and
// reads it with the loaders' reader: the same polygons (oriented as RFC
// 7946 has them once read), the same attributes, typed as the reader
// types a .dbf's, and the counts WriteShapefile reports.
func TestShapefilesReadBackAsGenerated(t *testing.T) {
	tracts, flood := layergen.NewTracts(50), layergen.NewFlood(64)
	for _, l := range []layergen.Layer{tracts.TractLayer(2024), tracts.CountyLayer(2024), flood.HazardLayer(), flood.PanelLayer()} {
		t.Run(l.Name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), l.Name)
			n, err := layergen.WriteShapefile(base, l)
			if err != nil {
				t.Fatal(err)
			}
			var want []layergen.Feature
			var vertices int64
			l.Each(func(f layergen.Feature) error {
				want = append(want, f)
				vertices += int64(f.Vertices())
				return nil
			})
			if n.Features != int64(len(want)) || n.Vertices != vertices {
				t.Errorf("wrote %+v, generated %d features of %d points", n, len(want), vertices)
			}
			r, err := geofile.Open(base+".shp", geofile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !reflect.DeepEqual(r.Columns(), columnNames(l.Columns)) {
				t.Errorf("columns %v, want %v", r.Columns(), columnNames(l.Columns))
			}
			for i, w := range want {
				f, err := r.Next()
				if err != nil {
					t.Fatalf("feature %d: %v", i, err)
				}
				if !orb.Equal(f.Geometry, w.Polygon) {
					t.Fatalf("feature %s: another polygon read back", w.Key)
				}
				for k, c := range l.Columns {
					got, v := f.Properties[c.Name], w.Values[k]
					if s, ok := v.(string); ok && s == "" {
						v = nil // dBase writes blanks for nothing
					}
					if c.Type == 'N' && c.Decimals == 0 && v != nil {
						v = v.(int64)
					}
					if tm, ok := v.(time.Time); ok {
						v = tm.UTC()
					}
					if !reflect.DeepEqual(got, v) {
						t.Fatalf("feature %s: %s = %#v, want %#v", w.Key, c.Name, got, v)
					}
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("after the last feature: %v, want io.EOF", err)
			}
		})
	}
}

func columnNames(cols []layergen.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// TestLinesAreWrittenAsPolyLines: a layer of lines (TIGER/Line's street
// edges) reads back as the lines written, in their order of points, and a
// layer that mixes lines and polygons is refused rather than written as
// a shapefile no reader takes.
func TestLinesAreWrittenAsPolyLines(t *testing.T) {
	cols := []layergen.Column{{Name: "TLID", Type: 'N', Width: 10}}
	lines := []orb.LineString{{{-77.5, 39}, {-77.499, 39.0001}, {-77.498, 39}}, {{-77.4, 39.1}, {-77.4, 39.2}}}
	base := filepath.Join(t.TempDir(), "edges")
	n, err := layergen.WriteShapefile(base, layergen.Layer{Name: "edges", Columns: cols,
		Each: func(yield func(layergen.Feature) error) error {
			for i, l := range lines {
				if err := yield(layergen.Feature{Key: "e", Line: l, Values: []any{int64(i + 1)}}); err != nil {
					return err
				}
			}
			return nil
		}})
	if err != nil || n.Features != 2 || n.Vertices != 5 {
		t.Fatalf("wrote %+v, %v; want 2 lines of 5 points", n, err)
	}
	r, err := geofile.Open(base+".shp", geofile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, want := range lines {
		f, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := f.Geometry.(orb.LineString)
		if ms, isMulti := f.Geometry.(orb.MultiLineString); isMulti && len(ms) == 1 {
			got, ok = ms[0], true
		}
		if !ok || !orb.Equal(got, want) || f.Properties["TLID"] != int64(i+1) {
			t.Errorf("line %d read back as %#v %v, want %v", i, f.Geometry, f.Properties, want)
		}
	}
	_, err = layergen.WriteShapefile(filepath.Join(t.TempDir(), "mixed"), layergen.Layer{Name: "mixed", Columns: cols,
		Each: func(yield func(layergen.Feature) error) error {
			if err := yield(layergen.Feature{Key: "a", Line: lines[0], Values: []any{int64(1)}}); err != nil {
				return err
			}
			return yield(layergen.Feature{Key: "b", Polygon: orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, Values: []any{int64(2)}})
		}})
	if err == nil {
		t.Error("a layer of lines and polygons was written")
	}
}
