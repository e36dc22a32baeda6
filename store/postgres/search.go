package postgres

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// whereClause builds the WHERE clause (with its leading " WHERE ", or
// empty) and its arguments for f. City and state are compared through
// their upper-cased generated columns, which the search indexes hold.
// Values are always bound parameters, never part of the SQL text, so
// quotes, '%' and '_' in them are plain data.
func whereClause(f providers.SearchFilter) (where string, args []any) {
	var conds []string
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, cond+" $"+strconv.Itoa(len(args)))
	}
	if f.Zip != "" {
		add("zip_code =", f.Zip)
	}
	if f.State != "" {
		add("state_upper =", strings.ToUpper(f.State))
	}
	if f.City != "" {
		add("city_upper =", strings.ToUpper(f.City))
	}
	if f.PropertyType != "" {
		add("property_type =", f.PropertyType)
	}
	if f.MinBedrooms != nil {
		add("bedrooms >=", *f.MinBedrooms)
	}
	if f.MaxBedrooms != nil {
		add("bedrooms <=", *f.MaxBedrooms)
	}
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return where, args
}

// searchQueries returns the page query and the count query for f, with the
// page query's arguments (the count query takes args minus the last two).
//
// The page query is a deferred join, as on SQLite: the inner SELECT finds
// the page's ids from a covering index (every filter column and the id are
// in it), sorting only ids, and the outer one reads just those rows.
// PostgreSQL's planner picks the index from its statistics, which
// SeedProperties and autovacuum keep current.
func searchQueries(f providers.SearchFilter) (page, count string, args []any) {
	where, args := whereClause(f)
	n := len(args)
	page = "SELECT " + propertyColumns + ` FROM properties p WHERE p.id IN (
		SELECT id FROM properties` + where + ` ORDER BY id LIMIT $` + strconv.Itoa(n+1) +
		` OFFSET $` + strconv.Itoa(n+2) + `) ORDER BY p.id`
	count = "SELECT COUNT(*) FROM properties" + where
	return page, count, append(args, f.PerPage, rules.Offset(f))
}

// Search returns one page of the records matching every set field of f
// (City and State compared case-insensitively, Zip and PropertyType exactly,
// MinBedrooms and MaxBedrooms inclusive; a bedrooms filter excludes records
// whose bedrooms are unknown), ordered by id, and the total number of
// matches. The page and the total come from one repeatable-read snapshot,
// so they agree while other instances write.
//
// It returns KindInvalid (invalid_parameter) when Page < 1 or PerPage is
// outside 1..rules.MaxPerPage (100).
func (db *DB) Search(ctx context.Context, f providers.SearchFilter) ([]providers.Property, int, error) {
	if err := rules.CheckPage(f); err != nil {
		return nil, 0, err
	}
	pageSQL, countSQL, args := searchQueries(f)
	var (
		props []providers.Property
		total int
	)
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, pageSQL, args...)
			if err != nil {
				return err
			}
			props = []providers.Property{}
			for rows.Next() {
				p, err := scanProperty(rows)
				if err != nil {
					rows.Close()
					return err
				}
				props = append(props, *p)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			offset := int(rules.Offset(f))
			if len(props) > 0 && len(props) < f.PerPage || len(props) == 0 && offset == 0 {
				// A short page is the last one: the total is known without counting.
				total = offset + len(props)
				return nil
			}
			return tx.QueryRow(ctx, countSQL, args[:len(args)-2]...).Scan(&total)
		})
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	return props, total, nil
}
