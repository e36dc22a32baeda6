package store

import (
	"context"
	"math"

	"github.com/propertyd/propertyd/providers"
)

// earthRadius matches the mean radius providers.Point.DistanceMeters uses.
const earthRadius = 6371008.8

// lngRange is a closed interval of longitudes, west to east.
type lngRange struct{ west, east float64 }

// box is a search area in degrees: one latitude interval and one or two
// longitude intervals (two when the area crosses the antimeridian).
type box struct {
	south, north float64
	lngs         []lngRange
}

// boundingBox returns an area that contains every point within radius metres
// of p. It is slightly generous (the exact distance decides afterwards): the
// longitude half-width is the largest one over the box's latitudes, an area
// reaching a pole spans all longitudes, and one crossing ±180° is split in
// two.
func boundingBox(p providers.Point, radius float64) box {
	ang := radius / earthRadius // angular radius in radians
	dLat := ang*180/math.Pi*1.0001 + 1e-9
	b := box{south: math.Max(-90, p.Lat-dLat), north: math.Min(90, p.Lat+dLat)}
	all := []lngRange{{-180, 180}}
	maxAbs := math.Max(math.Abs(b.south), math.Abs(b.north))
	c := math.Cos(maxAbs * math.Pi / 180)
	if ang >= math.Pi/2 || b.north >= 90 || b.south <= -90 || c <= 1e-12 {
		b.lngs = all
		return b
	}
	s := math.Sin(ang) / c
	if s >= 1 {
		b.lngs = all
		return b
	}
	dLng := math.Asin(s)*180/math.Pi*1.0001 + 1e-9
	if dLng >= 180 {
		b.lngs = all
		return b
	}
	west, east := p.Lng-dLng, p.Lng+dLng
	switch {
	case west < -180:
		b.lngs = []lngRange{{west + 360, 180}, {-180, east}}
	case east > 180:
		b.lngs = []lngRange{{west, 180}, {-180, east - 360}}
	default:
		b.lngs = []lngRange{{west, east}}
	}
	return b
}

// nearestQuery selects the properties whose R*Tree box overlaps one
// latitude/longitude rectangle.
const nearestQuery = "SELECT " + propertyColumns + ` FROM properties_rtree r
	JOIN properties p ON p.id = r.id
	WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lng >= ? AND r.min_lng <= ?`

// Nearest returns the record closest to p within radiusMeters (great-circle
// distance, as providers.Point.DistanceMeters measures it; the lower id
// wins a tie). The R*Tree narrows the search to a bounding box, which is
// split at the antimeridian and spans all longitudes near a pole, so points
// near ±180° or the poles are found too.
//
// It returns KindNotFound (property_not_found) when no record is within the
// radius, KindInvalid for an out-of-range point or a radius that is not
// positive.
func (db *DB) Nearest(ctx context.Context, p providers.Point, radiusMeters float64) (*providers.Property, error) {
	if err := checkCoordinates(p.Lat, p.Lng); err != nil {
		return nil, err
	}
	if math.IsNaN(radiusMeters) || radiusMeters <= 0 {
		return nil, providers.Invalid("radius", "must be a positive number of metres")
	}
	b := boundingBox(p, radiusMeters)
	var (
		best     *providers.Property
		bestDist float64
	)
	for _, lr := range b.lngs {
		rows, err := db.readers.QueryContext(ctx, nearestQuery, b.south, b.north, lr.west, lr.east)
		if err != nil {
			return nil, dbErr(ctx, err)
		}
		for rows.Next() {
			c, err := scanProperty(rows)
			if err != nil {
				rows.Close()
				return nil, dbErr(ctx, err)
			}
			d := p.DistanceMeters(c.Point())
			if d > radiusMeters {
				continue
			}
			if best == nil || d < bestDist || (d == bestDist && c.ID < best.ID) {
				best, bestDist = c, d
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, dbErr(ctx, err)
		}
	}
	if best == nil {
		return nil, providers.NotFound("property_not_found", "no property near that point")
	}
	return best, nil
}
