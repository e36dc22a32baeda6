package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Search returns one page of the records matching every set field of f
// (as sqlshared's Search compares them), ordered by id, or by distance
// then id near a point, and the number of matches up to
// providers.MaxSearchTotal+1, with the same plans as on SQLite.
// The page and the total come from one repeatable-read snapshot, so they
// agree while other instances write.
//
// It returns KindInvalid (invalid_parameter) for a filter
// rules.CheckSearch refuses: Page < 1, PerPage outside
// 1..rules.MaxPerPage (100), a tract without a FIPS code, a location out
// of range.
func (db *DB) Search(ctx context.Context, f providers.SearchFilter) ([]providers.Property, int, error) {
	if err := rules.CheckSearch(f); err != nil {
		return nil, 0, err
	}
	var (
		props []providers.Property
		total int
	)
	if f.Near != nil {
		err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
			func(tx pgx.Tx) (err error) {
				props, total, err = searchNear(ctx, tx, f)
				return err
			})
		if err != nil {
			return nil, 0, dbErr(ctx, err)
		}
		return props, total, nil
	}
	q, args := queries.Search(f)
	filters := args[:len(args)-2]
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			if f.Box != nil {
				ids, err := queryIDs(ctx, tx, q.FirstIDs, filters)
				if err != nil {
					return err
				}
				if page, n, ok := sqlshared.BoxPage(f, ids); ok {
					total = n
					props, err = byIDs(ctx, tx, page)
					return err
				}
			}
			if err := tx.QueryRow(ctx, q.Count, filters...).Scan(&total); err != nil {
				return err
			}
			props = []providers.Property{}
			if total < sqlshared.CountCap && int64(total) <= rules.Offset(f) {
				return nil
			}
			pageSQL := q.ByIndex
			if total >= sqlshared.CountCap {
				var sampled int
				if err := tx.QueryRow(ctx, q.Sample, filters...).Scan(&sampled); err != nil {
					return err
				}
				if sqlshared.UseByID(f, total, sampled) {
					pageSQL = q.ByID
				}
			}
			rows, err := tx.Query(ctx, pageSQL, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				p, err := scanProperty(rows)
				if err != nil {
					return err
				}
				props = append(props, *p)
			}
			return rows.Err()
		})
	if err != nil {
		return nil, 0, dbErr(ctx, err)
	}
	return props, total, nil
}

// searchNear answers a search near a point (f.Near) in tx: the page's ids
// from Queries.SearchNear, then the page's rows by id.
func searchNear(ctx context.Context, tx pgx.Tx, f providers.SearchFilter) ([]providers.Property, int, error) {
	ids, total, err := queries.SearchNear(ctx, factTx{tx}, f)
	if err != nil {
		return nil, 0, err
	}
	props, err := byIDs(ctx, tx, ids)
	return props, total, err
}

// queryIDs returns the ids query selects.
func queryIDs(ctx context.Context, tx pgx.Tx, query string, args []any) ([]int64, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// byIDs returns the records with ids (at most rules.MaxPerPage), in the
// order of ids.
func byIDs(ctx context.Context, tx pgx.Tx, ids []int64) ([]providers.Property, error) {
	return queries.RecordsByIDs(ctx, factTx{tx}, ids, scanProperty)
}
