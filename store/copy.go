package store

import (
	"context"
	"database/sql"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/factsql"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// Counts returns how many records and section values the database holds,
// for the progress of `propertyd copy`.
func (db *DB) Counts(ctx context.Context) (records, sections int, err error) {
	err = db.readers.QueryRowContext(ctx, queries.Counts).Scan(&records, &sections)
	return records, sections, dbErr(ctx, err)
}

// ListRecords returns up to limit records with ids above afterID, in id
// order, each with its canonical address and its keys (sorted): everything
// CopyRecords needs to recreate it elsewhere.
func (db *DB) ListRecords(ctx context.Context, afterID int64, limit int) ([]providers.NewProperty, error) {
	tx, err := db.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	defer tx.Rollback()
	out, err := queries.ListRecordsIn(ctx, factTx{tx: tx}, afterID, limit, scanProperty)
	return out, dbErr(ctx, err)
}

// CopyRecords writes recs as they are, ids, times and canonical addresses
// included, in one transaction: a record whose id is already present, or
// whose canonical address and unit another record holds, is left alone, and
// each key is added unless it already resolves or the record at its id is
// not the copied one. So copying the same records twice changes nothing. It
// returns how many records and keys it added. AUTOINCREMENT moves past the copied ids by itself, so new records never
// reuse them.
func (db *DB) CopyRecords(ctx context.Context, recs []providers.NewProperty) (records, keys int, err error) {
	for i := range recs {
		if err := rules.CheckCoordinates(recs[i].Property.Latitude, recs[i].Property.Longitude); err != nil {
			return 0, 0, err
		}
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, dbErr(ctx, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, r := range recs {
		p := r.Property
		var canonical sql.NullString
		if r.Canonical != "" {
			canonical = sql.NullString{String: r.Canonical, Valid: true}
		}
		res, err := tx.ExecContext(ctx, queries.CopyProperty,
			p.ID, p.StreetAddress, p.Unit, p.City, p.State, p.ZipCode, p.County, p.FIPSCode, p.CensusTract,
			p.Latitude, p.Longitude, nullString(p.PropertyType), nullInt(p.Bedrooms), canonical,
			p.Source, formatTime(p.CreatedAt), formatTime(p.UpdatedAt), (providers.FactsKeyOf(r.Canonical, p.ZipCode, p.Unit)),
			p.Bathrooms, p.LivingAreaSqft, p.LotSqft, p.YearBuilt, p.Stories, p.Units, factsql.NullIfEmpty(p.FactsOrigin),
			factsql.NullIfEmpty(p.Match))
		if err != nil {
			return 0, 0, dbErr(ctx, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, 0, dbErr(ctx, err)
		}
		records += int(n)
		if n > 0 {
			if err := db.Store.Facts.CopyImport(ctx, factTx{tx: tx}, &r.Property); err != nil {
				return 0, 0, dbErr(ctx, err)
			}
		}
		for _, k := range r.Keys {
			// Only onto the copied record itself: another record may hold
			// its id in a destination that was written to before.
			res, err := tx.ExecContext(ctx, queries.CopyKeys, k, p.ID, canonical, p.Unit, formatTime(p.CreatedAt))
			if err != nil {
				return 0, 0, dbErr(ctx, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return 0, 0, dbErr(ctx, err)
			}
			keys += int(n)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, dbErr(ctx, err)
	}
	return records, keys, nil
}

// ListSections returns up to limit section values after (section, key), in
// that order.
func (db *DB) ListSections(ctx context.Context, afterSection, afterKey string, limit int) ([]providers.SectionRecord, error) {
	rows, err := db.readers.QueryContext(ctx, queries.ListSections, afterSection, afterKey, limit)
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	defer rows.Close()
	var out []providers.SectionRecord
	for rows.Next() {
		var (
			r                providers.SectionRecord
			fetched, expires string
		)
		if err := rows.Scan(&r.Section, &r.Key, &r.Data, &r.Source, &r.Vintage, &fetched, &expires, &r.Missing); err != nil {
			return nil, dbErr(ctx, err)
		}
		if r.FetchedAt, err = parseTime(fetched); err != nil {
			return nil, dbErr(ctx, err)
		}
		if r.ExpiresAt, err = parseTime(expires); err != nil {
			return nil, dbErr(ctx, err)
		}
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
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, dbErr(ctx, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, r := range recs {
		data := r.Data
		if data == nil {
			data = []byte{}
		}
		res, err := tx.ExecContext(ctx, queries.CopySection, r.Section, r.Key, data, r.Source, r.Vintage, formatTime(r.FetchedAt), formatTime(r.ExpiresAt), r.Missing)
		if err != nil {
			return 0, dbErr(ctx, err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return 0, dbErr(ctx, err)
		}
		n += int(k)
	}
	if err := tx.Commit(); err != nil {
		return 0, dbErr(ctx, err)
	}
	return n, nil
}
