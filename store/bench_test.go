package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

const benchRows = 200_000

var (
	benchOnce sync.Once
	benchDir  string
	benchDB   *DB
	benchErr  error
)

// TestMain removes the shared benchmark database after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDB != nil {
		benchDB.Close()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchStore returns a database seeded with benchRows records spread over
// 2,000 zips (about 100 each), shared by the benchmarks of one run.
func benchStore(b *testing.B) *DB {
	b.Helper()
	if testing.Short() {
		b.Skip("seeds a large database")
	}
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "propertyd-store-bench")
		if benchErr != nil {
			return
		}
		benchDB, benchErr = Open(context.Background(), filepath.Join(benchDir, "bench.db"), Options{})
		if benchErr != nil {
			return
		}
		seedSpread(b, benchDB, benchRows)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDB
}

// BenchmarkSearch runs the searches a client makes, each on the index
// searchIndex picks for it, over 200,000 records.
func BenchmarkSearch(b *testing.B) {
	db := benchStore(b)
	ctx := context.Background()
	types := providers.PropertyTypes
	for _, bc := range []struct {
		name   string
		filter func(rng *rand.Rand) providers.SearchFilter
	}{
		{"zip and bedrooms", func(rng *rand.Rand) providers.SearchFilter {
			return providers.SearchFilter{Zip: fmt.Sprintf("%05d", 10000+rng.IntN(2000)), MinBedrooms: ptrInt(2), MaxBedrooms: ptrInt(4), Page: 1, PerPage: 20}
		}},
		{"state and bedrooms", func(rng *rand.Rand) providers.SearchFilter {
			return providers.SearchFilter{State: fmt.Sprintf("S%d", rng.IntN(50)), MinBedrooms: ptrInt(3), Page: 1 + rng.IntN(10), PerPage: 20}
		}},
		{"city", func(rng *rand.Rand) providers.SearchFilter {
			return providers.SearchFilter{City: fmt.Sprintf("CITY%d", rng.IntN(200)), Page: 1 + rng.IntN(5), PerPage: 20}
		}},
		{"city, type and bedrooms", func(rng *rand.Rand) providers.SearchFilter {
			return providers.SearchFilter{City: fmt.Sprintf("CITY%d", rng.IntN(200)), PropertyTypes: []string{types[rng.IntN(len(types))]}, MinBedrooms: ptrInt(2), Page: 1, PerPage: 20}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			b.ReportAllocs()
			for b.Loop() {
				f := bc.filter(rng)
				got, total, err := db.Search(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				if total == 0 || len(got) == 0 {
					b.Fatalf("Search(%+v) found nothing in a seeded database", f)
				}
			}
		})
	}
}

func BenchmarkPropertyByID(b *testing.B) {
	db := benchStore(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := db.Property(ctx, 1+rng.Int64N(benchRows)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNearest(b *testing.B) {
	db := benchStore(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p := providers.Point{Lat: 25 + rng.Float64()*24, Lng: -124 + rng.Float64()*57}
		if _, err := db.Nearest(ctx, p, 5000); err != nil && providers.KindOf(err) != providers.KindNotFound {
			b.Fatal(err)
		}
	}
}

func BenchmarkSave(b *testing.B) {
	db := openInternal(b)
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		np := providers.NewProperty{
			Property:  providers.Property{StreetAddress: fmt.Sprintf("%d ELM ST", i), City: "AUSTIN", State: "TX", ZipCode: "78701", Latitude: 30.27, Longitude: -97.74},
			Canonical: fmt.Sprintf("%d ELM ST, AUSTIN, TX, 78701", i),
			Keys:      []string{fmt.Sprintf("%d elm st|austin|tx|78701", i)},
		}
		if _, _, err := db.Save(ctx, np); err != nil {
			b.Fatal(err)
		}
	}
}
