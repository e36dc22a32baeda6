package rules

import (
	"math"

	"github.com/propertyd/propertyd/providers"
)

// earthRadius matches the mean radius providers.Point.DistanceMeters uses.
const earthRadius = 6371008.8

// LngRange is a closed interval of longitudes, west to east.
type LngRange struct{ West, East float64 }

// Box is a search area in degrees: one latitude interval and one or two
// longitude intervals (two when the area crosses the antimeridian).
type Box struct {
	South, North float64
	Lngs         []LngRange
}

// BoundingBox returns an area that contains every point within radius metres
// of p. It is slightly generous (the exact distance decides afterwards): the
// longitude half-width is the largest one over the box's latitudes, an area
// reaching a pole spans all longitudes, and one crossing ±180° is split in
// two.
func BoundingBox(p providers.Point, radius float64) Box {
	ang := radius / earthRadius // angular radius in radians
	dLat := ang*180/math.Pi*1.0001 + 1e-9
	b := Box{South: math.Max(-90, p.Lat-dLat), North: math.Min(90, p.Lat+dLat)}
	all := []LngRange{{-180, 180}}
	maxAbs := math.Max(math.Abs(b.South), math.Abs(b.North))
	c := math.Cos(maxAbs * math.Pi / 180)
	if ang >= math.Pi/2 || b.North >= 90 || b.South <= -90 || c <= 1e-12 {
		b.Lngs = all
		return b
	}
	s := math.Sin(ang) / c
	if s >= 1 {
		b.Lngs = all
		return b
	}
	dLng := math.Asin(s)*180/math.Pi*1.0001 + 1e-9
	if dLng >= 180 {
		b.Lngs = all
		return b
	}
	west, east := p.Lng-dLng, p.Lng+dLng
	switch {
	case west < -180:
		b.Lngs = []LngRange{{west + 360, 180}, {-180, east}}
	case east > 180:
		b.Lngs = []LngRange{{west, 180}, {-180, east - 360}}
	default:
		b.Lngs = []LngRange{{west, east}}
	}
	return b
}

// Closest keeps the best candidate of a Nearest search: the record closest
// to From within Radius (great-circle distance, as
// providers.Point.DistanceMeters measures it), the lower id winning a tie.
// The zero value is not usable; set From and Radius. Not safe for
// concurrent use.
type Closest struct {
	From   providers.Point
	Radius float64

	best *providers.Property
	dist float64
}

// Offer considers candidate c, which may be outside the radius (the box is
// larger than the circle).
func (k *Closest) Offer(c *providers.Property) {
	d := k.From.DistanceMeters(c.Point())
	if d > k.Radius {
		return
	}
	if k.best == nil || d < k.dist || (d == k.dist && c.ID < k.best.ID) {
		k.best, k.dist = c, d
	}
}

// Result returns the closest candidate, or KindNotFound (property_not_found)
// when none was within the radius.
func (k *Closest) Result() (*providers.Property, error) {
	if k.best == nil {
		return nil, ErrNoneNear()
	}
	return k.best, nil
}

// Planar is a test every point of a circle passes, cheap enough to run on
// every index entry of a box in SQL: (lat - Lat)² + K·(lng - Lng)² ≤ Limit,
// in degrees. It is a superset of the circle (a point passing it may lie a
// hair outside), so the caller still checks each point it keeps by its
// great-circle distance; it drops the corners of the box, a fifth of it.
type Planar struct{ Lat, Lng, K, Limit float64 }

// PlanarTest returns the Planar test of the circle of radius metres around
// p, whose bounding box is b, or ok=false when the circle is too large or
// too near a pole for a flat test to hold it (the box alone then serves).
//
// Within the box both latitudes are at most maxAbs from the equator, so
// the great-circle distance d satisfies, by the haversine formula,
// sin²(d/2R) ≥ sin²(Δφ/2) + cos²(maxAbs)·sin²(Δλ/2), and for angles under
// 0.02 rad sin(x) ≥ x(1 - x²/6) loses less than one part in 10⁴: a point
// within the circle passes the test with Limit padded by 1%.
func PlanarTest(p providers.Point, radius float64, b Box) (Planar, bool) {
	if len(b.Lngs) != 1 {
		return Planar{}, false
	}
	dLng := math.Max(p.Lng-b.Lngs[0].West, b.Lngs[0].East-p.Lng)
	dLat := math.Max(p.Lat-b.South, b.North-p.Lat)
	if math.Max(dLng, dLat)*math.Pi/180 > 0.02 {
		return Planar{}, false
	}
	maxAbs := math.Max(math.Abs(b.South), math.Abs(b.North))
	c := math.Cos(maxAbs * math.Pi / 180)
	deg := radius / earthRadius * 180 / math.Pi
	return Planar{Lat: p.Lat, Lng: p.Lng, K: c * c, Limit: deg * deg * 1.01}, true
}
