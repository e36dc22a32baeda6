package store

import (
	"context"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Nearest returns the record closest to p within radiusMeters, as
// sqlshared.Nearest decides; the R*Tree narrows each search to a
// rectangle of the bounding box.
//
// It returns KindNotFound (property_not_found) when no record is within the
// radius, KindInvalid for an out-of-range point or a radius that is not
// positive.
func (db *DB) Nearest(ctx context.Context, p providers.Point, radiusMeters float64) (*providers.Property, error) {
	near, err := sqlshared.Nearest(p, radiusMeters, func(south, north, west, east float64, best *rules.Closest) error {
		rows, err := db.readers.QueryContext(ctx, queries.Nearest, south, north, west, east)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanProperty(rows)
			if err != nil {
				return err
			}
			best.Offer(c)
		}
		return rows.Err()
	})
	return near, dbErr(ctx, err)
}
