package engine

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
	"github.com/propertyd/propertyd/store/seeddata"
)

// rowsEnv sets how many records TestSearchLatencyAtScale seeds; unset, the
// test does not run (a million takes minutes to seed).
const rowsEnv = "PROPERTYD_SEARCH_ROWS"

// keepEnv names a place to keep the seeded databases between runs, so a
// change to the search can be measured again without seeding again: a
// folder for the SQLite file (keep/p.db) and, on PostgreSQL, the name of a
// schema in the test server's database. A kept database that already holds
// the records is used as it is; delete the file or drop the schema to seed
// afresh.
const keepEnv = "PROPERTYD_SEARCH_KEEP"

// TestSearchLatencyAtScale seeds the same synthetic records into each
// engine as cmd/bench seeds them (package seeddata: 100 ZIP codes in four
// counties, bedrooms 0 to 5, the other facts in plausible proportions),
// and logs the median and 90th percentile time of a store search, 25 a
// page, on page 1 and page 100: by ZIP code and 2 to 4 bedrooms (the
// search the benchmark's search scenario makes over HTTP, without the
// HTTP), then each of the filters in searchCases alone, with the ZIP code
// and with the state, and the worst median of those on each engine. Run
// it with, for instance,
//
//	PROPERTYD_SEARCH_ROWS=1000000 PROPERTYD_TEST_POSTGRES=postgres://... \
//	  go test ./store/engine -run SearchLatency -v -timeout 60m
//
// It fails only when a search fails or finds nothing on page 1; the
// figures are for people.
func TestSearchLatencyAtScale(t *testing.T) {
	rows, _ := strconv.Atoi(os.Getenv(rowsEnv))
	if rows <= 0 {
		t.Skipf("set %s (e.g. 1000000) to measure search latency at that many records", rowsEnv)
	}
	keep := os.Getenv(keepEnv)
	t.Run("sqlite", func(t *testing.T) {
		if keep == "" {
			measureSearch(t, filepath.Join(t.TempDir(), "p.db"), rows)
			return
		}
		measureSearch(t, filepath.Join(keep, "p.db"), rows)
	})
	t.Run("postgres", func(t *testing.T) {
		if keep == "" {
			measureSearch(t, pgtest.Schema(t), rows)
			return
		}
		measureSearch(t, keptSchema(t, "propertyd_latency_"+filepath.Base(keep)), rows)
	})
}

// keptSchema returns the test server's URL with schema (created if
// missing, never dropped) as its search_path.
func keptSchema(t *testing.T, schema string) string {
	base := pgtest.URL(t)
	pgtest.Exec(t, base, "CREATE SCHEMA IF NOT EXISTS "+schema)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// searchCases are the filters the latency test times, each with values a
// client would send over seeddata's records; the place filters name the
// District, where the test's ZIP code (20043) is, so that they combine
// with it and with the state. They are broad on purpose: the District
// holds 60% of the records.
var searchCases = []struct {
	name string
	set  func(f *providers.SearchFilter)
}{
	{"min_bathrooms=2.5", func(f *providers.SearchFilter) { f.MinBathrooms = ptr(2.5) }},
	{"year_built 1950..1979", func(f *providers.SearchFilter) { f.MinYearBuilt, f.MaxYearBuilt = ptr(1950), ptr(1979) }},
	{"living_area 1500..2500", func(f *providers.SearchFilter) { f.MinLivingAreaSqft, f.MaxLivingAreaSqft = ptr(1500), ptr(2500) }},
	{"property_type=single_family,condo", func(f *providers.SearchFilter) { f.PropertyTypes = []string{"single_family", "condo"} }},
	{"county=district of columbia", func(f *providers.SearchFilter) { f.County = "district of columbia" }},
	{"fips_code=11001", func(f *providers.SearchFilter) { f.FIPSCode = "11001" }},
	{"fips_code=11001&census_tract=000226", func(f *providers.SearchFilter) { f.FIPSCode, f.CensusTract = "11001", "000226" }},
	{"lat,lng,radius_m=1000", func(f *providers.SearchFilter) {
		f.Near = &providers.Circle{Center: providers.Point{Lat: 38.90, Lng: -77.02}, RadiusMeters: 1000}
	}},
	{"bbox 0.02 degrees", func(f *providers.SearchFilter) {
		f.Box = &providers.BBox{West: -77.03, South: 38.89, East: -77.01, North: 38.91}
	}},
}

func measureSearch(t *testing.T, database string, rows int) {
	ctx := context.Background()
	db, err := Open(ctx, database, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if have, _, err := db.Counts(ctx); err != nil {
		t.Fatal(err)
	} else if have == rows {
		t.Logf("using the %d records already seeded", have)
	} else if have != 0 {
		t.Fatalf("the kept database holds %d records, not %d: delete it to seed afresh", have, rows)
	} else {
		start := time.Now()
		seedLikeBench(t, db, rows)
		t.Logf("seeded %d records in %v", rows, time.Since(start).Round(time.Millisecond))
	}
	const samples = 200
	for _, page := range []int{1, 100} {
		f := providers.SearchFilter{Zip: "20043", MinBedrooms: ptr(2), MaxBedrooms: ptr(4), Page: page, PerPage: 25}
		times, _ := timeSearch(t, db, f, samples)
		t.Logf("zip + bedrooms, page %3d: p50 %v, p90 %v, p99 %v (%d searches)", page,
			times[len(times)/2].Round(time.Microsecond), times[len(times)*9/10].Round(time.Microsecond),
			times[len(times)*99/100].Round(time.Microsecond), len(times))
	}
	type worstCase struct {
		name string
		p50  time.Duration
	}
	var worst worstCase
	worstPage := map[int]*worstCase{1: {}, 100: {}}
	over := 0
	for _, tc := range searchCases {
		for _, with := range []struct {
			name string
			set  func(f *providers.SearchFilter)
		}{
			{"", func(*providers.SearchFilter) {}},
			{" + zip", func(f *providers.SearchFilter) { f.Zip = "20043" }},
			{" + state", func(f *providers.SearchFilter) { f.State = "DC" }},
		} {
			for _, page := range []int{1, 100} {
				f := providers.SearchFilter{Page: page, PerPage: 25}
				tc.set(&f)
				with.set(&f)
				times, total := timeSearch(t, db, f, 20)
				p50 := times[len(times)/2]
				name := fmt.Sprintf("%s%s, page %d", tc.name, with.name, page)
				t.Logf("%-55s p50 %8v  p90 %8v  (%d matches)", name, p50.Round(time.Microsecond),
					times[len(times)*9/10].Round(time.Microsecond), total)
				if p50 > worst.p50 {
					worst.name, worst.p50 = name, p50
				}
				if w := worstPage[page]; p50 > w.p50 {
					w.name, w.p50 = name, p50
				}
				if p50 >= 10*time.Millisecond {
					over++
				}
			}
		}
	}
	for _, page := range []int{1, 100} {
		t.Logf("worst on page %d: %s, p50 %v", page, worstPage[page].name, worstPage[page].p50.Round(time.Microsecond))
	}
	t.Logf("worst: %s, p50 %v; %d of %d combinations at or over 10 ms", worst.name,
		worst.p50.Round(time.Microsecond), over, len(searchCases)*3*2)
}

// timeSearch runs f samples times after a few to warm the caches, and
// returns the times sorted and the total of matches.
func timeSearch(t *testing.T, db Store, f providers.SearchFilter, samples int) ([]time.Duration, int) {
	t.Helper()
	ctx := context.Background()
	times := make([]time.Duration, 0, samples)
	var total int
	for i := range samples + 3 {
		t0 := time.Now()
		got, n, err := db.Search(ctx, f)
		d := time.Since(t0)
		if err != nil || n == 0 || (len(got) == 0 && f.Page == 1) {
			t.Fatalf("Search(%+v) = %d records of %d, %v", f, len(got), n, err)
		}
		if i >= 3 {
			times = append(times, d)
		}
		total = n
	}
	slices.Sort(times)
	return times, total
}

// seedLikeBench writes rows records as cmd/bench's seed does, in chunks of
// 100,000.
func seedLikeBench(t *testing.T, db Store, rows int) {
	gen := seeddata.New()
	const chunk = 100_000
	batch := make([]providers.Property, 0, min(rows, chunk))
	for i := range rows {
		batch = append(batch, gen.Next())
		if len(batch) == cap(batch) || i == rows-1 {
			if err := db.SeedProperties(context.Background(), batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func ptr[T any](v T) *T { return &v }
