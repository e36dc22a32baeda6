package store

import (
	"context"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

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
	if err := rules.CheckCoordinates(p.Lat, p.Lng); err != nil {
		return nil, err
	}
	if err := rules.CheckRadius(radiusMeters); err != nil {
		return nil, err
	}
	b := rules.BoundingBox(p, radiusMeters)
	best := rules.Closest{From: p, Radius: radiusMeters}
	for _, lr := range b.Lngs {
		rows, err := db.readers.QueryContext(ctx, nearestQuery, b.South, b.North, lr.West, lr.East)
		if err != nil {
			return nil, dbErr(ctx, err)
		}
		for rows.Next() {
			c, err := scanProperty(rows)
			if err != nil {
				rows.Close()
				return nil, dbErr(ctx, err)
			}
			best.Offer(c)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, dbErr(ctx, err)
		}
	}
	return best.Result()
}
