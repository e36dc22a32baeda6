package osmsql

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers"
)

// metresPerDegree is a degree of latitude on the sphere of mean radius
// providers.Point.DistanceMeters measures on.
const metresPerDegree = 6371008.8 * math.Pi / 180

// edgeMargin is how much farther than the radius an edge must lie for a
// circle to count as inside: the plane edges are measured in (circleInside)
// is exact to well within it for circles of tens of kilometres.
const edgeMargin = 1e-3

// readBoundary decodes an extract's boundary (providers.OSMExtract.Boundary):
// ok is false for WKB that is no polygon, which then covers nothing.
func readBoundary(raw []byte) (orb.MultiPolygon, bool) {
	g, err := wkb.Unmarshal(raw)
	if err != nil {
		return nil, false
	}
	switch g := g.(type) {
	case orb.MultiPolygon:
		return g, true
	case orb.Polygon:
		return orb.MultiPolygon{g}, true
	}
	return nil, false
}

// Boundaries keeps the boundaries of a store's extracts, decoded, by the
// generation they were published with: a generation is never numbered
// twice in a database (osm_generations keeps every number given), and a
// boundary changes only with a new one. Every area read inside an extract
// tests its boundary, and reading a state's polygon of thousands of points
// from the database and decoding it, at every read, cost more than the
// test. maxBoundaries bounds it (extracts are few; a load in a loop must
// not grow it for ever). The polygons are shared: never changed; nil is
// WKB that is no polygon, which covers nothing.
type Boundaries struct {
	m     sync.Map // generation (int64) -> orb.MultiPolygon
	count atomic.Int64
}

const maxBoundaries = 64

func (b *Boundaries) get(generation int64) (orb.MultiPolygon, bool) {
	v, ok := b.m.Load(generation)
	if !ok {
		return nil, false
	}
	return v.(orb.MultiPolygon), true
}

func (b *Boundaries) put(generation int64, mp orb.MultiPolygon) {
	if b.count.Add(1) > maxBoundaries {
		b.m.Clear()
		b.count.Store(1)
	}
	b.m.Store(generation, mp)
}

// pointInside reports whether p lies inside mp (its outer edges included,
// a hole's excluded), in longitude and latitude as a polygon file draws
// its edges: straight lines between the points it lists.
func pointInside(mp orb.MultiPolygon, p providers.Point) bool {
	return planar.MultiPolygonContains(mp, orb.Point{p.Lng, p.Lat})
}

// circleInside reports whether the whole of c lies inside mp: its center
// does (pointInside) and no edge of mp, an area's or a hole's, comes
// within c's radius of the center. A disc is connected, so a point of it
// outside mp would put an edge between it and the center, closer than
// the radius. south..north and west..east is a rectangle holding c
// (rules.BoundingBox): an edge whose own rectangle misses it lies farther
// than the radius and is not measured.
//
// The others are measured in a plane, the center's, with a degree of
// latitude metresPerDegree and a degree of longitude that times the
// cosine of the rectangle's latitude farthest from the equator: no
// distance between two points of the rectangle is longer there than on
// the sphere, so an edge measured farther than the radius is farther. An
// edge within edgeMargin of the radius counts as crossing the circle: the
// circle goes to the upstream rather than risk an extract missing what
// lies past its edge.
func circleInside(mp orb.MultiPolygon, c providers.Circle, south, north, west, east float64) bool {
	if !pointInside(mp, c.Center) {
		return false
	}
	ky := metresPerDegree
	kx := ky * math.Cos(math.Max(math.Abs(south), math.Abs(north))*math.Pi/180)
	limit := c.RadiusMeters * (1 + edgeMargin)
	area := orb.Bound{Min: orb.Point{west, south}, Max: orb.Point{east, north}}
	local := func(p orb.Point) orb.Point {
		return orb.Point{(p[0] - c.Center.Lng) * kx, (p[1] - c.Center.Lat) * ky}
	}
	for _, poly := range mp {
		for _, ring := range poly {
			for i := range ring {
				a, b := ring[i], ring[(i+1)%len(ring)] // a ring left open is closed
				if !area.Intersects(orb.Bound{Min: orb.Point{min(a[0], b[0]), min(a[1], b[1])},
					Max: orb.Point{max(a[0], b[0]), max(a[1], b[1])}}) {
					continue
				}
				if originToSegment(local(a), local(b)) < limit {
					return false
				}
			}
		}
	}
	return true
}

// originToSegment is the distance from the origin to the segment a-b in
// the plane.
func originToSegment(a, b orb.Point) float64 {
	d := orb.Point{b[0] - a[0], b[1] - a[1]}
	t := 0.0
	if l2 := d[0]*d[0] + d[1]*d[1]; l2 > 0 {
		t = math.Max(0, math.Min(1, -(a[0]*d[0]+a[1]*d[1])/l2))
	}
	return math.Hypot(a[0]+t*d[0], a[1]+t*d[1])
}
