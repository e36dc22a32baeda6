package factsql

import (
	"context"
	"database/sql"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// PointRadius is how far a record may be from a row that joins by
// coordinates (a row without a usable address), in metres: the nearest
// such row of each dataset within it gives the record its facts. A
// geocoded address point lies along the street (the Census geocoder
// interpolates it on the segment), a parcel's point near the middle of the
// lot, so the two sit apart by about half a lot's depth; 30 m holds that for
// city lots and is less than the distance to the next building's point
// across most streets.
const PointRadius = 30.0

// Facts is the facts logic of one engine.
type Facts struct {
	DB DB
	S  *Statements
	// RebuildAt decides whether a publish merging merged of records
	// records rebuilds the search indexes (Dialect.RebuiltIndexes); nil
	// means the measured rule (rebuildMin, rebuildShare). Tests set it to
	// run every behaviour through both ways of merging.
	RebuildAt func(merged, records int64) bool
	// FromRecords decides whether a publish finds the records near the
	// point and parcel rows of a load of rows rows from the records' side
	// (Dialect.RowsAtRecords); nil means when records are fewer. Tests
	// set it to run every behaviour through both sides.
	FromRecords func(rows, records int64) bool
}

// scanSource scans lead, then RowColumns into a SourcedFacts, the row's
// point and its dataset.
func scanSource(rows Rows, lead ...any) (providers.SourcedFacts, *providers.Point, string, error) {
	var (
		s          providers.SourcedFacts
		dataset    string
		lat, lng   sql.NullFloat64
		ptype      sql.NullString
		beds       sql.NullInt64
		baths      sql.NullFloat64
		area, lot  sql.NullInt64
		year       sql.NullInt64
		stories    sql.NullFloat64
		units      sql.NullInt64
		priority64 int64
	)
	dest := append(lead, &dataset, &s.Source, &s.AsOf, &priority64, &lat, &lng, &ptype, &beds, &baths,
		&area, &lot, &year, &stories, &units)
	if err := rows.Scan(dest...); err != nil {
		return s, nil, "", err
	}
	s.Priority = int(priority64)
	s.Facts = factsOf(ptype, beds, baths, area, lot, year, stories, units)
	var pt *providers.Point
	if lat.Valid && lng.Valid {
		pt = &providers.Point{Lat: lat.Float64, Lng: lng.Float64}
	}
	return s, pt, dataset, nil
}

func factsOf(ptype sql.NullString, beds sql.NullInt64, baths sql.NullFloat64, area, lot, year sql.NullInt64,
	stories sql.NullFloat64, units sql.NullInt64) providers.Facts {
	var f providers.Facts
	if ptype.Valid {
		v := ptype.String
		f.PropertyType = &v
	}
	f.Bedrooms = intOf(beds)
	if baths.Valid {
		v := baths.Float64
		f.Bathrooms = &v
	}
	f.LivingAreaSqft, f.LotSqft, f.YearBuilt, f.Units = intOf(area), intOf(lot), intOf(year), intOf(units)
	if stories.Valid {
		v := stories.Float64
		f.Stories = &v
	}
	return f
}

func intOf(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}

// factArgs are f's values in factColumns order, nil for unknown.
func factArgs(f providers.Facts) []any {
	return []any{nullable(f.PropertyType), nullable(f.Bedrooms), nullable(f.Bathrooms), nullable(f.LivingAreaSqft),
		nullable(f.LotSqft), nullable(f.YearBuilt), nullable(f.Stories), nullable(f.Units)}
}

// nullable returns *p, or nil (NULL) for a nil p: both drivers take it.
func nullable[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// Merge brings the facts of record id up to date with every source that
// joins it, on c (the caller's transaction), and reports whether they
// changed (MergeMany of one record).
func (f *Facts) Merge(ctx context.Context, c Conn, id int64) (bool, error) {
	n, err := f.MergeMany(ctx, c, []int64{id})
	return n > 0, err
}

// mergeRecord is one record on its way through MergeMany.
type mergeRecord struct {
	id                int64
	key, unit, origin string
	lat, lng          float64
	before            providers.Facts
	srcs              []providers.SourcedFacts
	matched           map[string]bool // datasets joined by address or by the import
}

// keyedSource is a served row found by its address key, in the order the
// query returns them: by priority, dataset, rank (highest first), id.
type keyedSource struct {
	dataset string
	src     providers.SourcedFacts
}

// MergeMany brings the facts of the records ids up to date, on c (the
// caller's transaction), with a few set-based reads for all of them and an
// update for each one that changed; it returns how many changed. A record
// takes, from each dataset, its rows by address (its own key first, then
// its building's key for a unit, whose building rows give only
// providers.BuildingFacts), else the nearest row joining by coordinates
// within PointRadius; and the operator's import rows. Ids of no record are
// skipped.
func (f *Facts) MergeMany(ctx context.Context, c Conn, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	idArgs := make([]any, len(ids))
	for i, id := range ids {
		idArgs[i] = id
	}
	in := f.in(len(ids))
	recs := make(map[int64]*mergeRecord, len(ids))
	var order []*mergeRecord
	rows, err := c.Query(ctx, f.S.recordsHead+in, idArgs...)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var (
			r               mergeRecord
			ptype           sql.NullString
			beds            sql.NullInt64
			baths           sql.NullFloat64
			area, lot, year sql.NullInt64
			stories         sql.NullFloat64
			units           sql.NullInt64
		)
		if err := rows.Scan(&r.id, &r.key, &r.unit, &r.lat, &r.lng, &ptype, &beds, &baths,
			&area, &lot, &year, &stories, &units, &r.origin); err != nil {
			rows.Close()
			return 0, err
		}
		r.before = factsOf(ptype, beds, baths, area, lot, year, stories, units)
		r.matched = map[string]bool{}
		recs[r.id] = &r
		order = append(order, &r)
	}
	err = rows.Err()
	rows.Close()
	if err != nil || len(order) == 0 {
		return 0, err
	}

	// The operator's import rows, by record.
	rows, err = c.Query(ctx, f.S.rowsByRecordHead+in+f.S.rowsOrder, idArgs...)
	if err != nil {
		return 0, err
	}
	seen := map[int64]map[string]bool{}
	for rows.Next() {
		var pid int64
		s, _, dataset, err := scanSource(rows, &pid)
		if err != nil {
			rows.Close()
			return 0, err
		}
		r := recs[pid]
		if r == nil || seen[pid][dataset] {
			continue
		}
		if seen[pid] == nil {
			seen[pid] = map[string]bool{}
		}
		seen[pid][dataset] = true
		r.matched[dataset] = true
		r.srcs = append(r.srcs, s)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return 0, err
	}

	// Rows by address: every record's own key and, for a unit, its
	// building's, in one read.
	var keys []any
	keySet := map[string]bool{}
	addKey := func(k string) {
		if k != "" && !keySet[k] {
			keySet[k] = true
			keys = append(keys, k)
		}
	}
	for _, r := range order {
		addKey(r.key)
		if r.key != "" && r.unit != "" {
			addKey(BuildingKey(r.key))
		}
	}
	byKey := map[string][]keyedSource{}
	if len(keys) > 0 {
		rows, err = c.Query(ctx, f.S.rowsByKeyHead+f.in(len(keys))+f.S.rowsOrder, keys...)
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var k string
			s, _, dataset, err := scanSource(rows, &k)
			if err != nil {
				rows.Close()
				return 0, err
			}
			byKey[k] = append(byKey[k], keyedSource{dataset, s})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, err
		}
	}
	take := func(r *mergeRecord, list []keyedSource, building bool) {
		seen := map[string]bool{}
		for _, ks := range list {
			if seen[ks.dataset] { // the first row of a dataset: highest rank
				continue
			}
			seen[ks.dataset] = true
			r.matched[ks.dataset] = true
			s := ks.src
			s.Building = building
			r.srcs = append(r.srcs, s)
		}
	}
	for _, r := range order {
		if r.key == "" {
			continue
		}
		take(r, byKey[r.key], false)
		if r.unit != "" {
			take(r, byKey[BuildingKey(r.key)], true)
		}
	}

	// Rows by coordinates, when any dataset served has some.
	var pointRows int64
	if _, err := QueryRow(ctx, c, f.S.anyPointRows, nil, &pointRows); err != nil {
		return 0, err
	}
	if pointRows > 0 {
		for _, r := range order {
			near, err := f.nearest(ctx, c, providers.Point{Lat: r.lat, Lng: r.lng}, r.matched)
			if err != nil {
				return 0, err
			}
			for _, s := range near {
				s.Building = r.unit != ""
				r.srcs = append(r.srcs, s)
			}
		}
	}

	var updates [][]any
	var cols updateColumns
	now := f.DB.Now()
	for _, r := range order {
		after, origin := providers.MergeFacts(r.srcs)
		if origin == r.origin && reflect.DeepEqual(r.before, after) {
			continue
		}
		if f.S.d.UpdateMany != "" {
			cols.add(r.id, after, origin)
			continue
		}
		updates = append(updates, append(factArgs(after), NullIfEmpty(origin), now, r.id))
	}
	if f.S.d.UpdateMany != "" {
		if len(cols.ids) == 0 {
			return 0, nil
		}
		_, err := c.Exec(ctx, f.S.d.UpdateMany, cols.ids, cols.ptype, cols.beds, cols.baths, cols.area, cols.lot,
			cols.year, cols.stories, cols.units, cols.facts, now)
		return len(cols.ids), err
	}
	if len(updates) == 0 {
		return 0, nil
	}
	return len(updates), c.ExecMany(ctx, f.S.updateRecord, updates)
}

// updateColumns are the arrays of a Dialect.UpdateMany, one element a
// record.
type updateColumns struct {
	ids              []int64
	ptype, facts     []*string
	beds, area, year []*int
	lot              []*int64
	baths, stories   []*float64
	units            []*int
}

func (u *updateColumns) add(id int64, f providers.Facts, origin string) {
	u.ids = append(u.ids, id)
	u.ptype = append(u.ptype, f.PropertyType)
	u.beds = append(u.beds, f.Bedrooms)
	u.baths = append(u.baths, f.Bathrooms)
	u.area = append(u.area, f.LivingAreaSqft)
	var lot *int64
	if f.LotSqft != nil {
		v := int64(*f.LotSqft)
		lot = &v
	}
	u.lot = append(u.lot, lot)
	u.year = append(u.year, f.YearBuilt)
	u.stories = append(u.stories, f.Stories)
	u.units = append(u.units, f.Units)
	var o *string
	if origin != "" {
		o = &origin
	}
	u.facts = append(u.facts, o)
}

// in returns "(p1, ..., pn)" in the engine's placeholders.
func (f *Facts) in(n int) string {
	var b strings.Builder
	b.Grow(n * 5)
	b.WriteByte('(')
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(f.S.d.Param(i))
	}
	b.WriteByte(')')
	return b.String()
}

// NullIfEmpty is s as a statement argument, NULL for "": both engines'
// drivers take it.
func NullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// BuildingKey is the key of the building a unit's key belongs to: the
// same street and ZIP with the empty unit.
func BuildingKey(key string) string {
	i := strings.LastIndexByte(key, '|')
	if i < 0 {
		return key
	}
	return key[:i+1]
}

// nearest returns, for each dataset not in skip, its row joining by
// coordinates nearest to p within PointRadius.
func (f *Facts) nearest(ctx context.Context, c Conn, p providers.Point, skip map[string]bool) ([]providers.SourcedFacts, error) {
	if err := rules.CheckCoordinates(p.Lat, p.Lng); err != nil {
		return nil, nil // a record always has valid coordinates; nothing to join otherwise
	}
	best := map[string]int{}
	var out []providers.SourcedFacts
	var dist []float64
	// A parcel holding the point gives its dataset's facts first.
	rows, err := c.Query(ctx, f.S.parcelsAt, p.Lat, p.Lng)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var shape []byte
		s, _, dataset, err := scanSource(rows, &shape)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if skip[dataset] || !parcelHolds(shape, p) {
			continue
		}
		if _, ok := best[dataset]; ok {
			continue
		}
		best[dataset] = len(out)
		out = append(out, s)
		dist = append(dist, -1) // inside: nearer than any point
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, err
	}
	b := rules.BoundingBox(p, PointRadius)
	for _, lr := range b.Lngs {
		rows, err := c.Query(ctx, f.S.rowsNear, b.South, b.North, lr.West, lr.East)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			s, pt, dataset, err := scanSource(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			if skip[dataset] || pt == nil {
				continue
			}
			d := p.DistanceMeters(*pt)
			if d > PointRadius {
				continue
			}
			if i, ok := best[dataset]; ok {
				if d < dist[i] {
					out[i], dist[i] = s, d
				}
				continue
			}
			best[dataset] = len(out)
			out = append(out, s)
			dist = append(dist, d)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parcelHolds reports whether the WKB polygon or multipolygon shape holds
// p (its boundary included); false for a shape it cannot read.
func parcelHolds(shape []byte, p providers.Point) bool {
	g, err := wkb.Unmarshal(shape)
	if err != nil {
		return false
	}
	pt := orb.Point{p.Lng, p.Lat}
	switch g := g.(type) {
	case orb.Polygon:
		return planar.PolygonContains(g, pt)
	case orb.MultiPolygon:
		return planar.MultiPolygonContains(g, pt)
	}
	return false
}

// pointBox is the half-height and half-width in degrees of a rectangle
// that holds every point within PointRadius of its centre below 75°
// latitude (a longitude degree is about 28.8 km there); farther north a
// record may be missed by a load's search for records to merge, not by its
// own merge, which measures exactly.
func pointBox() (dlat, dlng float64) {
	const m = 111_000.0
	return PointRadius / m * 1.01, PointRadius / (m * math.Cos(75*math.Pi/180)) * 1.01
}

// stamp formats t as the fact tables store times.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
