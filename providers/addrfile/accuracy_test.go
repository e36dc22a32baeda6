package addrfile

import (
	"math"
	"sort"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// reference places a number on a range the way PostGIS's tiger geocoder's
// interpolate_from_address does (the open implementation of the Census
// Bureau's range geocoding, which the Census geocoder also does on the
// same ranges): part = (number - low) / (high - low), turned when the range
// runs downwards, the point at that part of the line's length, moved 10 m
// to the side perpendicular to the segment it lies on. It is written apart
// from Interpolate, on the sphere (great-circle lengths, bearings and
// destination points), so the two agree only if both are right.
func reference(r providers.AddressRange, n int64) providers.Point {
	const earth = 6371008.8
	rad := math.Pi / 180
	lo, hi := min(r.From, r.To), max(r.From, r.To)
	width := float64(hi - lo)
	if width == 0 {
		width = 1
	}
	part := float64(n-lo) / width
	if r.From > r.To {
		part = 1 - part
	}
	if r.From == r.To {
		part = 0.5
	}
	var total float64
	for i := 1; i < len(r.Line); i++ {
		total += r.Line[i-1].DistanceMeters(r.Line[i])
	}
	want := part * total
	dest := func(p providers.Point, bearing, d float64) providers.Point {
		la, lo := p.Lat*rad, p.Lng*rad
		ad := d / earth
		la2 := math.Asin(math.Sin(la)*math.Cos(ad) + math.Cos(la)*math.Sin(ad)*math.Cos(bearing))
		lo2 := lo + math.Atan2(math.Sin(bearing)*math.Sin(ad)*math.Cos(la), math.Cos(ad)-math.Sin(la)*math.Sin(la2))
		return providers.Point{Lat: la2 / rad, Lng: lo2 / rad}
	}
	bearingOf := func(a, b providers.Point) float64 {
		la1, la2, dl := a.Lat*rad, b.Lat*rad, (b.Lng-a.Lng)*rad
		return math.Atan2(math.Sin(dl)*math.Cos(la2), math.Cos(la1)*math.Sin(la2)-math.Sin(la1)*math.Cos(la2)*math.Cos(dl))
	}
	for i := 1; i < len(r.Line); i++ {
		a, b := r.Line[i-1], r.Line[i]
		l := a.DistanceMeters(b)
		if l == 0 {
			continue
		}
		if want > l && i < len(r.Line)-1 {
			want -= l
			continue
		}
		br := bearingOf(a, b)
		p := dest(a, br, math.Min(want, l))
		side := math.Pi / 2 // right of the direction of travel
		if r.Side == 'L' {
			side = -side
		}
		return dest(p, br+side, 10)
	}
	return r.Line[0]
}

// On the real ranges of the Meagher County ADDRFEAT, Interpolate agrees
// with the reference placement of the same numbers: the share within 25 m
// and the median distance are the figures of the accuracy report.
func TestInterpolateAgreesWithRangeGeocoding(t *testing.T) {
	_, ranges, _, _ := readAll(t, []string{td("tiger", "tl_2021_30059_addrfeat.zip")}, Options{})
	var dists []float64
	for _, r := range ranges {
		lo, hi := min(r.From, r.To), max(r.From, r.To)
		for _, f := range []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 1} {
			n := lo + int64(f*float64(hi-lo))
			for !Holds(r, n) && n < hi {
				n++
			}
			if !Holds(r, n) {
				continue
			}
			p, ok := Interpolate(r, n)
			if !ok {
				t.Fatalf("range %s %d-%d could not place %d", r.Key, r.From, r.To, n)
			}
			dists = append(dists, p.DistanceMeters(reference(r, n)))
		}
	}
	if len(dists) < 300 {
		t.Fatalf("only %d placements compared", len(dists))
	}
	sort.Float64s(dists)
	within := 0
	for _, d := range dists {
		if d <= 25 {
			within++
		}
	}
	share := float64(within) / float64(len(dists))
	median := dists[len(dists)/2]
	t.Logf("%d placements on %d real ranges: %.1f%% within 25 m, median %.3f m, largest %.3f m",
		len(dists), len(ranges), 100*share, median, dists[len(dists)-1])
	if share < 0.95 {
		t.Errorf("only %.1f%% of placements within 25 m of the reference (target 95%%)", 100*share)
	}
	if median > 1 {
		t.Errorf("median distance %.2f m: the two placements differ in method, not rounding", median)
	}
}
