package osmsql

import (
	"context"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// diamond is a District-of-Columbia-like square turned 45 degrees, its
// corners 0.1 degree from its center at 38.9, -77.0 (lng, lat), with a
// square hole of 0.01 degree around 38.93, -77.0. Its edges are
// diagonals: a circle's bounding rectangle reaches past one while the
// circle itself is inside.
var diamond = orb.MultiPolygon{{
	{{-77.1, 38.9}, {-77.0, 38.8}, {-76.9, 38.9}, {-77.0, 39.0}, {-77.1, 38.9}},
	{{-77.005, 38.925}, {-76.995, 38.925}, {-76.995, 38.935}, {-77.005, 38.935}, {-77.005, 38.925}},
}}

func TestCircleInsideAPolygon(t *testing.T) {
	for _, tc := range []struct {
		name   string
		center providers.Point
		radius float64
		inside bool
	}{
		{"at the center, 2 km", providers.Point{Lat: 38.88, Lng: -77.0}, 2000, true},
		// 0.05 degree of latitude above the south corner, about 3,420 m
		// from the two edges that meet there (a longitude degree is 0.78
		// of a latitude degree here): inside at 3 km, though its
		// rectangle's corners are past the edges; not at 3.5 km.
		{"near diagonal edges, inside", providers.Point{Lat: 38.85, Lng: -77.0}, 3000, true},
		{"near diagonal edges, crossing them", providers.Point{Lat: 38.85, Lng: -77.0}, 3500, false},
		{"around the hole", providers.Point{Lat: 38.93, Lng: -77.0}, 2000, false},
		{"beside the hole, clear of it", providers.Point{Lat: 38.90, Lng: -77.0}, 2000, true},
		{"beside the hole, reaching it", providers.Point{Lat: 38.91, Lng: -77.0}, 2000, false},
		{"in the hole", providers.Point{Lat: 38.93, Lng: -77.0}, 100, false},
		{"outside, in the box", providers.Point{Lat: 38.81, Lng: -77.09}, 100, false},
		{"on a corner", providers.Point{Lat: 38.8, Lng: -77.0}, 10, false},
	} {
		box := rules.BoundingBox(tc.center, tc.radius)
		got := circleInside(diamond, providers.Circle{Center: tc.center, RadiusMeters: tc.radius},
			box.South, box.North, box.Lngs[0].West, box.Lngs[0].East)
		if got != tc.inside {
			t.Errorf("%s: inside = %v, want %v", tc.name, got, tc.inside)
		}
	}
}

// The plane circleInside measures in never says a circle is inside when a
// point of it, by great-circle distance, lies past an edge: circles of
// many radii around points near the diamond's edges, checked against
// points sampled on their rims.
func TestCircleInsideNeverClaimsACircleThatCrosses(t *testing.T) {
	inside := 0
	for _, r := range []float64{100, 800, 2000, 5000, 20000} {
		for i := range 200 {
			center := providers.Point{Lat: 38.80 + 0.001*float64(i), Lng: -77.0 - 0.0003*float64(i)}
			box := rules.BoundingBox(center, r)
			if !circleInside(diamond, providers.Circle{Center: center, RadiusMeters: r}, box.South, box.North, box.Lngs[0].West, box.Lngs[0].East) {
				continue
			}
			inside++
			for k := range 360 {
				p := destination(center, r*0.9999, float64(k))
				if !pointInside(diamond, p) {
					t.Fatalf("circle of %.0f m around %+v said inside, but its rim point %+v (bearing %d) is not", r, center, p, k)
				}
			}
		}
	}
	// A circleInside that never said inside would pass the loop above.
	if inside < 100 {
		t.Fatalf("only %d of 1,000 circles said inside: the rims were hardly checked", inside)
	}
}

func TestABoundaryReadsBackFromItsWKB(t *testing.T) {
	raw, err := wkb.Marshal(diamond)
	if err != nil {
		t.Fatal(err)
	}
	mp, ok := readBoundary(raw)
	if !ok || !pointInside(mp, providers.Point{Lat: 38.9, Lng: -77.0}) || pointInside(mp, providers.Point{Lat: 38.93, Lng: -77.0}) {
		t.Errorf("the diamond read back as %v, %v", mp, ok)
	}
	// Read again for the same generation, it comes from what was
	// decoded, not from the database (which this store has none of).
	e := Extracts{Bounds: &Boundaries{}}
	x := providers.OSMExtract{Name: "dc", Fingerprint: "f1", Generation: 3}
	e.Bounds.put(x.Generation, mp)
	if again, err := e.boundary(context.Background(), x); err != nil || len(again) != len(mp) {
		t.Errorf("the diamond read again: %v, %v", again, err)
	}
	if _, ok := readBoundary([]byte("no polygon")); ok {
		t.Error("bytes that are no WKB read as a boundary")
	}
	if _, ok := readBoundary(wkb.MustMarshal(orb.Point{1, 2})); ok {
		t.Error("a point read as a boundary")
	}
}

// destination is the point d metres from p at bearing degrees, on the
// sphere providers.Point.DistanceMeters measures on.
func destination(p providers.Point, d, bearing float64) providers.Point {
	const r = 6371008.8
	rad := math.Pi / 180
	la1, lo1, th, dl := p.Lat*rad, p.Lng*rad, bearing*rad, d/r
	la2 := math.Asin(math.Sin(la1)*math.Cos(dl) + math.Cos(la1)*math.Sin(dl)*math.Cos(th))
	lo2 := lo1 + math.Atan2(math.Sin(th)*math.Sin(dl)*math.Cos(la1), math.Cos(dl)-math.Sin(la1)*math.Sin(la2))
	return providers.Point{Lat: la2 / rad, Lng: lo2 / rad}
}
