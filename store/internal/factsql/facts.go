package factsql

import (
	"context"
	"database/sql"
	"math"
	"reflect"
	"strings"
	"time"

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
}

// scanSource scans RowColumns into a SourcedFacts, the row's point and its dataset.
func scanSource(rows Rows) (providers.SourcedFacts, *providers.Point, string, error) {
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
	if err := rows.Scan(&dataset, &s.Source, &s.AsOf, &priority64, &lat, &lng, &ptype, &beds, &baths,
		&area, &lot, &year, &stories, &units); err != nil {
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
// changed. A record takes, from each dataset, its rows by address (its own
// key first, then its building's key for a unit, whose building rows give
// only providers.BuildingFacts), else the nearest row joining by
// coordinates within PointRadius; and the operator's import rows.
func (f *Facts) Merge(ctx context.Context, c Conn, id int64) (bool, error) {
	var (
		key, unit, origin string
		lat, lng          float64
		ptype             sql.NullString
		beds              sql.NullInt64
		baths             sql.NullFloat64
		area, lot, year   sql.NullInt64
		stories           sql.NullFloat64
		units             sql.NullInt64
	)
	found, err := queryRow(ctx, c, f.S.record, []any{id}, &key, &unit, &lat, &lng, &ptype, &beds, &baths,
		&area, &lot, &year, &stories, &units, &origin)
	if err != nil || !found {
		return false, err
	}
	before := factsOf(ptype, beds, baths, area, lot, year, stories, units)

	var srcs []providers.SourcedFacts
	matched := map[string]bool{}
	collect := func(sql string, arg any, building bool) error {
		rows, err := c.Query(ctx, sql, arg)
		if err != nil {
			return err
		}
		defer rows.Close()
		seen := map[string]bool{}
		for rows.Next() {
			s, _, dataset, err := scanSource(rows)
			if err != nil {
				return err
			}
			if seen[dataset] { // the first row of a dataset: highest rank
				continue
			}
			seen[dataset] = true
			matched[dataset] = true
			s.Building = building
			srcs = append(srcs, s)
		}
		return rows.Err()
	}
	if err := collect(f.S.rowsByRecord, id, false); err != nil {
		return false, err
	}
	if key != "" {
		if err := collect(f.S.rowsByKey, key, false); err != nil {
			return false, err
		}
		if unit != "" {
			if err := collect(f.S.rowsByKey, BuildingKey(key), true); err != nil {
				return false, err
			}
		}
	}
	near, err := f.nearest(ctx, c, providers.Point{Lat: lat, Lng: lng}, matched)
	if err != nil {
		return false, err
	}
	for _, s := range near {
		s.Building = unit != ""
		srcs = append(srcs, s)
	}

	after, newOrigin := providers.MergeFacts(srcs)
	if newOrigin == origin && reflect.DeepEqual(before, after) {
		return false, nil
	}
	args := append(factArgs(after), nullIfEmpty(newOrigin), f.DB.Now(), id)
	_, err = c.Exec(ctx, f.S.updateRecord, args...)
	return err == nil, err
}

func nullIfEmpty(s string) any {
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
	b := rules.BoundingBox(p, PointRadius)
	best := map[string]int{}
	var out []providers.SourcedFacts
	var dist []float64
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
