package store

import (
	"context"
	"database/sql"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/rules"
)

// SeedProperties inserts props as new records, facts and their provenance
// (FactsOrigin) as they are, in one transaction with one
// prepared statement, for bulk imports and benchmarks: tens of thousands of
// rows a second even on a small machine (a million took under a minute on two
// cores). It holds the writer connection throughout, so other writes wait
// for it; seed in chunks of, say, 100,000 while serving. Each record gets a new id (Property.ID is ignored) and no
// canonical address (NULL) and no keys, so seeded records are found by id,
// Search and Nearest but never matched by Save: a later Save of the same
// address creates a separate record. Assessor facts join a seeded record
// by its StreetAddress, ZipCode and Unit taken as its canonical address.
// Zero CreatedAt/UpdatedAt become now. Nothing is inserted if any record
// fails.
func (db *DB) SeedProperties(ctx context.Context, props []providers.Property) (err error) {
	for i := range props {
		if err := rules.CheckCoordinates(props[i].Latitude, props[i].Longitude); err != nil {
			return err
		}
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return dbErr(ctx, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO properties (street_address, unit, city, state,
			zip_code, county, fips_code, census_tract, latitude, longitude, property_type, bedrooms,
			bathrooms, living_area_sqft, lot_sqft, year_built, stories, units, facts,
			source, created_at, updated_at, facts_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return dbErr(ctx, err)
	}
	defer stmt.Close()
	now := db.stamp()
	for i := range props {
		p := &props[i]
		created, updated := p.CreatedAt, p.UpdatedAt
		if created.IsZero() {
			created = now
		}
		if updated.IsZero() {
			updated = created
		}
		if _, err := stmt.ExecContext(ctx, p.StreetAddress, p.Unit, p.City, p.State, p.ZipCode,
			p.County, p.FIPSCode, p.CensusTract, p.Latitude, p.Longitude, nullString(p.PropertyType),
			nullInt(p.Bedrooms), p.Bathrooms, nullInt(p.LivingAreaSqft), nullInt(p.LotSqft), nullInt(p.YearBuilt),
			p.Stories, nullInt(p.Units), sql.NullString{String: p.FactsOrigin, Valid: p.FactsOrigin != ""},
			p.Source, formatTime(created), formatTime(updated), providers.FactsKey(p.StreetAddress, p.ZipCode, p.Unit)); err != nil {
			return dbErr(ctx, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return dbErr(ctx, err)
	}
	return nil
}
