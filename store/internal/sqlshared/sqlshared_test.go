package sqlshared

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// numbered is a dialect with PostgreSQL's numbered placeholders and
// SQLite-like extras; question is one with SQLite's '?'.
var (
	numbered = &Dialect{
		Param:        func(n int) string { return "$" + strconv.Itoa(n) },
		Nearest:      "SELECT 1 WHERE $1 < $2 AND $3 < $4",
		CityColumn:   "city_upper",
		StateColumn:  "state_upper",
		CountyColumn: "county_upper",
		InBox: func(arg func(float64) string, s, n, w, e float64) string {
			return "point(longitude, latitude) <@ box(point(" + arg(w) + ", " + arg(s) + "), point(" + arg(e) + ", " + arg(n) + "))"
		},
	}
	question = &Dialect{
		Param:       func(int) string { return "?" },
		Nearest:     "SELECT 1 WHERE ? < ? AND ? < ?",
		CityColumn:  "city",
		StateColumn: "state",
		SearchFrom:  func(providers.SearchFilter) string { return "properties INDEXED BY properties_zip" },
	}
)

var placeholderRE = regexp.MustCompile(`\$(\d+)`)

// checkNumbered fails unless sql's placeholders are $1 to $n, each used,
// and no '?' is left: a statement sent with a stray '?' or a gap would
// fail on PostgreSQL with a syntax error or a wrong argument count.
func checkNumbered(t *testing.T, name, sql string) {
	t.Helper()
	if strings.Contains(sql, "?") {
		t.Errorf("%s keeps a '?' placeholder: %s", name, sql)
	}
	seen := map[int]bool{}
	top := 0
	for _, m := range placeholderRE.FindAllStringSubmatch(sql, -1) {
		n, _ := strconv.Atoi(m[1])
		seen[n] = true
		top = max(top, n)
	}
	for n := 1; n <= top; n++ {
		if !seen[n] {
			t.Errorf("%s skips $%d: %s", name, n, sql)
		}
	}
}

// Every shared statement has its arguments numbered in order on a
// numbered dialect, and is the text as written on a '?' one.
func TestBuildGivesEachDialectItsPlaceholders(t *testing.T) {
	q, qq := Build(numbered), Build(question)
	v, vq := reflect.ValueOf(q).Elem(), reflect.ValueOf(qq).Elem()
	statements := 0
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Type.Kind() != reflect.String || !f.IsExported() {
			continue
		}
		statements++
		sql, sqlq := v.Field(i).String(), vq.Field(i).String()
		if sql == "" && f.Name != "SaveKeys" && f.Name != "CopyKeys" && f.Name != "CreateMigrations" {
			t.Errorf("%s is empty", f.Name)
		}
		checkNumbered(t, f.Name, sql)
		if got := placeholderRE.ReplaceAllString(sql, "?"); got != sqlq {
			t.Errorf("%s differs between the dialects beyond placeholders:\n%s\n%s", f.Name, got, sqlq)
		}
	}
	if statements < 18 {
		t.Fatalf("checked %d statements; the walk over Queries missed some", statements)
	}
	if want := 18; strings.Count(qq.InsertProperty, "?") != want {
		t.Errorf("InsertProperty takes %d arguments, want %d", strings.Count(qq.InsertProperty, "?"), want)
	}
}

func TestSearchBindsEveryFilterInOrder(t *testing.T) {
	two := 2
	all := providers.SearchFilter{Zip: "78701", State: "tx", City: "o'fallon", PropertyTypes: []string{"condo"},
		MinBedrooms: &two, MaxBedrooms: &two, Page: 3, PerPage: 20}
	q, args := Build(numbered).Search(all)
	for name, sql := range map[string]string{"by index": q.ByIndex, "by id": q.ByID, "count": q.Count, "sample": q.Sample} {
		checkNumbered(t, name, sql)
		if strings.Contains(sql, "FALLON") || strings.Contains(sql, "78701") {
			t.Errorf("a filter value is in the SQL text, not bound: %q", sql)
		}
	}
	wantWhere := " WHERE zip_code = $1 AND state_upper = $2 AND city_upper = $3 AND property_type = $4" +
		" AND bedrooms >= $5 AND bedrooms <= $6"
	if q.Count != "SELECT COUNT(*) FROM (SELECT 1 FROM properties"+wantWhere+" LIMIT 10001) m" {
		t.Errorf("count query = %q", q.Count)
	}
	if !strings.Contains(q.ByIndex, "SELECT id FROM properties"+wantWhere+" ORDER BY id LIMIT $7 OFFSET $8)") {
		t.Errorf("page query by index = %q", q.ByIndex)
	}
	if !strings.HasSuffix(q.ByID, " FROM properties p"+wantWhere+" ORDER BY p.id LIMIT $7 OFFSET $8") {
		t.Errorf("page query by id = %q", q.ByID)
	}
	if q.Sample != "SELECT COUNT(*) FROM (SELECT * FROM properties ORDER BY id LIMIT 1024) s"+wantWhere {
		t.Errorf("sample query = %q", q.Sample)
	}
	want := []any{"78701", "TX", "O'FALLON", "condo", 2, 2, 20, int64(40)}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("args = %#v, want %#v", args, want)
	}

	q, args = Build(question).Search(providers.SearchFilter{Zip: "78701", Page: 1, PerPage: 5})
	if q.Count != "SELECT COUNT(*) FROM (SELECT 1 FROM properties INDEXED BY properties_zip WHERE zip_code = ? LIMIT 10001) m" {
		t.Errorf("count query = %q", q.Count)
	}
	if !strings.Contains(q.ByIndex, "SELECT id FROM properties INDEXED BY properties_zip WHERE zip_code = ? ORDER BY id LIMIT ? OFFSET ?)") {
		t.Errorf("page query = %q", q.ByIndex)
	}
	if !strings.Contains(q.ByID, " FROM properties p WHERE zip_code = ? ORDER BY p.id LIMIT ? OFFSET ?") {
		t.Errorf("page query by id = %q", q.ByID)
	}
	if !reflect.DeepEqual(args, []any{"78701", 5, int64(0)}) {
		t.Errorf("args = %#v", args)
	}

	q, args = Build(numbered).Search(providers.SearchFilter{Page: 1, PerPage: 5})
	if q.Count != "SELECT COUNT(*) FROM (SELECT 1 FROM properties LIMIT 10001) m" || len(args) != 2 ||
		q.Sample != "SELECT COUNT(*) FROM (SELECT * FROM properties ORDER BY id LIMIT 1024) s" {
		t.Errorf("an unfiltered search: count %q, sample %q, args %v", q.Count, q.Sample, args)
	}
}

// Every new filter is bound in the order written, the types of a list
// each as its own argument, and the county upper-cased in ASCII only
// (as SQLite's NOCASE and PostgreSQL's upper() in "C" fold it).
func TestSearchBindsTheFactAndPlaceFilters(t *testing.T) {
	one, y0, y1, a0, a1, baths := 1, 1950, 1979, 900, 2500, 1.5
	f := providers.SearchFilter{County: "doña ana county", FIPSCode: "35013", CensusTract: "000100",
		PropertyTypes: []string{"condo", "townhouse"}, MinBedrooms: &one, MinBathrooms: &baths,
		MinYearBuilt: &y0, MaxYearBuilt: &y1, MinLivingAreaSqft: &a0, MaxLivingAreaSqft: &a1,
		Box: &providers.BBox{West: -107, South: 32, East: -106.5, North: 32.5}, Page: 2, PerPage: 10}
	q, args := Build(numbered).Search(f)
	checkNumbered(t, "page", q.ByIndex)
	checkNumbered(t, "count", q.Count)
	wantWhere := " WHERE county_upper = $1 AND fips_code = $2 AND census_tract = $3 AND property_type IN ($4, $5)" +
		" AND bedrooms >= $6 AND bathrooms >= $7 AND year_built >= $8 AND year_built <= $9" +
		" AND living_area_sqft >= $10 AND living_area_sqft <= $11" +
		" AND point(longitude, latitude) <@ box(point($12, $13), point($14, $15))"
	if q.Count != "SELECT COUNT(*) FROM (SELECT 1 FROM properties"+wantWhere+" LIMIT 10001) m" {
		t.Errorf("count query = %q", q.Count)
	}
	want := []any{"DOñA ANA COUNTY", "35013", "000100", "condo", "townhouse", 1, 1.5, 1950, 1979, 900, 2500,
		-107.0, 32.0, -106.5, 32.5, 10, int64(10)}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("args = %#v, want %#v", args, want)
	}
	f.Box, f.Near = nil, &providers.Circle{Center: providers.Point{Lat: 32.3, Lng: -106.8}, RadiusMeters: 500}
	near, nargs := Build(numbered).SearchNearRect(f, 32.2, 32.4, -106.9, -106.7)
	checkNumbered(t, "near", near)
	if !strings.HasPrefix(near, "SELECT id, latitude, longitude FROM properties WHERE county_upper = $1") ||
		len(nargs) != 15 || nargs[11] != -106.9 {
		t.Errorf("near query = %q, args %v", near, nargs)
	}
	ids := Build(numbered).ByIDs(3)
	checkNumbered(t, "by ids", ids)
}

// A search near a point orders by the distance shown (whole metres), then
// id, counts each record once (rectangles touching at ±180° may both
// hold it) and leaves out the box's corners beyond the radius.
func TestNearPageOrdersByDistanceThenID(t *testing.T) {
	c := &providers.Circle{Center: providers.Point{Lat: 0, Lng: 0}, RadiusMeters: 1000}
	deg := 1 / 111195.08 // about a metre of latitude, in degrees
	hits := []Hit{
		{ID: 5, Lat: 300 * deg}, {ID: 2, Lat: 100.2 * deg}, {ID: 9, Lat: 99.9 * deg}, {ID: 4, Lat: 2000 * deg},
		{ID: 7, Lat: 800 * deg, Lng: 800 * deg}, {ID: 2, Lat: 100.2 * deg}, {ID: 1, Lat: 999 * deg},
	}
	for _, tc := range []struct {
		page, perPage int
		want          []int64
	}{
		{1, 10, []int64{2, 9, 5, 1}}, {1, 2, []int64{2, 9}}, {2, 2, []int64{5, 1}}, {3, 2, []int64{}},
	} {
		ids, total := NearPage(providers.SearchFilter{Near: c, Page: tc.page, PerPage: tc.perPage}, hits)
		if !reflect.DeepEqual(ids, tc.want) || total != 4 {
			t.Errorf("page %d of %d: ids %v total %d, want %v total 4", tc.page, tc.perPage, ids, total, tc.want)
		}
	}
}

// A search walks the table in id order only when its matches reached the
// count's cap and the sample says the page lies within walkBudget records;
// otherwise it sorts its matches' ids from its index.
func TestUseByIDWalksOnlyForDenseBroadSearches(t *testing.T) {
	box := &providers.BBox{West: -77.1, South: 38.8, East: -77, North: 38.9}
	for _, tc := range []struct {
		name           string
		f              providers.SearchFilter
		count, sampled int
		want           bool
	}{
		{"few matches", providers.SearchFilter{Page: 1, PerPage: 25}, CountCap - 1, 1024, false},
		{"many, dense, page 1", providers.SearchFilter{Page: 1, PerPage: 25}, CountCap, 100, true},
		{"many, dense, page 100", providers.SearchFilter{Page: 100, PerPage: 25}, CountCap, 100, true},
		{"many, sparse, page 100", providers.SearchFilter{Page: 100, PerPage: 25}, CountCap, 10, false},
		{"many, sparse, page 1", providers.SearchFilter{Page: 1, PerPage: 25}, CountCap, 10, true},
		{"many, none in the sample", providers.SearchFilter{Page: 1, PerPage: 25}, CountCap, 0, false},
		{"many, deep page", providers.SearchFilter{Page: 4000, PerPage: 25}, CountCap, 1024, false},
		{"a box", providers.SearchFilter{Box: box, Page: 1, PerPage: 25}, CountCap, 1024, false},
	} {
		if got := UseByID(tc.f, tc.count, tc.sampled); got != tc.want {
			t.Errorf("%s: UseByID(count %d, sampled %d) = %v, want %v", tc.name, tc.count, tc.sampled, got, tc.want)
		}
	}
}

var errGone = errors.New("connection refused")

func TestErrMapsDriverErrorsAlikeOnEveryEngine(t *testing.T) {
	server := &Dialect{Unreachable: func(err error) bool { return errors.Is(err, errGone) }, RetryAfter: 5 * time.Second}
	file := &Dialect{}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	for _, tc := range []struct {
		name  string
		d     *Dialect
		ctx   context.Context
		err   error
		kind  providers.Kind
		retry time.Duration
	}{
		{"a store error as it is", file, bg, providers.NotFound(providers.CodePropertyNotFound, "none"), providers.KindNotFound, 0},
		{"a cancelled caller", file, cancelled, errors.New("interrupted"), providers.KindCanceled, 0},
		{"a server gone away", server, bg, fmt.Errorf("dial: %w", errGone), providers.KindUnavailable, 5 * time.Second},
		{"a cancelled caller of a server gone away", server, cancelled, errGone, providers.KindCanceled, 0},
		{"a file is never unreachable", file, bg, errGone, providers.KindInternal, 0},
		{"a failed statement", server, bg, errors.New(`syntax error near "SELECT"`), providers.KindInternal, 0},
	} {
		err := tc.d.Err(tc.ctx, tc.err)
		var pe *providers.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v (%T) is not a *providers.Error", tc.name, err, err)
		}
		if pe.Kind != tc.kind || pe.RetryAfter != tc.retry {
			t.Errorf("%s: kind %d retry %v (%v), want kind %d retry %v", tc.name, pe.Kind, pe.RetryAfter, err, tc.kind, tc.retry)
		}
		if pe.Kind == providers.KindInternal && pe.Message != "database error" {
			t.Errorf("%s: a client would read %q, want the generic \"database error\"", tc.name, pe.Message)
		}
	}
	if err := file.Err(bg, nil); err != nil {
		t.Errorf("Err(nil) = %v, want nil", err)
	}
}

// A search near a point reads 1 km first, then circles grown from the
// matches found, each just under a half metre so that its page is the
// whole radius's, and stops at the radius or once a circle holds the cap.
func TestNearRadiusGrowsTowardsTheRadius(t *testing.T) {
	center := providers.Point{Lat: 30, Lng: -97}
	f := providers.SearchFilter{Near: &providers.Circle{Center: center, RadiusMeters: 50_000}, Page: 1, PerPage: 25}
	c, last := NearRadius(f, nil, 0)
	if last || c.RadiusMeters >= 1000.5 || c.RadiusMeters < 1000.4999 || c.Center != center {
		t.Fatalf("first circle %+v (last %v), want just under 1000.5 m around %v", c, last, center)
	}
	if _, last := NearRadius(f, c, CountCap); !last {
		t.Error("a circle holding the cap is not the last")
	}
	if next, _ := NearRadius(f, c, 0); next.RadiusMeters >= 8004 || next.RadiusMeters < 8000 {
		t.Errorf("after an empty circle: %v m, want 8 km", next.RadiusMeters)
	}
	if next, _ := NearRadius(f, c, 2500); next.RadiusMeters < 2300 || next.RadiusMeters > 2400 {
		t.Errorf("after 2,500 matches in 1 km: %v m, want about 1.15 × 2 km", next.RadiusMeters)
	}
	if next, _ := NearRadius(f, c, 9000); next.RadiusMeters < 1250 || next.RadiusMeters > 1251 {
		t.Errorf("after 9,000 matches in 1 km: %v m, want a quarter more", next.RadiusMeters)
	}
	deep := f
	deep.Page = 1000
	if _, last := NearRadius(deep, c, CountCap); last {
		t.Error("a circle holding the cap but not page 1000 of 25 is the last")
	}
	small := f
	small.Near = &providers.Circle{Center: center, RadiusMeters: 1000}
	if c, last := NearRadius(small, nil, 0); last || c != small.Near {
		t.Errorf("a 1 km search reads %+v first, want the radius itself", c)
	}
	if _, last := NearRadius(small, small.Near, 3); !last {
		t.Error("the radius itself is not the last circle")
	}
	odd := f
	odd.Near = &providers.Circle{Center: center, RadiusMeters: 1200.2}
	if next, _ := NearRadius(odd, c, 9000); next != odd.Near {
		t.Errorf("a circle past the radius: %+v, want the radius", next)
	}
}

// A search in a box takes its total and its page from the first CountCap
// matches in id order, unless its page lies past them.
func TestBoxPageTakesThePageFromTheFirstMatches(t *testing.T) {
	ids := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(i + 1)
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		page, perPage int
		n             int
		want          []int64
		total         int
		ok            bool
	}{
		{"none", 1, 25, 0, []int64{}, 0, true},
		{"a short first page", 1, 25, 3, []int64{1, 2, 3}, 3, true},
		{"past the end", 3, 2, 3, []int64{}, 3, true},
		{"the last page of the cap", CountCap, 1, CountCap, []int64{CountCap}, CountCap, true},
		{"past the cap", CountCap/100 + 1, 100, CountCap, nil, CountCap, false},
		{"a later page", 2, 2, 5, []int64{3, 4}, 5, true},
	} {
		page, total, ok := BoxPage(providers.SearchFilter{Page: tc.page, PerPage: tc.perPage}, ids(tc.n))
		if !reflect.DeepEqual(page, tc.want) || total != tc.total || ok != tc.ok {
			t.Errorf("%s: BoxPage = %v, %d, %v; want %v, %d, %v", tc.name, page, total, ok, tc.want, tc.total, tc.ok)
		}
	}
}
