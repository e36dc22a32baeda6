package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// scanProperty reads sqlshared.PropertyColumns.
func scanProperty(row sqlshared.Row) (*providers.Property, error) {
	var p providers.Property
	err := row.Scan(&p.ID, &p.StreetAddress, &p.Unit, &p.City, &p.State, &p.ZipCode, &p.County,
		&p.FIPSCode, &p.CensusTract, &p.Latitude, &p.Longitude, &p.PropertyType, &p.Bedrooms,
		&p.Bathrooms, &p.LivingAreaSqft, &p.LotSqft, &p.YearBuilt, &p.Stories, &p.Units, &p.FactsOrigin,
		&p.Match, &p.Source, &p.CreatedAt, &p.UpdatedAt)
	if err != nil {
		return nil, err
	}
	// The driver returns times in the local zone; SQLite's come back in UTC.
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return &p, nil
}

// Property returns the record with id, or KindNotFound (property_not_found).
func (db *DB) Property(ctx context.Context, id int64) (*providers.Property, error) {
	p, err := scanProperty(db.pool.QueryRow(ctx, queries.PropertyByID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, rules.ErrPropertyNotFound()
	}
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	return p, nil
}

// PropertyByKey returns the record the lookup key resolves to, or
// KindNotFound (property_not_found).
func (db *DB) PropertyByKey(ctx context.Context, key string) (*providers.Property, error) {
	p, err := scanProperty(db.pool.QueryRow(ctx, queries.PropertyByKey, key))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, rules.ErrKeyNotFound()
	}
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	return p, nil
}

// Save creates np.Property unless a record with the same canonical address
// and unit exists, and makes every key in np.Keys resolve to the resulting
// record (a key that pointed elsewhere is moved: the newest geocoding wins).
// All of it happens in one transaction. It returns the record as stored and
// whether this call created it. np.Property's ID, CreatedAt and UpdatedAt
// are ignored. A record with an empty Canonical (reverse geocoding) is
// always created.
//
// The UNIQUE(canonical, unit) constraint decides between concurrent Saves of
// the same address, from this instance or another one: the insert does
// nothing on conflict (waiting for a racing transaction to commit first) and
// the existing row is read back, so all of them return the same record and
// exactly one reports created. Keys are written in sorted order, so two
// Saves sharing keys lock them in the same order; a deadlock the server
// breaks anyway is retried.
//
// It returns KindInvalid for coordinates out of range, KindUnavailable when
// the database cannot be reached, KindInternal for another database
// failure, KindCanceled or KindTimeout from ctx.
func (db *DB) Save(ctx context.Context, np providers.NewProperty) (*providers.Property, bool, error) {
	p := np.Property
	if err := rules.CheckCoordinates(p.Latitude, p.Longitude); err != nil {
		return nil, false, err
	}
	var canonical *string
	if np.Canonical != "" {
		canonical = &np.Canonical
	}
	keys := make([]string, 0, len(np.Keys))
	for _, k := range np.Keys {
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)

	var (
		saved   *providers.Property
		created bool
	)
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		now := db.stamp()
		var id int64
		err := tx.QueryRow(ctx, queries.InsertProperty,
			p.StreetAddress, p.Unit, p.City, p.State, p.ZipCode, p.County, p.FIPSCode, p.CensusTract,
			p.Latitude, p.Longitude, nil, nil, canonical, p.Source, now, now,
			(providers.FactsKeyOf(np.Canonical, p.ZipCode, p.Unit)), factsql.NullIfEmpty(p.Match)).Scan(&id)
		created = err == nil
		switch {
		case err == nil:
		case errors.Is(err, pgx.ErrNoRows) && canonical != nil:
			// The address exists; the constraint said so, after any racing
			// insert committed. This statement's snapshot sees that row.
			if err := tx.QueryRow(ctx, queries.PropertyIDAt, np.Canonical, p.Unit).Scan(&id); err != nil {
				return err
			}
		default:
			return err
		}
		if len(keys) > 0 {
			if _, err := tx.Exec(ctx, queries.SaveKeys, keys, id); err != nil {
				return err
			}
		}
		if created {
			// Facts loaded before the record existed join it now.
			if _, err := db.Store.Facts.Merge(ctx, factTx{tx}, id); err != nil {
				return err
			}
		}
		saved, err = scanProperty(tx.QueryRow(ctx, queries.PropertyByID, id))
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return saved, created, nil
}

// utc returns t in UTC, as the SQLite engine returns times.
func utc(t time.Time) time.Time { return t.UTC() }

// Nearest returns the record closest to p within radiusMeters, as
// sqlshared.Queries.NearestRecord decides, the same as on SQLite; the GiST index narrows
// each search to a rectangle of the bounding box.
//
// It returns KindNotFound (property_not_found) when no record is within the
// radius, KindInvalid for an out-of-range point or a radius that is not
// positive.
func (db *DB) Nearest(ctx context.Context, p providers.Point, radiusMeters float64) (*providers.Property, error) {
	near, err := queries.NearestRecord(ctx, factDB{db}, p, radiusMeters, scanProperty)
	return near, dbErr(ctx, err)
}
