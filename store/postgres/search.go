package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

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
	pageSQL, countSQL, args := queries.Search(f)
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
			var ok bool
			if total, ok = sqlshared.PageTotal(f, len(props)); ok {
				return nil
			}
			return tx.QueryRow(ctx, countSQL, args[:len(args)-2]...).Scan(&total)
		})
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	return props, total, nil
}
