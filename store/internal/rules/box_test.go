package rules

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// destination returns the point d metres from p along bearing (radians).
func destination(p providers.Point, bearing, d float64) providers.Point {
	la, lo, a := p.Lat*math.Pi/180, p.Lng*math.Pi/180, d/earthRadius
	la2 := math.Asin(math.Sin(la)*math.Cos(a) + math.Cos(la)*math.Sin(a)*math.Cos(bearing))
	lo2 := lo + math.Atan2(math.Sin(bearing)*math.Sin(a)*math.Cos(la), math.Cos(a)-math.Sin(la)*math.Sin(la2))
	return providers.Point{Lat: la2 * 180 / math.Pi, Lng: math.Mod(lo2*180/math.Pi+540, 360) - 180}
}

func (b Box) contains(q providers.Point) bool {
	if q.Lat < b.South || q.Lat > b.North {
		return false
	}
	for _, r := range b.Lngs {
		if q.Lng >= r.West && q.Lng <= r.East {
			return true
		}
	}
	return false
}

// Every point within the radius, in any direction, from anywhere on Earth,
// must fall in the bounding box, or Nearest would miss it.
func TestBoundingBoxContainsEveryPointWithinRadius(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	centers := []providers.Point{{Lat: 0, Lng: 0}, {Lat: 38.9, Lng: -77}, {Lat: -16.5, Lng: 179.99}, {Lat: 64.8, Lng: -179.999},
		{Lat: 89.99, Lng: 45}, {Lat: -89.999, Lng: -120}, {Lat: 71.3, Lng: -156.8}, {Lat: 21.3, Lng: -157.8}}
	for range 200 {
		centers = append(centers, providers.Point{Lat: rng.Float64()*180 - 90, Lng: rng.Float64()*360 - 180})
	}
	radii := []float64{1, 50, 500, 5000, 100_000, 2_000_000}
	for _, c := range centers {
		for _, r := range radii {
			b := BoundingBox(c, r)
			for range 64 {
				q := destination(c, rng.Float64()*2*math.Pi, r*(1-1e-6*rng.Float64()))
				if c.DistanceMeters(q) > r {
					continue
				}
				if !b.contains(q) {
					t.Fatalf("box %+v around %+v (radius %v m) misses %+v at %.3f m", b, c, r, q, c.DistanceMeters(q))
				}
			}
		}
	}
}

func TestBoundingBoxSplitsAtTheAntimeridian(t *testing.T) {
	for _, tc := range []struct {
		p     providers.Point
		parts int
	}{
		{providers.Point{Lat: 10, Lng: 179.9999}, 2},
		{providers.Point{Lat: 10, Lng: -179.9999}, 2},
		{providers.Point{Lat: 10, Lng: 0}, 1},
		{providers.Point{Lat: 89.9999, Lng: 0}, 1}, // all longitudes, one range
	} {
		b := BoundingBox(tc.p, 100)
		if len(b.Lngs) != tc.parts {
			t.Fatalf("box around %+v has longitude ranges %+v, want %d", tc.p, b.Lngs, tc.parts)
		}
		for _, r := range b.Lngs {
			if r.West < -180 || r.East > 180 || r.West > r.East {
				t.Fatalf("box around %+v has a bad range %+v", tc.p, r)
			}
		}
	}
	// A box reaching the pole spans every longitude.
	if b := BoundingBox(providers.Point{Lat: 89.9999, Lng: 0}, 100); b.Lngs[0] != (LngRange{-180, 180}) || b.North != 90 {
		t.Fatalf("polar box %+v, want all longitudes up to 90", b)
	}
}

// Every point within the radius passes the planar test when there is one
// (a place it failed would be missing from an amenities answer), and the
// test drops most of the box's corners, which is what it is for.
func TestPlanarTestPassesEveryPointWithinRadius(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	centers := []providers.Point{{Lat: 0, Lng: 0}, {Lat: 38.9, Lng: -77}, {Lat: 64.8, Lng: 20}, {Lat: -45.9, Lng: 170.5}, {Lat: 78.2, Lng: 15.6}}
	for range 100 {
		centers = append(centers, providers.Point{Lat: rng.Float64()*160 - 80, Lng: rng.Float64()*358 - 179})
	}
	tested, corners, dropped := 0, 0, 0
	for _, c := range centers {
		for _, r := range []float64{30, 500, 2000, 5000, 20_000} {
			b := BoundingBox(c, r)
			pt, ok := PlanarTest(c, r, b)
			if !ok {
				continue
			}
			tested++
			pass := func(q providers.Point) bool {
				dLat, dLng := q.Lat-pt.Lat, q.Lng-pt.Lng
				return dLat*dLat+dLng*dLng*pt.K <= pt.Limit
			}
			for range 64 {
				q := destination(c, rng.Float64()*2*math.Pi, r*(1-1e-9*rng.Float64()))
				if c.DistanceMeters(q) <= r && !pass(q) {
					t.Fatalf("around %+v (radius %v m) the planar test %+v drops %+v at %.4f m", c, r, pt, q, c.DistanceMeters(q))
				}
			}
			for range 16 {
				q := destination(c, math.Pi/4+float64(rng.IntN(4))*math.Pi/2, r*1.3) // a corner of the box
				if b.contains(q) {
					corners++
					if !pass(q) {
						dropped++
					}
				}
			}
		}
	}
	if tested < 300 {
		t.Errorf("only %d circles had a planar test", tested)
	}
	if dropped < corners*9/10 {
		t.Errorf("the planar test dropped %d of %d points in the box's corners, beyond the circle", dropped, corners)
	}
}
