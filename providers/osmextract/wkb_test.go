package osmextract

import (
	"bytes"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

// Footprints written one after another into shared chunks are each what
// wkb.Marshal writes, whole, and stay so as later ones are written: small
// ones, one larger than a chunk's room, and past the end of a chunk.
func TestFootprintsKeepTheirWKBInSharedChunks(t *testing.T) {
	square := func(lng, lat, side float64) orb.Polygon {
		return orb.Polygon{{{lng, lat}, {lng + side, lat}, {lng + side, lat + side}, {lng, lat + side}, {lng, lat}}}
	}
	big := orb.Ring{}
	for i := range 600 { // 600 points: 9.6 KB of WKB, more than a chunk's room for one
		big = append(big, orb.Point{-77 + float64(i)*1e-5, 38.9 + float64(i%7)*1e-5})
	}
	big = append(big, big[0])
	var geoms []orb.Geometry
	for i := range 2000 { // about three chunks of small footprints
		geoms = append(geoms, square(-77+float64(i)*1e-4, 38.9, 1e-4))
		if i == 500 || i == 1999 {
			geoms = append(geoms, orb.Polygon{big})
		}
	}
	geoms = append(geoms, orb.MultiPolygon{square(-77, 38.8, 1e-3), square(-76.9, 38.8, 1e-3)})
	var w wkbChunks
	raws := make([][]byte, len(geoms))
	for i, g := range geoms {
		raw, err := w.marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if cap(raw) != len(raw) {
			t.Fatalf("footprint %d has room past its end: %d of %d", i, len(raw), cap(raw))
		}
		raws[i] = raw
	}
	for i, g := range geoms {
		want, err := wkb.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raws[i], want) {
			t.Fatalf("footprint %d (%T) reads %d bytes unlike wkb.Marshal's %d", i, g, len(raws[i]), len(want))
		}
	}
}
