package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// seedColumns are the columns SeedProperties copies, in the order of the
// rows it sends.
var seedColumns = []string{"street_address", "unit", "city", "state", "zip_code", "county", "fips_code",
	"census_tract", "latitude", "longitude", "property_type", "bedrooms", "bathrooms", "living_area_sqft", "lot_sqft",
	"year_built", "stories", "units", "facts", "source", "created_at", "updated_at", "facts_key"}

// SeedProperties inserts props as new records, facts and their provenance
// (FactsOrigin) as they are, with one COPY, for bulk
// imports and benchmarks: a COPY is a single statement, so nothing is
// inserted if any record fails, and it loads hundreds of thousands of rows
// a second. Each record gets a new id (Property.ID is ignored) and no
// canonical address (NULL) and no keys, so seeded records are found by id,
// Search and Nearest but never matched by Save: a later Save of the same
// address creates a separate record. Assessor facts join a seeded record
// by its StreetAddress, ZipCode and Unit taken as its canonical address.
// Zero CreatedAt/UpdatedAt become now.
//
// After the load it vacuums and analyzes the table, so searches answer
// from their indexes alone (index-only scans need the visibility map) and
// the planner knows the new rows at once rather than when autovacuum gets
// to them; vacuum skips the pages it already saw, so seeding in chunks
// stays linear.
func (db *DB) SeedProperties(ctx context.Context, props []providers.Property) error {
	for i := range props {
		if err := rules.CheckCoordinates(props[i].Latitude, props[i].Longitude); err != nil {
			return err
		}
	}
	now := db.stamp()
	rows := make([][]any, len(props))
	for i := range props {
		p := &props[i]
		created, updated := rules.Stamp(p.CreatedAt), rules.Stamp(p.UpdatedAt)
		if p.CreatedAt.IsZero() {
			created = now
		}
		if p.UpdatedAt.IsZero() {
			updated = created
		}
		var facts *string
		if p.FactsOrigin != "" {
			facts = &p.FactsOrigin
		}
		rows[i] = []any{p.StreetAddress, p.Unit, p.City, p.State, p.ZipCode, p.County, p.FIPSCode,
			p.CensusTract, p.Latitude, p.Longitude, p.PropertyType, p.Bedrooms, p.Bathrooms, p.LivingAreaSqft,
			p.LotSqft, p.YearBuilt, p.Stories, p.Units, facts, p.Source, created, updated,
			providers.FactsKey(p.StreetAddress, p.ZipCode, p.Unit)}
	}
	if _, err := db.pool.CopyFrom(ctx, pgx.Identifier{"properties"}, seedColumns, pgx.CopyFromRows(rows)); err != nil {
		return dbErr(ctx, err)
	}
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) properties"); err != nil {
		return dbErr(ctx, err)
	}
	return nil
}
