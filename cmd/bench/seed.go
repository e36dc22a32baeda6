package main

import (
	"context"
	"fmt"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/seeddata"
)

// seedChunk is how many records one transaction of the seed writes.
const seedChunk = 100_000

// searchZip is the ZIP code the search scenario filters on, in the
// District (seeddata).
var searchZip = fmt.Sprint(seeddata.Zip0 + 42)

// seed writes rows synthetic records (seeddata's, facts included) into
// the database at path (a SQLite file or a PostgreSQL URL) through the
// store engine (one transaction per chunk of seedChunk), not through the
// API: a million lookups would take hours of geocoding.
func seed(ctx context.Context, path string, rows int) error {
	db, err := engine.Open(ctx, path, engine.Options{})
	if err != nil {
		return err
	}
	gen := seeddata.New()
	batch := make([]providers.Property, 0, min(rows, seedChunk))
	for i := range rows {
		batch = append(batch, gen.Next())
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
