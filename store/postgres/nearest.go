package postgres

import (
	"context"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// nearestQuery selects the properties whose point lies in one
// latitude/longitude rectangle, through the GiST index on
// point(longitude, latitude). box(point, point) takes two opposite
// corners; <@ includes the edges.
const nearestQuery = "SELECT " + propertyColumns + ` FROM properties p
	WHERE point(p.longitude, p.latitude) <@ box(point($1, $2), point($3, $4))`

// Nearest returns the record closest to p within radiusMeters (great-circle
// distance, as providers.Point.DistanceMeters measures it; the lower id
// wins a tie). The GiST index narrows the search to a bounding box, which
// is split at the antimeridian and spans all longitudes near a pole, so
// points near ±180° or the poles are found too; the exact distance decides,
// as on SQLite.
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
		rows, err := db.pool.Query(ctx, nearestQuery, lr.West, b.South, lr.East, b.North)
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
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, dbErr(ctx, err)
		}
	}
	return best.Result()
}
