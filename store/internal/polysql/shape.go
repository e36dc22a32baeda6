package polysql

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/propertyd/propertyd/providers"
)

// WKB geometry types a layer takes (two dimensions only).
const (
	wkbPolygon      = 3
	wkbMultiPolygon = 6
)

// shape is a layer polygon's WKB, checked, with what PutPolygons stores
// beside it.
type shape struct {
	wkb      []byte
	box      providers.BBox
	vertices int
}

// ring is one ring of a WKB shape: its points as WKB holds them, 16 bytes
// each, in the byte order le says.
type ring struct {
	pts []byte
	le  bool
}

func (r ring) len() int { return len(r.pts) / 16 }

// at is the i-th point's longitude and latitude.
func (r ring) at(i int) (x, y float64) {
	b := r.pts[i*16 : i*16+16]
	if r.le {
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), math.Float64frombits(binary.BigEndian.Uint64(b[8:]))
}

var errShape = errors.New("not a two-dimensional WKB polygon or multipolygon")

// eachRing calls fn with each ring of the WKB polygon or multipolygon b,
// outer rings and holes alike, reading b in place. It returns errShape for
// anything else, or for b cut short or followed by more bytes.
func eachRing(b []byte, fn func(ring) error) error {
	rest, err := readPolygons(b, true, fn)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return errShape
	}
	return nil
}

// readPolygons reads one WKB geometry at the start of b: a polygon, or,
// when multi, a multipolygon too; it returns what follows it.
func readPolygons(b []byte, multi bool, fn func(ring) error) ([]byte, error) {
	if len(b) < 5 || b[0] > 1 {
		return nil, errShape
	}
	le := b[0] == 1
	u32 := func(b []byte) uint32 {
		if le {
			return binary.LittleEndian.Uint32(b)
		}
		return binary.BigEndian.Uint32(b)
	}
	typ := u32(b[1:])
	b = b[5:]
	if len(b) < 4 {
		return nil, errShape
	}
	n := int(u32(b))
	b = b[4:]
	switch {
	case typ == wkbMultiPolygon && multi:
		if n == 0 {
			return nil, errShape
		}
		for range n {
			var err error
			if b, err = readPolygons(b, false, fn); err != nil {
				return nil, err
			}
		}
		return b, nil
	case typ == wkbPolygon:
		if n == 0 {
			return nil, errShape
		}
		for range n {
			if len(b) < 4 {
				return nil, errShape
			}
			np := int(u32(b))
			b = b[4:]
			if np > len(b)/16 {
				return nil, errShape
			}
			if err := fn(ring{pts: b[:np*16], le: le}); err != nil {
				return nil, err
			}
			b = b[np*16:]
		}
		return b, nil
	}
	return nil, errShape
}

// readShape checks raw as a layer's shape and measures it: every ring of
// at least three points, every point a valid longitude and latitude.
func readShape(raw []byte) (shape, error) {
	s := shape{wkb: raw, box: providers.BBox{West: math.Inf(1), South: math.Inf(1), East: math.Inf(-1), North: math.Inf(-1)}}
	err := eachRing(raw, func(r ring) error {
		if r.len() < 3 {
			return errors.New("a ring has fewer than three points")
		}
		for i := range r.len() {
			x, y := r.at(i)
			if !(x >= -180 && x <= 180 && y >= -90 && y <= 90) { // NaN fails too
				return errors.New("a point is not a valid longitude and latitude")
			}
			s.box.West, s.box.East = min(s.box.West, x), max(s.box.East, x)
			s.box.South, s.box.North = min(s.box.South, y), max(s.box.North, y)
		}
		s.vertices += r.len()
		return nil
	})
	return s, err
}

// crosses reports whether the edge a-b crosses the ray that goes east from
// p: the edge spans p's latitude, its south end included and its north end
// not (so a ray through a vertex counts the two edges that meet there once
// between them, or not at all, as the ring goes on or turns back), and
// crosses it east of p. A point on the edge is west of it: the edge
// counts, and the polygon east of the edge holds the point. The edge's
// ends are put in order, south first, so that an edge two polygons share
// gives both the same answer whichever way each draws it: each point of
// an area they tile is in exactly one of them.
func crosses(ax, ay, bx, by, px, py float64) bool {
	if ay > by {
		ax, ay, bx, by = bx, by, ax, ay
	}
	if !(ay <= py && py < by) {
		return false
	}
	return px < ax+(py-ay)*(bx-ax)/(by-ay)
}

// holds reports whether the WKB shape raw, as readShape took it, holds
// (x, y): the even-odd rule over all its rings, each closed (an edge from
// its last point to its first; a closed ring's is of no length).
func holds(raw []byte, x, y float64) bool {
	odd := false
	_ = eachRing(raw, func(r ring) error {
		n := r.len()
		ax, ay := r.at(n - 1)
		for i := range n {
			bx, by := r.at(i)
			if crosses(ax, ay, bx, by, x, y) {
				odd = !odd
			}
			ax, ay = bx, by
		}
		return nil
	})
	return odd
}

// A shape of more than bandVertices points is read by band: its edges
// are kept again in latitude bands that start every bandEdges edges
// (layer_polygon_bands, migration 0020), and a point is tested against
// the edges of its band alone, which are all the edges a ray east from it
// can cross. A zone X of a county's flood layer, a rectangle with its
// 6,000 special flood hazard areas as holes, is 625,000 points, a 10 MB
// WKB: read whole for each point it took a p50 of 12.6 ms on SQLite and
// 26 ms on PostgreSQL, against 0.16 and 0.24 ms by band (20 million
// points, TestPolygonLatencyAtScale). Bands of 96 edges were no faster to
// read and made the load four times slower: an edge reaches into several
// thin bands, and is written into each.
const (
	bandVertices = 1024
	bandEdges    = 512
)

// band is one band of a shape: the edges whose latitudes reach into
// south..the next band's south (the north end excluded, the last band's
// unbounded), as chains of points (edgeChains).
type band struct {
	south  float64
	chains []byte
}

// bands splits s's edges into bands, each edge into every band its
// latitudes reach into. An edge that runs east-west crosses no ray and is
// in none. The bands' souths are every bandEdges-th of the edges' south
// ends, in order, so that a band of many short edges is short.
//
// Each band's edges are chains (edgeChains): runs of edges that follow each
// other on a ring share their points.
func bands(s shape) []band {
	var souths []float64
	_ = eachRing(s.wkb, func(r ring) error {
		_, ay := r.at(r.len() - 1)
		for i := range r.len() {
			_, by := r.at(i)
			if ay != by {
				souths = append(souths, min(ay, by))
			}
			ay = by
		}
		return nil
	})
	slices.Sort(souths)
	bounds := []float64{s.box.South}
	for i := bandEdges; i < len(souths); i += bandEdges {
		if souths[i] > bounds[len(bounds)-1] {
			bounds = append(bounds, souths[i])
		}
	}
	type building struct {
		buf       []byte
		ring, pos int // the ring and index of the last edge's end added
		count     int // where the open chain's count is in buf
	}
	bs := make([]building, len(bounds))
	for i := range bs {
		bs[i].ring = -1
	}
	// bandOf is the last band whose south is at or below y.
	bandOf := func(y float64) int {
		i, found := slices.BinarySearch(bounds, y)
		if found {
			return i
		}
		return i - 1
	}
	ringNo := 0
	_ = eachRing(s.wkb, func(r ring) error {
		n := r.len()
		for i := range n {
			j := (i + 1) % n
			ax, ay := r.at(i)
			bx, by := r.at(j)
			if ay == by {
				continue
			}
			lo, hi := min(ay, by), max(ay, by)
			last := bandOf(hi)
			if bounds[last] == hi {
				last-- // the edge stops where that band starts
			}
			for k := bandOf(lo); k <= last; k++ {
				b := &bs[k]
				if b.ring != ringNo || b.pos != i {
					b.count = len(b.buf)
					b.buf = binary.LittleEndian.AppendUint32(b.buf, 1)
					b.buf = appendPoint(b.buf, ax, ay)
				}
				b.buf = appendPoint(b.buf, bx, by)
				binary.LittleEndian.PutUint32(b.buf[b.count:], binary.LittleEndian.Uint32(b.buf[b.count:])+1)
				b.ring, b.pos = ringNo, j
			}
		}
		ringNo++
		return nil
	})
	out := make([]band, 0, len(bounds))
	for i, b := range bs {
		if b.buf == nil {
			b.buf = []byte{} // a shape of no area: no edge, and not NULL
		}
		out = append(out, band{south: bounds[i], chains: b.buf})
	}
	return out
}

func appendPoint(b []byte, x, y float64) []byte {
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(y))
}

// edgeChains is how a band keeps its edges: chains one after another,
// each a little-endian uint32 count of points, then the points (longitude
// and latitude, little-endian float64), an edge between each two that
// follow each other.
//
// chainsHold reports whether an odd number of the edges of a band's
// chains cross the ray east from (x, y), the band being the one of y: the
// same answer as holds of the whole shape, since every edge that can
// cross that ray is in the band.
func chainsHold(chains []byte, x, y float64) bool {
	odd := false
	for len(chains) >= 4 {
		n := int(binary.LittleEndian.Uint32(chains))
		chains = chains[4:]
		if n > len(chains)/16 {
			return false // not a band PutPolygons wrote
		}
		pts := ring{pts: chains[:n*16], le: true}
		ax, ay := pts.at(0)
		for i := 1; i < n; i++ {
			bx, by := pts.at(i)
			if crosses(ax, ay, bx, by, x, y) {
				odd = !odd
			}
			ax, ay = bx, by
		}
		chains = chains[n*16:]
	}
	return odd
}
