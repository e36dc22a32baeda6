package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/engine"
)

// The seeded records live in seedZips ZIP codes from seedZip0 up, with
// bedrooms uniform over 0..5, so one ZIP holds rows/seedZips records of
// which half have 2 to 4 bedrooms: 5,000 at a million rows, enough for
// page 100 of 25.
const (
	seedZips  = 100
	seedZip0  = 20001
	seedChunk = 100_000
)

// searchZip is the ZIP code the search scenario filters on.
var searchZip = fmt.Sprint(seedZip0 + 42)

// seed writes rows synthetic records into the database at path (a SQLite
// file or a PostgreSQL URL) through the store engine (one transaction per
// chunk of seedChunk), not through the API: a million lookups would take
// hours of geocoding.
func seed(ctx context.Context, path string, rows int) error {
	db, err := engine.Open(ctx, path, engine.Options{})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	types := providers.PropertyTypes
	batch := make([]providers.Property, 0, min(rows, seedChunk))
	for i := range rows {
		z := i % seedZips
		beds := rng.IntN(6)
		typ := types[rng.IntN(len(types))]
		batch = append(batch, providers.Property{
			StreetAddress: fmt.Sprintf("%d BENCH ST", 100+i/seedZips),
			City:          "BENCHVILLE", State: "DC", ZipCode: fmt.Sprint(seedZip0 + z),
			County: "District of Columbia", FIPSCode: "11001", CensusTract: fmt.Sprintf("%06d", 100+z),
			Latitude:     38.80 + 0.2*rng.Float64(),
			Longitude:    -77.12 + 0.2*rng.Float64(),
			PropertyType: &typ, Bedrooms: &beds, Source: "bench-seed",
		})
		if len(batch) == cap(batch) || i == rows-1 {
			if err := db.SeedProperties(ctx, batch); err != nil {
				db.Close()
				return fmt.Errorf("seeding: %w", err)
			}
			batch = batch[:0]
		}
	}
	return db.Close()
}
