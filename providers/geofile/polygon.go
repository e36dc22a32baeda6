package geofile

import (
	"fmt"

	"github.com/paulmach/orb"
)

// checkRing reports a ring that cannot bound an area: fewer than four
// points, or a last point that is not its first (every format read here
// requires closed rings: the shapefile description, RFC 7946 3.1.6 and
// the Simple Features WKB a GeoPackage holds).
func checkRing(r orb.Ring, n int) error {
	if len(r) == 0 {
		return fmt.Errorf("ring %d has no points", n)
	}
	if first, last := r[0], r[len(r)-1]; first != last {
		return fmt.Errorf("%w: ring %d of %d points starts at (%v %v) and ends at (%v %v)",
			ErrOpenRing, n, len(r), first[0], first[1], last[0], last[1])
	}
	if len(r) < 4 {
		return fmt.Errorf("ring %d has %d points, fewer than the 4 of a closed ring", n, len(r))
	}
	return nil
}

// area2 is twice the ring's signed area: positive for a counter-clockwise
// ring, negative for a clockwise one (x east, y north).
func area2(r orb.Ring) float64 {
	var a float64
	for i := 0; i+1 < len(r); i++ {
		a += r[i][0]*r[i+1][1] - r[i+1][0]*r[i][1]
	}
	return a
}

// orient turns the ring counter-clockwise (ccw) or clockwise, in place.
func orient(r orb.Ring, ccw bool) {
	if a := area2(r); a != 0 && (a > 0) != ccw {
		r.Reverse()
	}
}

// normalize checks a geometry's rings and orients its polygons as RFC 7946
// has them (outer rings counter-clockwise, holes clockwise), so a polygon
// is the same whichever format it came from. Polygons here know their
// rings' roles by position (GeoJSON, WKB): the first is the outer ring.
func normalize(g orb.Geometry) error {
	switch g := g.(type) {
	case orb.Polygon:
		return normalizePolygon(g, 0)
	case orb.MultiPolygon:
		n := 0
		for _, p := range g {
			if err := normalizePolygon(p, n); err != nil {
				return err
			}
			n += len(p)
		}
	case orb.Collection:
		for _, c := range g {
			if err := normalize(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func normalizePolygon(p orb.Polygon, n int) error {
	for i, r := range p {
		if err := checkRing(r, n+i+1); err != nil {
			return err
		}
		orient(r, i == 0)
	}
	return nil
}

// assemble builds the polygon of a shapefile record from its rings, which
// the record lists without saying which are holes. ESRI's Shapefile
// Technical Description (July 1998, "Polygon"): an outer ring runs
// clockwise, a hole counter-clockwise, and a hole lies inside its outer
// ring, in any order of the parts. Each hole goes to the smallest outer
// ring that contains it (so the pond on an island in a lake is the
// island's hole, not the lake's); a hole that no outer ring contains, and
// every ring of a record with no clockwise ring, is taken as an outer ring
// of its own, as GDAL reads such files. One outer ring gives an
// orb.Polygon, several an orb.MultiPolygon in the order of their outer
// rings, oriented as normalize orients them.
func assemble(rings []orb.Ring) (orb.Geometry, error) {
	for i, r := range rings {
		if err := checkRing(r, i+1); err != nil {
			return nil, err
		}
	}
	var outers, holes []int
	for i, r := range rings {
		if area2(r) <= 0 {
			outers = append(outers, i)
		} else {
			holes = append(holes, i)
		}
	}
	if len(outers) == 0 {
		outers, holes = holes, nil
	}
	polys := make([]orb.Polygon, len(outers))
	for k, i := range outers {
		orient(rings[i], true)
		polys[k] = orb.Polygon{rings[i]}
	}
	var bounds []orb.Bound
	if len(holes) > 0 {
		bounds = make([]orb.Bound, len(outers))
		for k, i := range outers {
			bounds[k] = rings[i].Bound()
		}
	}
	for _, h := range holes {
		hole := rings[h]
		best, bestArea := -1, 0.0
		hb := hole.Bound()
		for k, i := range outers {
			if !bounds[k].Contains(hb.Min) || !bounds[k].Contains(hb.Max) {
				continue
			}
			if !ringHolds(rings[i], hole) {
				continue
			}
			if a := area2(rings[i]); best < 0 || a < bestArea {
				best, bestArea = k, a
			}
		}
		if best < 0 {
			orient(hole, true)
			polys = append(polys, orb.Polygon{hole})
			continue
		}
		orient(hole, false)
		polys[best] = append(polys[best], hole)
	}
	if len(polys) == 1 {
		return polys[0], nil
	}
	return orb.MultiPolygon(polys), nil
}

// ringHolds reports whether the outer ring contains the hole: the first of
// the hole's points that is not on the outer ring's boundary is inside it
// (a hole may touch its outer ring at a point). A hole lying wholly on the
// boundary is taken as inside.
func ringHolds(outer, hole orb.Ring) bool {
	for _, p := range hole {
		switch pointInRing(outer, p) {
		case 1:
			return true
		case -1:
			return false
		}
	}
	return true
}

// pointInRing is 1 for a point inside the ring, -1 outside, 0 on its
// boundary (crossing number, the ray cast east).
func pointInRing(r orb.Ring, p orb.Point) int {
	inside := false
	x, y := p[0], p[1]
	for i, j := 0, len(r)-1; i < len(r); j, i = i, i+1 {
		a, b := r[j], r[i]
		if onSegment(a, b, p) {
			return 0
		}
		if (a[1] > y) != (b[1] > y) {
			if x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
				inside = !inside
			}
		}
	}
	if inside {
		return 1
	}
	return -1
}

func onSegment(a, b, p orb.Point) bool {
	cross := (b[0]-a[0])*(p[1]-a[1]) - (b[1]-a[1])*(p[0]-a[0])
	if cross != 0 {
		return false
	}
	return min(a[0], b[0]) <= p[0] && p[0] <= max(a[0], b[0]) && min(a[1], b[1]) <= p[1] && p[1] <= max(a[1], b[1])
}
