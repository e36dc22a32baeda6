package geofile

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

// gp builds a GeoPackageBinary: the header with flags and an envelope of
// the given kind (its values zero), then body.
func gp(flags byte, envelope int, body []byte) []byte {
	b := []byte{'G', 'P', 0, flags | byte(envelope<<1), 0, 0, 0x10, 0xAD} // SRS 4269, big-endian
	size := map[int]int{0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[envelope]
	return append(append(b, make([]byte, size)...), body...)
}

// decodeGPKGGeometry skips the header whatever envelope it carries, reads an
// empty geometry as nil, and refuses what it cannot read with errGeometry.
func TestGeoPackageGeometryIsReadAsTheStandardWritesIt(t *testing.T) {
	square := orb.Polygon{{{-77, 38.9}, {-76.9, 38.9}, {-76.9, 39}, {-77, 39}, {-77, 38.9}}}
	body, err := wkb.Marshal(square)
	if err != nil {
		t.Fatal(err)
	}
	pointZ := make([]byte, 29) // ISO WKB Point Z (1001), little-endian
	pointZ[0] = 1
	binary.LittleEndian.PutUint32(pointZ[1:], 1001)
	binary.LittleEndian.PutUint64(pointZ[5:], math.Float64bits(-77))
	for _, c := range []struct {
		name string
		blob []byte
		want orb.Geometry
		err  bool
	}{
		{"no envelope", gp(1, 0, body), square, false},
		{"an XY envelope", gp(1, 1, body), square, false},
		{"an XYZ envelope", gp(1, 2, body), square, false},
		{"an XYZM envelope", gp(1, 4, body), square, false},
		{"empty", gp(1|0x10, 0, []byte{1, 3, 0, 0, 0, 0, 0, 0, 0}), nil, false},
		{"NULL", nil, nil, false},
		{"no GP magic", body, nil, true},
		{"an envelope kind beyond 4", gp(1, 5, body), nil, true},
		{"the extended type", gp(1|0x20, 0, body), nil, true},
		{"cut in its envelope", gp(1, 1, nil)[:20], nil, true},
		{"Z coordinates", gp(1, 0, pointZ), nil, true},
	} {
		g, err := decodeGPKGGeometry(c.blob)
		if c.err {
			if !errors.Is(err, errGeometry) {
				t.Errorf("%s: %v, %v; want errGeometry", c.name, g, err)
			}
			continue
		}
		if err != nil || (c.want == nil && g != nil) || (c.want != nil && !orb.Equal(g, c.want)) {
			t.Errorf("%s: %v, %v; want %v", c.name, g, err, c.want)
		}
	}
}
