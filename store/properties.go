package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// scanProperty reads sqlshared.PropertyColumns.
func scanProperty(s sqlshared.Row) (*providers.Property, error) {
	var (
		p                providers.Property
		ptype            sql.NullString
		beds             sql.NullInt64
		created, updated string
	)
	err := s.Scan(&p.ID, &p.StreetAddress, &p.Unit, &p.City, &p.State, &p.ZipCode, &p.County,
		&p.FIPSCode, &p.CensusTract, &p.Latitude, &p.Longitude, &ptype, &beds,
		&p.Bathrooms, &p.LivingAreaSqft, &p.LotSqft, &p.YearBuilt, &p.Stories, &p.Units, &p.FactsOrigin,
		&p.Match, &p.Source, &created, &updated)
	if err != nil {
		return nil, err
	}
	if ptype.Valid {
		p.PropertyType = &ptype.String
	}
	if beds.Valid {
		b := int(beds.Int64)
		p.Bedrooms = &b
	}
	if p.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if p.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &p, nil
}

// Property returns the record with id, or KindNotFound (property_not_found).
func (db *DB) Property(ctx context.Context, id int64) (*providers.Property, error) {
	p, err := scanProperty(db.readers.QueryRowContext(ctx, queries.PropertyByID, id))
	if errors.Is(err, sql.ErrNoRows) {
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
	p, err := scanProperty(db.readers.QueryRowContext(ctx, queries.PropertyByKey, key))
	if errors.Is(err, sql.ErrNoRows) {
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
// the same address, from this process or another one on the same file: the
// insert does nothing on conflict and the existing row is read back, so all
// of them return the same record and exactly one reports created.
//
// It returns KindInvalid for coordinates out of range, KindInternal for a
// database failure, KindCanceled or KindTimeout from ctx.
func (db *DB) Save(ctx context.Context, np providers.NewProperty) (_ *providers.Property, created bool, err error) {
	p := np.Property
	if err := rules.CheckCoordinates(p.Latitude, p.Longitude); err != nil {
		return nil, false, err
	}
	conn, done, err := db.writeConn(ctx)
	if err != nil {
		return nil, false, err
	}
	defer done()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, dbErr(ctx, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()

	now := formatTime(db.stamp())
	var canonical sql.NullString
	if np.Canonical != "" {
		canonical = sql.NullString{String: np.Canonical, Valid: true}
	}
	var id int64
	err = tx.QueryRowContext(ctx, queries.InsertProperty,
		p.StreetAddress, p.Unit, p.City, p.State, p.ZipCode, p.County, p.FIPSCode, p.CensusTract,
		p.Latitude, p.Longitude, nil, nil, canonical,
		p.Source, now, now, (providers.FactsKeyOf(np.Canonical, p.ZipCode, p.Unit)), factsql.NullIfEmpty(p.Match)).Scan(&id)
	switch {
	case err == nil:
		created = true
	case errors.Is(err, sql.ErrNoRows) && canonical.Valid:
		// The address exists; the constraint said so. Read its id in the
		// same transaction, under the write lock, so it cannot vanish.
		err = tx.QueryRowContext(ctx, queries.PropertyIDAt, np.Canonical, p.Unit).Scan(&id)
		if err != nil {
			return nil, false, dbErr(ctx, err)
		}
	default:
		return nil, false, dbErr(ctx, err)
	}

	if len(np.Keys) > 0 {
		stmt, err := tx.PrepareContext(ctx, queries.SaveKeys)
		if err != nil {
			return nil, false, dbErr(ctx, err)
		}
		defer stmt.Close()
		for _, k := range np.Keys {
			if k == "" {
				continue
			}
			if _, err := stmt.ExecContext(ctx, k, id); err != nil {
				return nil, false, dbErr(ctx, err)
			}
		}
	}

	if created {
		// Facts loaded before the record existed join it now.
		if _, err := db.Store.Facts.Merge(ctx, factTx{tx: tx}, id); err != nil {
			return nil, false, dbErr(ctx, err)
		}
	}

	saved, err := scanProperty(tx.QueryRowContext(ctx, queries.PropertyByID, id))
	if err != nil {
		return nil, false, dbErr(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, false, dbErr(ctx, err)
	}
	return saved, created, nil
}

func nullString(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

func nullInt(n *int) sql.NullInt64 {
	if n == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*n), Valid: true}
}

// Nearest returns the record closest to p within radiusMeters, as
// sqlshared.Queries.NearestRecord decides; the R*Tree narrows each search to a
// rectangle of the bounding box.
//
// It returns KindNotFound (property_not_found) when no record is within the
// radius, KindInvalid for an out-of-range point or a radius that is not
// positive.
func (db *DB) Nearest(ctx context.Context, p providers.Point, radiusMeters float64) (*providers.Property, error) {
	near, err := queries.NearestRecord(ctx, factDB{db}, p, radiusMeters, scanProperty)
	return near, dbErr(ctx, err)
}
