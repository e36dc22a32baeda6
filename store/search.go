package store

import (
	"context"
	"database/sql"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// MaxPerPage is the largest page Search returns.
const MaxPerPage = rules.MaxPerPage

// searchIndex names the index a search walks, chosen by its most selective
// filter: zip, then FIPS code (and tract), county, state (with a bathrooms
// or living-area bound and no city, an index leading with the state and
// that fact, 0006), city, property type, then the facts, year built,
// living area, bedrooms and bathrooms.
// Each of these indexes also holds the filter columns that may come with
// it (see migrations 0001, 0002, 0005 and 0006), so the search never reads the
// table to filter. The choice is not left to SQLite's planner because,
// without statistics on the data, it prefers an index constraining more
// columns: for state, type and a bedrooms range it took the type index and
// read a row per candidate to check the state, a hundred times slower at a
// million rows. A search in an area uses none (NOT INDEXED, see dialect):
// it reads the R*Tree's ids for the area and the rows by id. No filter at
// all reads the table in id order.
func searchIndex(f providers.SearchFilter) string {
	switch {
	case f.Near != nil || f.Box != nil:
		return ""
	case f.Zip != "":
		return "properties_zip"
	case f.FIPSCode != "":
		return "properties_fips"
	case f.County != "":
		return "properties_county"
	case f.State != "" && f.City == "" && f.MinBathrooms != nil:
		return "properties_state_bathrooms"
	case f.State != "" && f.City == "" && (f.MinLivingAreaSqft != nil || f.MaxLivingAreaSqft != nil):
		return "properties_state_area"
	case f.State != "":
		return "properties_state_city"
	case f.City != "":
		return "properties_city"
	case len(f.PropertyTypes) > 0:
		return "properties_type"
	case f.MinYearBuilt != nil || f.MaxYearBuilt != nil:
		return "properties_year"
	case f.MinLivingAreaSqft != nil || f.MaxLivingAreaSqft != nil:
		return "properties_area"
	case f.MinBedrooms != nil || f.MaxBedrooms != nil:
		return "properties_bedrooms"
	case f.MinBathrooms != nil:
		return "properties_bathrooms"
	}
	return ""
}

// Search returns one page of the records matching every set field of f
// (as sqlshared's Search compares them), ordered by id, or by distance
// then id near a point, and the number of matches up to
// providers.MaxSearchTotal+1. The page and the total come from one read
// transaction, so they agree. Every filter has a covering index to seek
// (see searchIndex) and an area the R*Tree. The count, bounded, comes
// first and picks the page's plan (sqlshared.UseByID): a few matches are
// found in the index and their ids sorted, many by walking the table in
// id order until the page is full.
//
// It returns KindInvalid (invalid_parameter) for a filter
// rules.CheckSearch refuses: Page < 1, PerPage outside 1..MaxPerPage, a
// tract without a FIPS code, a location out of range.
func (db *DB) Search(ctx context.Context, f providers.SearchFilter) (_ []providers.Property, total int, err error) {
	if err := rules.CheckSearch(f); err != nil {
		return nil, 0, err
	}
	tx, err := db.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	defer tx.Rollback()
	if f.Near != nil {
		return searchNear(ctx, tx, f)
	}
	q, args := queries.Search(f)
	filters := args[:len(args)-2]
	if f.Box != nil {
		ids, err := queryIDs(ctx, tx, q.FirstIDs, filters)
		if err != nil {
			return nil, 0, err
		}
		if page, total, ok := sqlshared.BoxPage(f, ids); ok {
			props, err := byIDs(ctx, tx, page)
			return props, total, err
		}
	}
	if err := tx.QueryRowContext(ctx, q.Count, filters...).Scan(&total); err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	props := []providers.Property{}
	if total < sqlshared.CountCap && int64(total) <= rules.Offset(f) {
		return props, total, nil
	}
	pageSQL := q.ByIndex
	if total >= sqlshared.CountCap {
		var sampled int
		if err := tx.QueryRowContext(ctx, q.Sample, filters...).Scan(&sampled); err != nil {
			return nil, 0, dbErr(ctx, err)
		}
		if sqlshared.UseByID(f, total, sampled) {
			pageSQL = q.ByID
		}
	}
	rows, err := tx.QueryContext(ctx, pageSQL, args...)
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanProperty(rows)
		if err != nil {
			return nil, 0, dbErr(ctx, err)
		}
		props = append(props, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	return props, total, nil
}

// searchNear answers a search near a point (f.Near) in tx: the page's ids
// from Queries.SearchNear, then the page's rows by id.
func searchNear(ctx context.Context, tx *sql.Tx, f providers.SearchFilter) ([]providers.Property, int, error) {
	ids, total, err := queries.SearchNear(ctx, factTx{tx: tx}, f)
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	props, err := byIDs(ctx, tx, ids)
	return props, total, err
}

// queryIDs returns the ids query selects.
func queryIDs(ctx context.Context, tx *sql.Tx, query string, args []any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr(ctx, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, dbErr(ctx, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr(ctx, err)
	}
	return ids, nil
}

// byIDs returns the records with ids (at most rules.MaxPerPage), in the
// order of ids.
func byIDs(ctx context.Context, tx *sql.Tx, ids []int64) ([]providers.Property, error) {
	props, err := queries.RecordsByIDs(ctx, factTx{tx: tx}, ids, scanProperty)
	return props, dbErr(ctx, err)
}
