package postgres

import (
	"strconv"

	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// dialect is what PostgreSQL's SQL says differently from SQLite's; the
// statements both say alike are in sqlshared.
var dialect = sqlshared.Dialect{
	Param: func(n int) string { return "$" + strconv.Itoa(n) },

	// The points in the rectangle, through the GiST index on
	// point(longitude, latitude). box(point, point) takes two opposite
	// corners; <@ includes the edges.
	Nearest: "SELECT " + sqlshared.PropertyColumns + ` FROM properties p
	WHERE point(p.longitude, p.latitude) <@ box(point($3, $1), point($4, $2))`,
	// Every key in one statement, over the sorted array.
	SaveKeys: `INSERT INTO property_keys (key, property_id)
				SELECT k, $2 FROM unnest($1::text[]) AS k
				ON CONFLICT (key) DO UPDATE SET property_id = excluded.property_id
				WHERE property_keys.property_id <> excluded.property_id`,
	CopyKeys: `INSERT INTO property_keys (key, property_id)
				SELECT k, p.id FROM unnest($1::text[]) AS k, properties p
				WHERE p.id = $2 AND p.canonical IS NOT DISTINCT FROM $3 AND p.unit = $4 AND p.created_at = $5
				ON CONFLICT (key) DO NOTHING`,
	CreateMigrations: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer     PRIMARY KEY,
			name       text        NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`,

	// The planner picks the index from its statistics, which
	// SeedProperties and autovacuum keep current.
	SearchFrom:   nil,
	CityColumn:   "city_upper",
	StateColumn:  "state_upper",
	CountyColumn: "county_upper",
	// An area is the latitude bands of properties_area_band (0007) it
	// crosses, each sought by longitude: an index-only scan gives the
	// ids, the exact coordinates and the state and ZIP filters. The band
	// expression is the index's, written the same way.
	InBox: func(arg func(float64) string, south, north, west, east float64) string {
		return pgBand("latitude") + " IN (" + sqlshared.AreaBandList(south, north) + ")" +
			" AND longitude BETWEEN " + arg(west) + " AND " + arg(east) +
			" AND latitude BETWEEN " + arg(south) + " AND " + arg(north)
	},

	Unreachable: unreachable,
	RetryAfter:  RetryAfter,
}

// queries are the statements this engine sends, built once.
var queries = sqlshared.Build(&dialect)
