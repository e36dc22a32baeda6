package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Counts returns how many records and section values the database holds,
// for the progress of `propertyd copy`.
func (db *DB) Counts(ctx context.Context) (records, sections int, err error) {
	err = db.pool.QueryRow(ctx, queries.Counts).Scan(&records, &sections)
	return records, sections, dbErr(ctx, err)
}

// ListRecords returns up to limit records with ids above afterID, in id
// order, each with its canonical address and its keys (sorted): everything
// CopyRecords needs to recreate it elsewhere.
func (db *DB) ListRecords(ctx context.Context, afterID int64, limit int) ([]providers.NewProperty, error) {
	var out []providers.NewProperty
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		out, err = queries.ListRecordsIn(ctx, factTx{tx}, afterID, limit, scanProperty)
		return err
	})
	return out, dbErr(ctx, err)
}

// CopyRecords writes recs as they are, ids, times and canonical addresses
// included, in one transaction: a record whose id is already present, or
// whose canonical address and unit another record holds, is left alone, and
// each key is added unless it already resolves or the record at its id is
// not the copied one. So copying the same records twice changes nothing. It returns how many records and keys it added, and
// moves the id sequence past the largest id, so new records never reuse a
// copied one.
func (db *DB) CopyRecords(ctx context.Context, recs []providers.NewProperty) (records, keys int, err error) {
	for i := range recs {
		if err := rules.CheckCoordinates(recs[i].Property.Latitude, recs[i].Property.Longitude); err != nil {
			return 0, 0, err
		}
	}
	err = db.inTx(ctx, func(tx pgx.Tx) error {
		records, keys = 0, 0
		for _, r := range recs {
			p := r.Property
			var canonical *string
			if r.Canonical != "" {
				canonical = &r.Canonical
			}
			tag, err := tx.Exec(ctx, queries.CopyProperty,
				p.ID, p.StreetAddress, p.Unit, p.City, p.State, p.ZipCode, p.County, p.FIPSCode, p.CensusTract,
				p.Latitude, p.Longitude, p.PropertyType, p.Bedrooms, canonical, p.Source,
				rules.Stamp(p.CreatedAt), rules.Stamp(p.UpdatedAt), (providers.FactsKeyOf(r.Canonical, p.ZipCode, p.Unit)),
				p.Bathrooms, p.LivingAreaSqft, p.LotSqft, p.YearBuilt, p.Stories, p.Units, factsql.NullIfEmpty(p.FactsOrigin),
				factsql.NullIfEmpty(p.Match))
			if err != nil {
				return err
			}
			records += int(tag.RowsAffected())
			if tag.RowsAffected() > 0 {
				if err := db.Store.Facts.CopyImport(ctx, factTx{tx}, &r.Property); err != nil {
					return err
				}
			}
			if len(r.Keys) == 0 {
				continue
			}
			// Only onto the copied record itself: another record may hold
			// its id in a destination that was written to before.
			tag, err = tx.Exec(ctx, queries.CopyKeys, r.Keys, p.ID, canonical, p.Unit, rules.Stamp(p.CreatedAt))
			if err != nil {
				return err
			}
			keys += int(tag.RowsAffected())
		}
		_, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('properties', 'id'), m)
			FROM (SELECT MAX(id) AS m FROM properties) AS last WHERE m IS NOT NULL`)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return records, keys, nil
}

// ListSections returns up to limit section values after (section, key), in
// that order.
func (db *DB) ListSections(ctx context.Context, afterSection, afterKey string, limit int) ([]providers.SectionRecord, error) {
	rows, err := db.pool.Query(ctx, queries.ListSections, afterSection, afterKey, limit)
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	defer rows.Close()
	var out []providers.SectionRecord
	for rows.Next() {
		var r providers.SectionRecord
		if err := rows.Scan(&r.Section, &r.Key, &r.Data, &r.Source, &r.Vintage, &r.FetchedAt, &r.ExpiresAt, &r.Missing); err != nil {
			return nil, dbErr(ctx, err)
		}
		r.FetchedAt, r.ExpiresAt = utc(r.FetchedAt), utc(r.ExpiresAt)
		out = append(out, r)
	}
	return out, dbErr(ctx, rows.Err())
}

// CopySections writes recs in one transaction: a value is added when its
// (section, key) is absent and replaces one fetched earlier, so copying the
// same values twice changes nothing and never overwrites a fresher value.
// It returns how many it wrote.
func (db *DB) CopySections(ctx context.Context, recs []providers.SectionRecord) (n int, err error) {
	for _, r := range recs {
		if err := rules.CheckSection(r); err != nil {
			return 0, err
		}
	}
	err = db.inTx(ctx, func(tx pgx.Tx) error {
		n = 0
		for _, r := range recs {
			data := r.Data
			if data == nil {
				data = []byte{}
			}
			tag, err := tx.Exec(ctx, queries.CopySection, r.Section, r.Key, data, r.Source, r.Vintage, rules.Stamp(r.FetchedAt), rules.Stamp(r.ExpiresAt), r.Missing)
			if err != nil {
				return err
			}
			n += int(tag.RowsAffected())
		}
		return nil
	})
	return n, err
}
