package sqlshared

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// maxSearchArgs is the most arguments a statement of a search has: the
// page's rows of a search near a point, by id (rules.MaxPerPage), or a
// search's filters (at most 6 property types and 18 other values) with a
// box of 4, the page size and the offset.
const maxSearchArgs = 100

// where writes the search conditions of f after " WHERE " into b, adding
// their values to args, and returns args: every filter but Near, whose
// rectangle the caller adds (SearchNear).
func (q *Queries) where(b *strings.Builder, f providers.SearchFilter, args []any) []any {
	d, param := q.d, q.params[:]
	add := func(column, op string, v any) {
		args = append(args, v)
		if b.Len() == 0 {
			b.Grow(256) // room for most filters: one allocation
			b.WriteString(" WHERE ")
		} else {
			b.WriteString(" AND ")
		}
		b.WriteString(column)
		b.WriteString(op)
		b.WriteString(param[len(args)])
	}
	if f.Zip != "" {
		add("zip_code", " = ", f.Zip)
	}
	if f.State != "" {
		add(d.StateColumn, " = ", strings.ToUpper(f.State))
	}
	if f.City != "" {
		add(d.CityColumn, " = ", strings.ToUpper(f.City))
	}
	if f.County != "" {
		add(d.CountyColumn, " = ", asciiUpper(f.County))
	}
	if f.FIPSCode != "" {
		add("fips_code", " = ", f.FIPSCode)
	}
	if f.CensusTract != "" {
		add("census_tract", " = ", f.CensusTract)
	}
	switch len(f.PropertyTypes) {
	case 0:
	case 1:
		add("property_type", " = ", f.PropertyTypes[0])
	default:
		add("property_type", " IN (", f.PropertyTypes[0])
		for _, t := range f.PropertyTypes[1:] {
			args = append(args, t)
			b.WriteString(", ")
			b.WriteString(param[len(args)])
		}
		b.WriteString(")")
	}
	for _, r := range [...]struct {
		column, op string
		v          any
		set        bool
	}{
		{"bedrooms", " >= ", deref(f.MinBedrooms), f.MinBedrooms != nil},
		{"bedrooms", " <= ", deref(f.MaxBedrooms), f.MaxBedrooms != nil},
		{"bathrooms", " >= ", deref(f.MinBathrooms), f.MinBathrooms != nil},
		{"year_built", " >= ", deref(f.MinYearBuilt), f.MinYearBuilt != nil},
		{"year_built", " <= ", deref(f.MaxYearBuilt), f.MaxYearBuilt != nil},
		{"living_area_sqft", " >= ", deref(f.MinLivingAreaSqft), f.MinLivingAreaSqft != nil},
		{"living_area_sqft", " <= ", deref(f.MaxLivingAreaSqft), f.MaxLivingAreaSqft != nil},
	} {
		if r.set {
			add(r.column, r.op, r.v)
		}
	}
	if bx := f.Box; bx != nil {
		args = q.inBox(b, args, bx.South, bx.North, bx.West, bx.East)
	}
	return args
}

// inBox adds the condition that a record lies in the rectangle, edges
// included, through the engine's spatial index (Dialect.InBox).
func (q *Queries) inBox(b *strings.Builder, args []any, south, north, west, east float64) []any {
	if b.Len() == 0 {
		b.WriteString(" WHERE ")
	} else {
		b.WriteString(" AND ")
	}
	b.WriteString(q.d.InBox(func(v float64) string {
		args = append(args, v)
		return q.params[len(args)]
	}, south, north, west, east))
	return args
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// asciiUpper upper-cases the ASCII letters of s and leaves every other
// character as it is: the folding both engines apply to a county
// (SQLite's NOCASE, PostgreSQL's upper() in the "C" collation), whatever
// the server's locale.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// CountCap is the most matches a search's count query counts:
// providers.MaxSearchTotal and one more, which says there are more.
const CountCap = providers.MaxSearchTotal + 1

// SampleRows is how many records, from the lowest id up, a search's
// sample query reads to estimate the share of records its filters match:
// enough to see a hundred matches of a filter matching one record in ten,
// few enough to cost a fraction of a millisecond.
const SampleRows = 1024

// Search returns the statements of a search of f, and the page queries'
// arguments (the count and the sample take args minus the last two: the
// page size and the offset). f must have passed rules.CheckSearch and
// have no Near (see SearchNear).
//
// Count counts the matches up to CountCap, from the search's index
// (Dialect.SearchFrom): its cost is bounded whatever the filter matches.
//
// Two page queries give the same page. ByIndex is a deferred join: the
// inner SELECT finds the page's ids from a covering index (every filter
// column is in the index, and so is the id), sorting every match's id when
// the index is not in id order, and the outer one reads just those rows:
// the plan for a selective filter, whose matches are few (at most
// providers.MaxSearchTotal when Count says so). ByID walks the table in id
// order (Dialect.ScanHint) and stops when the page is full: the plan for a
// broad filter, whose matches are dense enough that the page's rows come
// before long. Sample counts the matches among the SampleRows records of
// lowest id, which tells the engine how dense they are, hence how long the
// walk would be (see UseByID).
//
// City and State are compared upper-cased, County with its ASCII letters
// upper-cased, Zip, FIPSCode, CensusTract and PropertyTypes exactly, the
// fact bounds inclusively (a bound excludes records whose fact is
// unknown), a Box through the spatial index. Values are always bound
// parameters, never part of the SQL text, so quotes, '%' and '_' in them
// are plain data.
func (q *Queries) Search(f providers.SearchFilter) (s SearchStatements, args []any) {
	var where strings.Builder
	args = q.where(&where, f, make([]any, 0, 16))
	from := "properties"
	if q.d.SearchFrom != nil {
		from = q.d.SearchFrom(f)
	}
	n, param := len(args), q.params[:]
	limit := ` LIMIT ` + param[n+1] + ` OFFSET ` + param[n+2]
	s.ByIndex = "SELECT " + PropertyColumns + ` FROM properties p WHERE p.id IN (
		SELECT id FROM ` + from + where.String() + ` ORDER BY id` + limit + `) ORDER BY p.id`
	s.ByID = "SELECT " + PropertyColumns + " FROM properties p" + q.d.ScanHint + where.String() + " ORDER BY p.id" + limit
	s.Count = "SELECT COUNT(*) FROM (SELECT 1 FROM " + from + where.String() +
		" LIMIT " + strconv.Itoa(CountCap) + ") m"
	s.FirstIDs = "SELECT id FROM " + from + where.String() + " ORDER BY id LIMIT " + strconv.Itoa(CountCap)
	s.Sample = "SELECT COUNT(*) FROM (SELECT * FROM properties" + q.d.ScanHint + " ORDER BY id LIMIT " +
		strconv.Itoa(SampleRows) + ") s" + where.String()
	return s, append(args, f.PerPage, rules.Offset(f))
}

// SearchStatements are the statements of one search (Queries.Search).
type SearchStatements struct {
	ByIndex, ByID string // the page, through the search's index or in id order
	Count         string // the matches, up to CountCap
	Sample        string // the matches among the first SampleRows records
	// FirstIDs selects the ids of the first CountCap matches in id order:
	// a search in a box reads every record in it whatever it counts, so
	// it reads them once, for its total and its page (BoxPage).
	FirstIDs string
}

// BoxPage returns the ids of f's page and the total, given ids, the
// result of FirstIDs, when those tell: fewer than CountCap ids are every
// match, and CountCap of them hold any page within them. Otherwise (a page
// past the first CountCap matches) ok is false and the engine runs ByIndex.
func BoxPage(f providers.SearchFilter, ids []int64) (page []int64, total int, ok bool) {
	off := rules.Offset(f)
	end := off + int64(f.PerPage)
	if len(ids) == CountCap && end > int64(len(ids)) {
		return nil, len(ids), false
	}
	if off >= int64(len(ids)) {
		return []int64{}, len(ids), true
	}
	return ids[off:min(end, int64(len(ids)))], len(ids), true
}

// UseByID reports whether a search of f should walk the table in id order
// (SearchStatements.ByID) rather than sort its matches' ids from its index
// (ByIndex), given the matches Count counted (up to CountCap) and, when it
// reached CountCap, sampled: the matches among the first SampleRows
// records. A search in a box reads the spatial index's ids for it either
// way, so it sorts them.
//
// Below CountCap the index holds at most providers.MaxSearchTotal matches:
// reading and sorting their ids costs a few milliseconds at most, and
// walking the table could read every record for a rare filter. At the cap
// the matches may be hundreds of thousands, and sorting them is what made
// a broad search take a hundred milliseconds or more; the walk reads about
// (offset+size)/density records, density being sampled/SampleRows, and is
// chosen when that is at most walkBudget. No match in the sample says
// nothing of the rest of the table (records loaded a county at a time are
// not spread evenly): the index then.
func UseByID(f providers.SearchFilter, count, sampled int) bool {
	if count < CountCap || f.Box != nil || sampled == 0 {
		return false
	}
	need := rules.Offset(f) + int64(f.PerPage)
	walk := need * SampleRows / int64(sampled)
	return walk <= walkBudget
}

// walkBudget is the most records UseByID lets a page walk in id order.
// Reading a record costs a few times what reading an index entry does,
// and sorting the ids of a broad filter's matches (tens of thousands at
// the least, past CountCap) costs as much as walking about this many
// records, as measured at a million records (store/engine's latency
// test).
const walkBudget = 50_000

// SearchNearRect returns the statement selecting id, latitude and longitude
// of the records matching f's filters (f.Near aside) in one rectangle of
// f.Near's bounding box, and its arguments. A search near a point runs it
// once for each rectangle (rules.BoundingBox), keeps the rows within the
// radius and orders them (NearPage), then reads the page's rows by id
// (ByIDs).
func (q *Queries) SearchNearRect(f providers.SearchFilter, south, north, west, east float64) (string, []any) {
	var where strings.Builder
	args := q.where(&where, f, make([]any, 0, 16))
	args = q.inBox(&where, args, south, north, west, east)
	from := "properties"
	if q.d.SearchFrom != nil {
		from = q.d.SearchFrom(f)
	}
	return "SELECT id, latitude, longitude FROM " + from + where.String(), args
}

// ByIDs returns the statement selecting PropertyColumns of the records
// with n ids, given as its arguments (n at most rules.MaxPerPage), in no
// particular order.
func (q *Queries) ByIDs(n int) string {
	var b strings.Builder
	b.WriteString("SELECT " + PropertyColumns + " FROM properties p WHERE p.id IN (")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(q.params[i])
	}
	b.WriteString(")")
	return b.String()
}

// Hit is a record a search near a point found in its rectangle.
type Hit struct {
	ID       int64
	Lat, Lng float64
}

// NearPage returns the ids of f's page among hits (which may hold
// duplicates, from rectangles that touch at ±180°, and records outside
// f.Near's radius), and the number of distinct hits within the radius.
// The order is by f.Near.Distance (whole metres), then id, the same on
// both engines.
func NearPage(f providers.SearchFilter, hits []Hit) (ids []int64, total int) {
	type near struct {
		id   int64
		dist float64
	}
	in := make([]near, 0, len(hits))
	for _, h := range hits {
		if p := (providers.Point{Lat: h.Lat, Lng: h.Lng}); f.Near.Contains(p) {
			in = append(in, near{h.ID, f.Near.Distance(p)})
		}
	}
	slices.SortFunc(in, func(a, b near) int {
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	in = slices.CompactFunc(in, func(a, b near) bool { return a.id == b.id })
	off := rules.Offset(f)
	if off >= int64(len(in)) {
		return []int64{}, len(in)
	}
	page := in[off:min(int64(len(in)), off+int64(f.PerPage))]
	ids = make([]int64, len(page))
	for i, p := range page {
		ids[i] = p.id
	}
	return ids, len(in)
}

// firstNearRadius is the radius, in metres, of the first circle a search
// near a point reads (NearRadius): at the densest seeded city blocks, about
// eight thousand records, what a page and a capped count need.
const firstNearRadius = 1000

// NearRadius returns the circle a search near a point reads next, having
// read the circle c and found inCircle matches in it (c nil: none read
// yet), and whether c is the last. A search near a point reads circles
// growing towards f.Near, so that a wide one (the radius may be 50 km)
// reads what its page and a count up to CountCap need rather than every
// record within the radius: it stops at the first circle holding both,
// reporting CountCap when that circle is smaller than f.Near (the count
// reached the cap), and otherwise at f.Near. The next radius is estimated
// from the density of matches seen so far, with a margin, at least a
// quarter more and at most eight times the last.
//
// Every circle but f.Near has a radius just under k+0.5 metres, for a
// whole k: its records' distances (Circle.Distance, rounded) are at most
// k and those of the records outside it at least k+1, so its page, ordered
// by distance then id, is the page of the whole radius.
func NearRadius(f providers.SearchFilter, c *providers.Circle, inCircle int) (next *providers.Circle, last bool) {
	want := max(int64(CountCap), rules.Offset(f)+int64(f.PerPage))
	r := float64(firstNearRadius)
	if c != nil {
		if c.RadiusMeters >= f.Near.RadiusMeters || int64(inCircle) >= want {
			return nil, true
		}
		grow := 8.0
		if inCircle > 0 {
			grow = min(8, max(1.25, 1.15*math.Sqrt(float64(want)/float64(inCircle))))
		}
		r = c.RadiusMeters * grow
	}
	if r = math.Floor(r) + 0.5; r >= f.Near.RadiusMeters {
		return f.Near, false
	}
	return &providers.Circle{Center: f.Near.Center, RadiusMeters: math.Nextafter(r, 0)}, false
}

// RecordsByIDs reads in c the records with ids (at most rules.MaxPerPage),
// each by scan (the engine's scanProperty), in the order of ids.
func (q *Queries) RecordsByIDs(ctx context.Context, c Querier, ids []int64,
	scan func(Row) (*providers.Property, error)) ([]providers.Property, error) {
	props := make([]providers.Property, 0, len(ids))
	if len(ids) == 0 {
		return props, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	err := EachRow(ctx, c, q.ByIDs(len(ids)), args, func(r Row) error {
		p, err := scan(r)
		if err == nil {
			props = append(props, *p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return InOrder(props, ids), nil
}

// InOrder returns props ordered as ids (ByIDs reads them in any order).
func InOrder(props []providers.Property, ids []int64) []providers.Property {
	at := make(map[int64]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	slices.SortFunc(props, func(a, b providers.Property) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	return props
}

// SearchNear finds the page of a search near a point (f.Near) and its
// capped total in c, the same on both engines: for each circle NearRadius
// grows towards f.Near, it runs SearchNearRect's query for each rectangle
// of the circle's bounding box and adds every row's hit; NearPage then
// keeps and orders them. It returns the page's ids, for the engine to
// read, and the first error of a query as it is.
func (q *Queries) SearchNear(ctx context.Context, c Querier, f providers.SearchFilter) (ids []int64, total int, err error) {
	for circle, last := NearRadius(f, nil, 0); !last; circle, last = NearRadius(f, circle, total) {
		g := f
		g.Near = circle
		var hits []Hit
		b := rules.BoundingBox(circle.Center, circle.RadiusMeters)
		for _, lr := range b.Lngs {
			sql, args := q.SearchNearRect(g, b.South, b.North, lr.West, lr.East)
			err := EachRow(ctx, c, sql, args, func(r Row) error {
				var h Hit
				if err := r.Scan(&h.ID, &h.Lat, &h.Lng); err != nil {
					return err
				}
				hits = append(hits, h)
				return nil
			})
			if err != nil {
				return nil, 0, err
			}
		}
		ids, total = NearPage(g, hits)
	}
	return ids, min(total, CountCap), nil
}

// AreaBands returns the latitude bands an area from south to north
// crosses: the bands of each engine's properties_area_band index
// (migration 0007) and of the indexes made like it, whose expression is
// latitude * 200 truncated toward zero (0.005 degrees a band), as Go's
// conversion truncates, on the same doubles. An area is at most a degree
// tall (rules.CheckSearch): about 200 bands.
func AreaBands(south, north float64) []int32 {
	var out []int32
	for band := int64(south * 200); band <= int64(north*200); band++ {
		out = append(out, int32(band))
	}
	return out
}

// AreaBandList is AreaBands as a SQL list of integers.
func AreaBandList(south, north float64) string {
	var b strings.Builder
	for i, band := range AreaBands(south, north) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(int64(band), 10))
	}
	return b.String()
}
