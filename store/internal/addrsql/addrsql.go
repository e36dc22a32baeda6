// Package addrsql is the address points and ranges both database engines
// share (providers.AddressStore): writing a load's points and ranges
// under its generation with its checkpoint, indexing them when the load
// is published, finding the points of an address and the ranges of a
// street that hold a number, and dropping a generation. The statements
// are the same in both engines but for their placeholders and the test of
// a list of generations; the tables are migration 0024's and 0025's,
// which say why they are shaped as they are.
//
// Each generation's rows are tables of their own (address_points_g<N>,
// address_ranges_g<N>, Tables), which its load creates unindexed and
// appends to a batch a transaction. The publication of the load builds
// their indexes, one sorted pass each, and makes them read through
// address_points and address_ranges in its transaction (a view of the
// generations published on SQLite, partitions attached on PostgreSQL); a
// generation is dropped with its tables. Moving a million rows, sorted,
// from one staged table into one indexed table of every generation, as
// 0024 did, wrote each row twice and took 3.4 s of a load of 5.8 s on
// SQLite, 8.2 s of 11.3 s on PostgreSQL, its sort spilling to disk.
package addrsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Dialect is what the engines say differently about addresses.
type Dialect struct {
	// Param is the engine's placeholder of the n-th argument.
	Param func(n int) string
	// In is the test that column is one of the generations given as one
	// argument, whose placeholder is param.
	In func(column, param string) string
	// List is that argument: generations as In reads them.
	List func(generations []int64) any
	// Copy, when set, writes a batch's rows by copy (a sqlshared.Conn
	// that is a Copier) rather than one INSERT a row.
	Copy bool
	// Batch, when set, is run first in the transaction of each batch.
	Batch string
	// Tables keeps each generation's rows in tables of its own.
	Tables Tables
	// Legacy names the tables of rows written before the tables of a
	// generation (SQLite's address_points_0024 and address_ranges_0024,
	// read through its views with the rest): a drop deletes a
	// generation's rows there too, dropBatch ids a transaction.
	Legacy []string
}

// Tables is how an engine keeps a generation's points and ranges in
// tables of their own, named by PointsTable and RangesTable (migration
// 0025).
type Tables interface {
	// Create makes generation's tables, unindexed, the generation the
	// default of their generation column, unless they are there (a load
	// resumed), on c, the transaction of one of its batches.
	Create(ctx context.Context, c sqlshared.Conn, generation int64) error
	// Publish indexes generation's tables, creating them if its load
	// wrote none, and makes them read through address_points and
	// address_ranges, on c, the transaction that serves the load. It
	// does nothing that is done already (a publication interrupted).
	Publish(ctx context.Context, c sqlshared.Conn, generation int64) error
	// Drop drops generation's tables, published or not; none is no
	// error. It returns an error wrapping providers.ErrKeep, having
	// dropped nothing, where the engine could not take the locks it
	// needs without holding readers up: the drop is tried again later.
	Drop(ctx context.Context, db sqlshared.DB, generation int64) error
}

// PointsTable and RangesTable name the tables of a generation's points
// and ranges.
func PointsTable(generation int64) string {
	return "address_points_g" + strconv.FormatInt(generation, 10)
}

// RangesTable: see PointsTable.
func RangesTable(generation int64) string {
	return "address_ranges_g" + strconv.FormatInt(generation, 10)
}

// Copier is a Conn that bulk-copies rows into a table (PostgreSQL's COPY).
type Copier interface {
	CopyRows(ctx context.Context, table string, columns []string, rows [][]any) error
}

// The columns a batch writes, in the order of their insert statements'
// arguments; the ids are the tables' own, and the generation the default
// of its tables (Tables.Create).
var (
	pointColumns = []string{"state", "street", "unit", "city", "zip", "lat", "lng", "key"}
	rangeColumns = []string{"state", "name", "span", "lo", "hi", "descending", "parity", "side",
		"zip", "key", "line"}
)

// spanWidths bound hi - lo of the spans 0 to 3 (each below its width);
// span 4 is any wider range (migration 0024).
var spanWidths = [...]int64{100, 1_000, 10_000, 100_000}

// spanOf is the span of a range from lo to hi (0 <= lo <= hi).
func spanOf(lo, hi int64) int64 {
	for k, w := range spanWidths {
		if hi-lo < w {
			return int64(k)
		}
	}
	return int64(len(spanWidths))
}

// dropBatch is how many ids one transaction of a drop of a legacy
// table deletes: a reader or a writer waits for milliseconds, not for a
// state's addresses.
const dropBatch = 5000

// Statements are the statements of one engine, bound once.
type Statements struct {
	pointsAt, rangesOn string
	// drops are each legacy table's (Dialect.Legacy): the ids of a
	// generation, and the delete of a range of them.
	drops  [][2]string
	legacy []string
	d      *Dialect
}

// Build binds d's statements.
func Build(d *Dialect) *Statements {
	b := func(s string) string { return sqlshared.Bind(s, d.Param) }
	p := d.Param
	// A number's ranges: one run of the street index of each span, from
	// the lowest start a range of that span holding it can have (the
	// arguments 4 to 7) to the number (8); the widest span from the
	// street's first.
	var spans []string
	for k := range len(spanWidths) + 1 {
		from := p(4+k) + ` AND ` + p(8)
		lo := `lo BETWEEN ` + from
		if k == len(spanWidths) {
			lo = `lo <= ` + p(8)
		}
		spans = append(spans, `SELECT id, name, state, zip, lo, hi, descending, parity, side, key, line, generation
			FROM address_ranges WHERE state = `+p(1)+` AND name = `+p(2)+` AND `+d.In("generation", p(3))+`
				AND span = `+strconv.Itoa(k)+` AND `+lo+` AND hi >= `+p(8))
	}
	var drops [][2]string
	for _, t := range d.Legacy {
		drops = append(drops, [2]string{b(`SELECT MIN(id), MAX(id) FROM ` + t + ` WHERE generation = ?`),
			b(`DELETE FROM ` + t + ` WHERE id BETWEEN ? AND ? AND generation = ?`)})
	}
	return &Statements{
		pointsAt: `SELECT id, street, unit, city, state, zip, lat, lng, key, generation FROM address_points
			WHERE state = ` + p(1) + ` AND street = ` + p(2) + ` AND unit = ` + p(3) + ` AND ` + d.In("generation", p(4)),
		rangesOn: strings.Join(spans, "\n\t\tUNION ALL "),
		drops:    drops,
		legacy:   d.Legacy,
		d:        d,
	}
}

// Addresses is the address points and ranges of one engine:
// providers.AddressStore, which each engine embeds, so the methods are
// written once. It is safe for concurrent use.
type Addresses struct {
	DB sqlshared.DB
	S  *Statements
	// Life writes a load's checkpoint in the transaction of its batch
	// (StageAddresses).
	Life loadsql.Lifecycle
}

var _ providers.AddressStore = Addresses{}

// StageAddresses checks every point and range, then writes them into the
// tables of load's generation (Tables.Create makes them with its first
// batch), and load's checkpoint cp, in one transaction (see
// providers.AddressStore): read from the load's publication on. It
// returns KindInvalid, writing nothing, for a point without a street or
// state or with coordinates off the globe, a range without a name or state, with a number below 0, a parity other
// than O, E, B, a side other than L, R, or a line of fewer than 2 points
// or off the globe, and for text that PostgreSQL could not store (not
// UTF-8, or holding NUL), so that both engines refuse the same rows. A
// load no longer pending fails with loadsql.ErrSuperseded, writing
// nothing.
func (a Addresses) StageAddresses(ctx context.Context, load *providers.DatasetLoad, cp providers.Checkpoint,
	points []providers.AddressPoint, ranges []providers.AddressRange) error {
	if load == nil {
		return providers.Invalid("load", "must be a load begun by BeginDataset")
	}
	gen := load.Generation
	if gen < 1 {
		return providers.Invalid("generation", "must be 1 or more")
	}
	prows := make([][]any, len(points))
	for i, p := range points {
		if err := checkPoint(p); err != nil {
			return providers.Invalid("points", fmt.Sprintf("point %d (%q): %s", i, p.Key, err))
		}
		prows[i] = []any{p.State, p.Street, p.Unit, p.City, p.Zip, p.Point.Lat, p.Point.Lng, p.Key}
	}
	rrows := make([][]any, len(ranges))
	for i, r := range ranges {
		if err := checkRange(r); err != nil {
			return providers.Invalid("ranges", fmt.Sprintf("range %d (%q): %s", i, r.Key, err))
		}
		lo, hi, desc := r.From, r.To, int64(0)
		if lo > hi {
			lo, hi, desc = hi, lo, 1
		}
		rrows[i] = []any{r.State, r.Name, spanOf(lo, hi), lo, hi, desc, string(r.Parity), string(r.Side),
			r.Zip, r.Key, lineWKB(r.Line)}
	}
	err := a.DB.Tx(ctx, func(c sqlshared.Conn) error {
		if a.S.d.Batch != "" {
			if _, err := c.Exec(ctx, a.S.d.Batch); err != nil {
				return err
			}
		}
		if err := a.Life.Checkpoint(ctx, c, load, cp); err != nil {
			return err
		}
		if len(prows)+len(rrows) == 0 {
			return nil
		}
		if err := a.S.d.Tables.Create(ctx, c, gen); err != nil {
			return err
		}
		if err := a.S.put(ctx, c, PointsTable(gen), pointColumns, prows); err != nil {
			return err
		}
		return a.S.put(ctx, c, RangesTable(gen), rangeColumns, rrows)
	})
	if errors.Is(err, loadsql.ErrSuperseded) {
		return err
	}
	return a.DB.Err(ctx, err)
}

// Publish indexes the tables of generation and makes them read through
// address_points and address_ranges (Tables.Publish), on c, the
// transaction that publishes the load (loadsql.Publisher): a lookup finds
// them from the moment the dataset serves the generation.
func (s *Statements) Publish(ctx context.Context, c sqlshared.Conn, generation int64) error {
	return s.d.Tables.Publish(ctx, c, generation)
}

// put writes rows into table: by copy where the engine copies, else an
// INSERT a row on one prepared statement.
func (s *Statements) put(ctx context.Context, c sqlshared.Conn, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if cp, ok := c.(Copier); ok && s.d.Copy {
		return cp.CopyRows(ctx, table, cols, rows)
	}
	return c.ExecMany(ctx, sqlshared.Bind(`INSERT INTO `+table+` (`+strings.Join(cols, ", ")+`) VALUES (?`+
		strings.Repeat(", ?", len(cols)-1)+`)`, s.d.Param), rows)
}

// checkText says what is wrong with the text field name, "" for nothing;
// required fields must not be empty.
func checkText(name, v string, required bool) string {
	switch {
	case required && v == "":
		return "has no " + name
	case !utf8.ValidString(v):
		return "its " + name + " is not UTF-8"
	case strings.IndexByte(v, 0) >= 0:
		return "its " + name + " holds a NUL"
	}
	return ""
}

type problem string

func (p problem) Error() string { return string(p) }

func checkPoint(p providers.AddressPoint) error {
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"street", p.Street, true}, {"state", p.State, true}, {"unit", p.Unit, false}, {"city", p.City, false},
		{"zip", p.Zip, false}, {"key", p.Key, false}} {
		if msg := checkText(f.name, f.v, f.required); msg != "" {
			return problem(msg)
		}
	}
	if rules.CheckCoordinates(p.Point.Lat, p.Point.Lng) != nil {
		return problem(fmt.Sprintf("its point (%v, %v) is off the globe", p.Point.Lat, p.Point.Lng))
	}
	return nil
}

func checkRange(r providers.AddressRange) error {
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"name", r.Name, true}, {"state", r.State, true}, {"zip", r.Zip, false}, {"key", r.Key, false}} {
		if msg := checkText(f.name, f.v, f.required); msg != "" {
			return problem(msg)
		}
	}
	switch {
	case r.From < 0 || r.To < 0:
		return problem(fmt.Sprintf("its numbers %d to %d are not house numbers (below 0)", r.From, r.To))
	case r.Parity != 'O' && r.Parity != 'E' && r.Parity != 'B':
		return problem(fmt.Sprintf("its parity %q is none of O, E, B", r.Parity))
	case r.Side != 'L' && r.Side != 'R':
		return problem(fmt.Sprintf("its side %q is neither L nor R", r.Side))
	case len(r.Line) < 2:
		return problem(fmt.Sprintf("its line has %d points, fewer than 2", len(r.Line)))
	}
	for _, p := range r.Line {
		if rules.CheckCoordinates(p.Lat, p.Lng) != nil {
			return problem(fmt.Sprintf("its line's point (%v, %v) is off the globe", p.Lat, p.Lng))
		}
	}
	return nil
}

// storable reports whether v could be in a row: text that is not UTF-8
// or holds a NUL is refused by StageAddresses, so asking for it finds
// nothing (without sending PostgreSQL what it refuses).
func storable(vs ...string) bool {
	for _, v := range vs {
		if checkText("", v, false) != "" {
			return false
		}
	}
	return true
}

// AddressPointsAt returns the points of generations whose state, street
// and unit are those given, exactly, by generation, then in the order
// written (see
// providers.AddressStore); none for no generations, nor of a generation
// not yet published.
func (a Addresses) AddressPointsAt(ctx context.Context, generations []int64, state, street, unit string) ([]providers.AddressPoint, error) {
	if len(generations) == 0 || !storable(state, street, unit) {
		return nil, nil
	}
	rows, err := a.DB.Query(ctx, a.S.pointsAt, state, street, unit, a.S.d.List(generations))
	if err != nil {
		return nil, a.DB.Err(ctx, err)
	}
	defer rows.Close()
	type found struct {
		id int64
		p  providers.AddressPoint
	}
	var out []found
	for rows.Next() {
		var f found
		p := &f.p
		if err := rows.Scan(&f.id, &p.Street, &p.Unit, &p.City, &p.State, &p.Zip, &p.Point.Lat, &p.Point.Lng, &p.Key, &p.Generation); err != nil {
			return nil, a.DB.Err(ctx, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, a.DB.Err(ctx, err)
	}
	slices.SortFunc(out, func(x, y found) int {
		if c := cmpID(x.p.Generation, y.p.Generation); c != 0 {
			return c
		}
		return cmpID(x.id, y.id)
	})
	points := make([]providers.AddressPoint, len(out))
	for i, f := range out {
		points[i] = f.p
	}
	return points, nil
}

// AddressRangesOn returns the ranges of generations on the street name of
// state whose numbers hold number, From and To either way round, lowest
// numbers first, then by generation and in the order written (see
// providers.AddressStore); none for no generations, a
// generation not yet published, or a number below 0, which no range
// holds.
func (a Addresses) AddressRangesOn(ctx context.Context, generations []int64, state, name string, number int64) ([]providers.AddressRange, error) {
	if len(generations) == 0 || number < 0 || !storable(state, name) {
		return nil, nil
	}
	args := []any{state, name, a.S.d.List(generations)}
	for _, w := range spanWidths {
		args = append(args, max(number-(w-1), 0))
	}
	args = append(args, number)
	rows, err := a.DB.Query(ctx, a.S.rangesOn, args...)
	if err != nil {
		return nil, a.DB.Err(ctx, err)
	}
	defer rows.Close()
	type found struct {
		id int64
		r  providers.AddressRange
	}
	var out []found
	for rows.Next() {
		var (
			f            found
			lo, hi, desc int64
			parity, side string
			line         []byte
		)
		r := &f.r
		if err := rows.Scan(&f.id, &r.Name, &r.State, &r.Zip, &lo, &hi, &desc, &parity, &side, &r.Key, &line, &r.Generation); err != nil {
			return nil, a.DB.Err(ctx, err)
		}
		r.From, r.To = lo, hi
		if desc != 0 {
			r.From, r.To = hi, lo
		}
		if len(parity) == 1 {
			r.Parity = parity[0]
		}
		if len(side) == 1 {
			r.Side = side[0]
		}
		if r.Line, err = readLine(line); err != nil {
			return nil, a.DB.Err(ctx, fmt.Errorf("range %d: %w", f.id, err))
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, a.DB.Err(ctx, err)
	}
	slices.SortFunc(out, func(x, y found) int {
		if c := cmpID(min(x.r.From, x.r.To), min(y.r.From, y.r.To)); c != 0 {
			return c
		}
		if c := cmpID(x.r.Generation, y.r.Generation); c != 0 {
			return c
		}
		return cmpID(x.id, y.id)
	})
	ranges := make([]providers.AddressRange, len(out))
	for i, f := range out {
		ranges[i] = f.r
	}
	return ranges, nil
}

func cmpID(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// DropAddresses drops generation's points and ranges, staged or
// published (see providers.AddressStore): its tables (Tables.Drop), and
// its rows in the legacy tables, dropBatch ids a transaction. Dropping a
// generation that holds none is no error. An error wrapping
// providers.ErrKeep says it is left for a later drop.
func (a Addresses) DropAddresses(ctx context.Context, generation int64) error {
	if generation < 1 {
		return providers.Invalid("generation", "must be 1 or more")
	}
	if err := a.S.d.Tables.Drop(ctx, a.DB, generation); err != nil {
		if errors.Is(err, providers.ErrKeep) {
			return err
		}
		return a.DB.Err(ctx, err)
	}
	for _, q := range a.S.drops {
		var lo, hi sql.NullInt64
		if _, err := sqlshared.QueryRow(ctx, a.DB, q[0], []any{generation}, &lo, &hi); err != nil {
			return a.DB.Err(ctx, err)
		}
		if !lo.Valid {
			continue // none
		}
		for from := lo.Int64; from <= hi.Int64; from += dropBatch {
			to := min(from+dropBatch-1, hi.Int64)
			err := a.DB.Tx(ctx, func(c sqlshared.Conn) error {
				_, err := c.Exec(ctx, q[1], from, to, generation)
				return err
			})
			if err != nil {
				return a.DB.Err(ctx, err)
			}
		}
	}
	return nil
}

// Planned is the statements whose query plans the engines' tests check,
// by name, in the engine's placeholders: a lookup must seek the index of
// each generation's tables, and a drop's statements of a legacy table,
// one per dropBatch ids, the key.
func (s *Statements) Planned() map[string]string {
	m := map[string]string{"pointsAt": s.pointsAt, "rangesOn": s.rangesOn}
	for i, t := range s.legacy {
		m["drop "+t] = s.drops[i][1]
	}
	return m
}
