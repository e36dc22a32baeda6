package addrfile

import (
	"math"

	"github.com/propertyd/propertyd/providers"
)

// SideOffset is how far, in metres, Interpolate moves a point off the
// street's centre line to the side of the range, as PostGIS's tiger
// geocoder does by default (interpolate_from_address, in_offset_m 10).
// A point on the centre line is on no side: census blocks and tracts are
// bounded by street centre lines, so the point the Census geocoder
// assigns to the block of the address's side must lie on that side, and
// a record's tract and flood zone are looked up at it.
const SideOffset = 10.0

// metresPerDegree is the length of a degree of latitude (and of longitude
// at the equator) on a sphere of the Earth's mean radius.
const metresPerDegree = 6371008.8 * math.Pi / 180

// Holds reports whether the range r holds the house number (a value of
// address.HouseNumber): between From and To, either way round, ends
// included, and of the range's parity ('O' odd, 'E' even, 'B' or any other
// byte both). A hyphenated number's parity is its building part's (see
// address.HouseNumber), so "117-11" is odd. Holds is pure and safe for
// concurrent use.
func Holds(r providers.AddressRange, number int64) bool {
	lo, hi := r.From, r.To
	if lo > hi {
		lo, hi = hi, lo
	}
	if number < lo || number > hi {
		return false
	}
	switch r.Parity {
	case 'O':
		return number%2 == 1
	case 'E':
		return number%2 == 0
	}
	return true
}

// Interpolate places a house number the range holds (Holds) along the
// range's line: at the number's proportion between From (the line's first
// point) and To (its last), by length along the line, then SideOffset
// metres to the range's side, perpendicular to the part of the line it
// falls on. A range of one number places it at the middle of the line.
// This is how the Census geocoder and PostGIS's tiger geocoder place an
// address on a TIGER/Line range: number 101 of 101-199 at the first point,
// 150 half way along.
//
// Lengths are measured on a local flat approximation of the sphere (each
// segment scaled by the cosine of its mean latitude), which over a street
// edge (tens to hundreds of metres) differs from the great-circle length
// by far less than a metre. ok is false when the range does not hold the
// number or the line has fewer than two points or a coordinate that is
// not finite. Interpolate is pure and safe for concurrent use.
func Interpolate(r providers.AddressRange, number int64) (providers.Point, bool) {
	if !Holds(r, number) || len(r.Line) < 2 {
		return providers.Point{}, false
	}
	for _, p := range r.Line {
		if !finite(p.Lat) || !finite(p.Lng) {
			return providers.Point{}, false
		}
	}
	f := 0.5
	if r.To != r.From {
		f = float64(number-r.From) / float64(r.To-r.From)
	}
	total := 0.0
	for i := 1; i < len(r.Line); i++ {
		total += segmentLength(r.Line[i-1], r.Line[i])
	}
	if total == 0 {
		return r.Line[0], true
	}
	want := f * total
	walked := 0.0
	for i := 1; i < len(r.Line); i++ {
		a, b := r.Line[i-1], r.Line[i]
		l := segmentLength(a, b)
		if l == 0 {
			continue
		}
		if walked+l < want && i < len(r.Line)-1 {
			walked += l
			continue
		}
		t := math.Min(1, math.Max(0, (want-walked)/l))
		p := providers.Point{Lat: a.Lat + (b.Lat-a.Lat)*t, Lng: a.Lng + (b.Lng-a.Lng)*t}
		return offset(p, a, b, l, r.Side), true
	}
	return r.Line[0], true // unreachable: total > 0 means a segment has length
}

// offset moves p, on the segment a-b of length l metres, SideOffset metres
// to side ('L' left or 'R' right, walking from a to b); any other side
// leaves it on the line.
func offset(p, a, b providers.Point, l float64, side byte) providers.Point {
	var sign float64
	switch side {
	case 'L':
		sign = 1
	case 'R':
		sign = -1
	default:
		return p
	}
	cos := math.Cos((a.Lat + b.Lat) / 2 * math.Pi / 180)
	// Unit vector along the segment in metres (east, north); its left
	// normal is (-north, east).
	ux := (b.Lng - a.Lng) * cos * metresPerDegree / l
	uy := (b.Lat - a.Lat) * metresPerDegree / l
	dx, dy := -uy*SideOffset*sign, ux*SideOffset*sign
	pc := math.Cos(p.Lat * math.Pi / 180)
	return providers.Point{Lat: p.Lat + dy/metresPerDegree, Lng: p.Lng + dx/(metresPerDegree*pc)}
}

// segmentLength is the length of a-b in metres on the local flat
// approximation Interpolate measures with.
func segmentLength(a, b providers.Point) float64 {
	cos := math.Cos((a.Lat + b.Lat) / 2 * math.Pi / 180)
	dx := (b.Lng - a.Lng) * cos * metresPerDegree
	dy := (b.Lat - a.Lat) * metresPerDegree
	return math.Hypot(dx, dy)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
