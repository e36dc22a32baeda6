package geofile_test

import (
	"errors"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/geofile"
)

// A Chain reads its parts one after the other, a layer of a .zip among
// them, telling the part of each feature.
func TestChainReadsItsPartsInOrder(t *testing.T) {
	c := geofile.NewChain([]geofile.Part{
		{File: filepath.Join("testdata", "tracts.geojson")},
		{File: filepath.Join("testdata", "nfhl.zip"), Layer: "S_FIRM_PAN"},
	})
	defer c.Close()
	count := map[int]int{}
	for {
		f, part, err := c.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if part == 1 && f.Properties["FIRM_PAN"] == nil {
			t.Errorf("a feature of the panels' part without FIRM_PAN: %v", f.Properties)
		}
		count[part]++
	}
	if count[0] != 4 || count[1] != 1 {
		t.Errorf("features by part = %v, want 4 tracts then 1 panel", count)
	}
	if _, _, err := c.Next(); err != io.EOF {
		t.Errorf("Next after the end: %v, want io.EOF", err)
	}
}

func TestPolygonWKBTakesPolygonsOnly(t *testing.T) {
	sq := orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}
	raw, b, err := geofile.PolygonWKB(sq)
	if err != nil || len(raw) != 1+4+4+4+5*16 || b.Max != (orb.Point{1, 1}) {
		t.Errorf("PolygonWKB(square) = %d bytes, %v, %v", len(raw), b, err)
	}
	if _, _, err := geofile.PolygonWKB(orb.MultiPolygon{sq}); err != nil {
		t.Errorf("a multipolygon: %v", err)
	}
	for _, g := range []orb.Geometry{nil, orb.Point{1, 2}, orb.LineString{{0, 0}, {1, 1}}} {
		if _, _, err := geofile.PolygonWKB(g); !errors.Is(err, geofile.ErrNotPolygon) {
			t.Errorf("PolygonWKB(%T): %v, want ErrNotPolygon", g, err)
		}
	}
	// Projected metres taken for degrees, a NaN, a ring of two points.
	for _, g := range []orb.Geometry{
		orb.Polygon{{{-8575000, 4705000}, {-8574000, 4705000}, {-8574000, 4706000}, {-8575000, 4705000}}},
		orb.MultiPolygon{sq, {{{0, 0}, {1, 0}, {1, math.NaN()}, {0, 0}}}},
		orb.Polygon{{{0, 0}, {1, 1}}},
	} {
		if _, _, err := geofile.PolygonWKB(g); !errors.Is(err, geofile.ErrCoordinates) {
			t.Errorf("PolygonWKB(%v): %v, want ErrCoordinates", g, err)
		}
	}
}
