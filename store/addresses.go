package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/store/internal/addrsql"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// addrDialect is SQLite's statements for address points and ranges: a
// list of generations is one argument, a JSON array the lookup reads with
// json_each, which SQLite takes as the values of an IN (migration 0024).
// A batch is inserted a row at a time on one prepared statement of the
// writer (ExecMany), which costs SQLite no parse a row: fifty rows an
// INSERT cost as much CPU (5.5 s against 5.5 s, a million points).
var addrDialect = &addrsql.Dialect{
	Param: factDialect.Param,
	In:    func(column, param string) string { return column + " IN (SELECT value FROM json_each(" + param + "))" },
	List: func(generations []int64) any {
		var b strings.Builder
		b.WriteByte('[')
		for i, g := range generations {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(g, 10))
		}
		b.WriteByte(']')
		return b.String()
	},
	Tables: addrTables{},
	Legacy: []string{"address_points_0024", "address_ranges_0024"},
}

var addrStatements = addrsql.Build(addrDialect)

// newAddresses returns the address points and ranges over db, built once
// by Open.
func (db *DB) newAddresses() addrsql.Addresses {
	return addrsql.Addresses{DB: factDB{db}, S: addrStatements, Life: db.newLifecycle()}
}

// addrTables keeps a generation's points and ranges in tables of their
// own, address_points_g<N> and address_ranges_g<N> (migration 0025):
// rowid tables a load appends to, indexed by its publication, which then
// lists the generation in address_generations and writes the views
// address_points and address_ranges again, one arm a generation published
// (addrViews). Each arm names its generation as a constant, so a lookup
// tests it once, before seeking the arm's index.
type addrTables struct{}

// The columns of a generation's tables after their generation (the
// default of each row's): 0024's.
const (
	addrPointColumns = `state TEXT NOT NULL, street TEXT NOT NULL, unit TEXT NOT NULL, city TEXT NOT NULL,
	zip TEXT NOT NULL, lat REAL NOT NULL, lng REAL NOT NULL, key TEXT NOT NULL`
	addrRangeColumns = `state TEXT NOT NULL, name TEXT NOT NULL, span INTEGER NOT NULL, lo INTEGER NOT NULL,
	hi INTEGER NOT NULL, descending INTEGER NOT NULL, parity TEXT NOT NULL, side TEXT NOT NULL, zip TEXT NOT NULL,
	key TEXT NOT NULL, line BLOB NOT NULL`
)

func (addrTables) Create(ctx context.Context, c sqlshared.Conn, gen int64) error {
	head := `(id INTEGER PRIMARY KEY, generation INTEGER NOT NULL DEFAULT ` + strconv.FormatInt(gen, 10) + `, `
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS ` + addrsql.PointsTable(gen) + ` ` + head + addrPointColumns + `)`,
		`CREATE TABLE IF NOT EXISTS ` + addrsql.RangesTable(gen) + ` ` + head + addrRangeColumns + `)`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Publish builds each table's index in one sorted pass: the lookups' of
// 0024 less the generation, the same on every row, and led by the street
// (the name) rather than the state, which a lookup names as well: the
// sort then tells most keys apart by their first column, which the state
// rarely does (a million points indexed in 1.0-1.35 s against 1.2-1.7 s).
func (t addrTables) Publish(ctx context.Context, c sqlshared.Conn, gen int64) error {
	if err := t.Create(ctx, c, gen); err != nil {
		return err
	}
	p, r := addrsql.PointsTable(gen), addrsql.RangesTable(gen)
	for _, q := range []string{
		`CREATE INDEX IF NOT EXISTS ` + p + `_street ON ` + p + ` (street, state, unit)`,
		`CREATE INDEX IF NOT EXISTS ` + r + `_street ON ` + r + ` (name, state, span, lo, hi)`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	if _, err := c.Exec(ctx, `INSERT OR IGNORE INTO address_generations (generation) VALUES (?)`, gen); err != nil {
		return err
	}
	return addrViews(ctx, c)
}

// Drop takes the generation out of the views, then drops its tables, in
// one transaction: SQLite frees their pages without reading each row
// (80 ms for a million points), and readers, on their snapshot, never
// wait for it.
func (addrTables) Drop(ctx context.Context, db sqlshared.DB, gen int64) error {
	return db.Tx(ctx, func(c sqlshared.Conn) error {
		n, err := c.Exec(ctx, `DELETE FROM address_generations WHERE generation = ?`, gen)
		if err != nil {
			return err
		}
		if n > 0 {
			if err := addrViews(ctx, c); err != nil {
				return err
			}
		}
		for _, t := range []string{addrsql.PointsTable(gen), addrsql.RangesTable(gen)} {
			if _, err := c.Exec(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
				return err
			}
		}
		return nil
	})
}

// addrViews writes the views address_points and address_ranges again:
// one arm for each generation published, and one for the rows of 0024
// while it holds any (or no generation is published: a view needs an
// arm). Every arm costs each lookup's preparation and a seek: a fresh
// database's never read 0024's empty tables.
func addrViews(ctx context.Context, c sqlshared.Conn) error {
	var legacy bool
	if _, err := sqlshared.QueryRow(ctx, c, `SELECT EXISTS (SELECT 1 FROM address_points_0024)
		OR EXISTS (SELECT 1 FROM address_ranges_0024)`, nil, &legacy); err != nil {
		return err
	}
	rows, err := c.Query(ctx, `SELECT generation FROM address_generations ORDER BY generation`)
	if err != nil {
		return err
	}
	var gens []int64
	for rows.Next() {
		var g int64
		if err := rows.Scan(&g); err != nil {
			rows.Close()
			return err
		}
		gens = append(gens, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	const (
		points = `state, street, unit, city, zip, lat, lng, key`
		ranges = `state, name, span, lo, hi, descending, parity, side, zip, key, line`
	)
	var p, r []string
	if legacy || len(gens) == 0 {
		p = append(p, `SELECT id, generation, `+points+` FROM address_points_0024`)
		r = append(r, `SELECT id, generation, `+ranges+` FROM address_ranges_0024`)
	}
	// The generation a constant of the column's affinity: with another
	// (a bare number) SQLite does not flatten the view into a lookup.
	for _, g := range gens {
		n := strconv.FormatInt(g, 10)
		p = append(p, `SELECT id, CAST(`+n+` AS INTEGER), `+points+` FROM `+addrsql.PointsTable(g))
		r = append(r, `SELECT id, CAST(`+n+` AS INTEGER), `+ranges+` FROM `+addrsql.RangesTable(g))
	}
	for _, q := range []string{`DROP VIEW IF EXISTS address_points`, `DROP VIEW IF EXISTS address_ranges`,
		`CREATE VIEW address_points (id, generation, ` + points + `) AS ` + strings.Join(p, "\n\tUNION ALL "),
		`CREATE VIEW address_ranges (id, generation, ` + ranges + `) AS ` + strings.Join(r, "\n\tUNION ALL ")} {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
