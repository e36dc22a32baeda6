package store

import (
	"context"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// MaxPerPage is the largest page Search returns.
const MaxPerPage = rules.MaxPerPage

// searchIndex names the index a search walks, chosen by its most selective
// equality filter: zip, then state, then city, then property type. Each of
// these indexes also holds the filter columns that may come with it
// (bedrooms and type; city too for state), so the search never reads the
// table to filter. The choice is not left to SQLite's planner because,
// without statistics on the data, it prefers an index constraining more
// columns: for state, type and a bedrooms range it took the type index and
// read a row per candidate to check the state, a hundred times slower at a
// million rows. Bedrooms alone and no filter at all are left to the planner
// (the bedrooms index, and the table in id order).
func searchIndex(f providers.SearchFilter) string {
	switch {
	case f.Zip != "":
		return "properties_zip"
	case f.State != "":
		return "properties_state_city"
	case f.City != "":
		return "properties_city"
	case f.PropertyType != "":
		return "properties_type"
	}
	return ""
}

// Search returns one page of the records matching every set field of f
// (City and State compared case-insensitively, Zip and PropertyType exactly,
// MinBedrooms and MaxBedrooms inclusive; a bedrooms filter excludes records
// whose bedrooms are unknown), ordered by id, and the total number of
// matches. The page and the total come from one read transaction, so they
// agree. Every filter has a covering index to seek (see searchIndex); a
// search with no filter at all reads the table in id order for its page and
// counts every record for its total.
//
// It returns KindInvalid (invalid_parameter) when Page < 1 or PerPage is
// outside 1..MaxPerPage.
func (db *DB) Search(ctx context.Context, f providers.SearchFilter) (_ []providers.Property, total int, err error) {
	if err := rules.CheckPage(f); err != nil {
		return nil, 0, err
	}
	pageSQL, countSQL, args := queries.Search(f)

	tx, err := db.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	defer tx.Rollback()

	rows, err := tx.QueryContext(ctx, pageSQL, args...)
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	defer rows.Close()
	props := []providers.Property{}
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
	rows.Close()

	if total, ok := sqlshared.PageTotal(f, len(props)); ok {
		return props, total, nil
	}
	if err := tx.QueryRowContext(ctx, countSQL, args[:len(args)-2]...).Scan(&total); err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	return props, total, nil
}
