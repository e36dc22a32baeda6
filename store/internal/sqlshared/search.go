package sqlshared

import (
	"cmp"
	"slices"
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

// Search returns the page query and the count query for f, with the page
// query's arguments (the count query takes args minus the last two: the
// page size and the offset). f must have passed rules.CheckSearch and
// have no Near (see SearchNear).
//
// The page query is a deferred join: the inner SELECT finds the page's
// ids from a covering index (every filter column is in the index, and so
// is the id), sorting only ids when the index is not in id order, and the
// outer one reads just those rows. Sorting whole rows instead costs a table
// lookup per match: at a million rows, a state-wide search with a bedrooms
// filter took about half a second that way and takes milliseconds this
// way. City and State are compared upper-cased, County with its ASCII
// letters upper-cased, Zip, FIPSCode, CensusTract and PropertyTypes
// exactly, the fact bounds inclusively (a bound excludes records whose
// fact is unknown), a Box through the spatial index. Values are always
// bound parameters, never part of the SQL text, so quotes, '%' and '_' in
// them are plain data.
func (q *Queries) Search(f providers.SearchFilter) (page, count string, args []any) {
	var where strings.Builder
	args = q.where(&where, f, make([]any, 0, 16))
	from := "properties"
	if q.d.SearchFrom != nil {
		from = q.d.SearchFrom(f)
	}
	n, param := len(args), q.params[:]
	page = "SELECT " + PropertyColumns + ` FROM properties p WHERE p.id IN (
		SELECT id FROM ` + from + where.String() + ` ORDER BY id LIMIT ` + param[n+1] +
		` OFFSET ` + param[n+2] + `) ORDER BY p.id`
	count = "SELECT COUNT(*) FROM " + from + where.String()
	return page, count, append(args, f.PerPage, rules.Offset(f))
}

// SearchNear returns the statement selecting id, latitude and longitude
// of the records matching f's filters (f.Near aside) in one rectangle of
// f.Near's bounding box, and its arguments. A search near a point runs it
// once for each rectangle (rules.BoundingBox), keeps the rows within the
// radius and orders them (NearPage), then reads the page's rows by id
// (ByIDs).
func (q *Queries) SearchNear(f providers.SearchFilter, south, north, west, east float64) (string, []any) {
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

// InOrder returns props ordered as ids (ByIDs reads them in any order).
func InOrder(props []providers.Property, ids []int64) []providers.Property {
	at := make(map[int64]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	slices.SortFunc(props, func(a, b providers.Property) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	return props
}

// PageTotal returns the number of matches of a search whose page (of f)
// held n records, when the page alone tells: a short page is the last one,
// and an empty first page means none. Otherwise ok is false and the engine
// runs the count query, in the same snapshot as the page.
func PageTotal(f providers.SearchFilter, n int) (total int, ok bool) {
	offset := int(rules.Offset(f))
	if n > 0 && n < f.PerPage || n == 0 && offset == 0 {
		return offset + n, true
	}
	return 0, false
}
