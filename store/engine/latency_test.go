package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/propertyd/propertyd/internal/pgtest"
	"github.com/propertyd/propertyd/providers"
)

// rowsEnv sets how many records TestSearchLatencyAtScale seeds; unset, the
// test does not run (a million takes minutes to seed).
const rowsEnv = "PROPERTYD_SEARCH_ROWS"

// TestSearchLatencyAtScale seeds the same synthetic records into each
// engine, as cmd/bench seeds them (100 ZIP codes, bedrooms 0 to 5), and
// logs the median and 90th percentile time of a store search by ZIP code
// and 2 to 4 bedrooms, 25 a page, on page 1 and page 100: the search the
// benchmark's search scenario makes over HTTP, without the HTTP. Run it
// with, for instance,
//
//	PROPERTYD_SEARCH_ROWS=1000000 PROPERTYD_TEST_POSTGRES=postgres://... \
//	  go test ./store/engine -run SearchLatency -v -timeout 30m
//
// It fails only when a search fails or finds nothing; the figures are for
// people.
func TestSearchLatencyAtScale(t *testing.T) {
	rows, _ := strconv.Atoi(os.Getenv(rowsEnv))
	if rows <= 0 {
		t.Skipf("set %s (e.g. 1000000) to measure search latency at that many records", rowsEnv)
	}
	t.Run("sqlite", func(t *testing.T) { measureSearch(t, filepath.Join(t.TempDir(), "p.db"), rows) })
	t.Run("postgres", func(t *testing.T) { measureSearch(t, pgtest.Schema(t), rows) })
}

func measureSearch(t *testing.T, database string, rows int) {
	ctx := context.Background()
	db, err := Open(ctx, database, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	seedLikeBench(t, db, rows)
	t.Logf("seeded %d records in %v", rows, time.Since(start).Round(time.Millisecond))
	const samples = 200
	for _, page := range []int{1, 100} {
		f := providers.SearchFilter{Zip: "20043", MinBedrooms: ptr(2), MaxBedrooms: ptr(4), Page: page, PerPage: 25}
		times := make([]time.Duration, 0, samples)
		for i := range samples + 10 {
			t0 := time.Now()
			got, total, err := db.Search(ctx, f)
			d := time.Since(t0)
			if err != nil || len(got) == 0 {
				t.Fatalf("Search(%+v) = %d records of %d, %v", f, len(got), total, err)
			}
			if i >= 10 { // the first few warm the caches
				times = append(times, d)
			}
		}
		slices.Sort(times)
		t.Logf("page %3d: p50 %v, p90 %v, p99 %v (%d searches)", page,
			times[len(times)/2].Round(time.Microsecond), times[len(times)*9/10].Round(time.Microsecond),
			times[len(times)*99/100].Round(time.Microsecond), len(times))
	}
}

// seedLikeBench writes rows records as cmd/bench's seed does, in chunks of
// 100,000.
func seedLikeBench(t *testing.T, db Store, rows int) {
	rng := rand.New(rand.NewPCG(1, 2))
	types := providers.PropertyTypes
	const chunk = 100_000
	batch := make([]providers.Property, 0, min(rows, chunk))
	for i := range rows {
		z := i % 100
		beds := rng.IntN(6)
		typ := types[rng.IntN(len(types))]
		batch = append(batch, providers.Property{
			StreetAddress: fmt.Sprintf("%d BENCH ST", 100+i/100),
			City:          "BENCHVILLE", State: "DC", ZipCode: fmt.Sprint(20001 + z),
			County: "District of Columbia", FIPSCode: "11001", CensusTract: fmt.Sprintf("%06d", 100+z),
			Latitude: 38.80 + 0.2*rng.Float64(), Longitude: -77.12 + 0.2*rng.Float64(),
			PropertyType: &typ, Bedrooms: &beds, Source: "bench-seed",
		})
		if len(batch) == cap(batch) || i == rows-1 {
			if err := db.SeedProperties(context.Background(), batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func ptr[T any](v T) *T { return &v }
