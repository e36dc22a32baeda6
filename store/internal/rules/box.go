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
