package store

import (
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// dialect is what SQLite's SQL says differently from PostgreSQL's; the
// statements both say alike are in sqlshared.
var dialect = sqlshared.Dialect{
	Param: func(int) string { return "?" },

	// A write that waited the whole busy timeout for another process's
	// transaction (a data load rebuilding the search indexes, say) is
	// database_unavailable, 503 with Retry-After, not an internal error:
	// asking again later works.
	Unreachable: isBusy,
	RetryAfter:  busyRetryAfter,

	// The R*Tree boxes that overlap the rectangle; the exact distance
	// decides afterwards.
	Nearest: "SELECT " + sqlshared.PropertyColumns + ` FROM properties_rtree r
	JOIN properties p ON p.id = r.id
	WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lng >= ? AND r.min_lng <= ?`,
	// One key a statement, prepared once a Save.
	SaveKeys: `INSERT INTO property_keys (key, property_id) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET property_id = excluded.property_id
			WHERE property_id <> excluded.property_id`,
	CopyKeys: `INSERT INTO property_keys (key, property_id)
				SELECT ?, id FROM properties WHERE id = ? AND canonical IS ? AND unit = ? AND created_at = ?
				ON CONFLICT (key) DO NOTHING`,
	CreateMigrations: `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
	)`,

	SearchFrom: func(f providers.SearchFilter) string {
		if f.Near != nil || f.Box != nil {
			// The area's bands in properties_area_band: a search
			// index the planner prefers for another filter (state)
			// would read a row per match of that filter.
			return "properties INDEXED BY properties_area_band"
		}
		if idx := searchIndex(f); idx != "" {
			return "properties INDEXED BY " + idx
		}
		return "properties"
	},
	// Walking the table in rowid order: without this, the planner may
	// take a filter's index and sort its matches, the very cost the walk
	// avoids.
	ScanHint:     " NOT INDEXED",
	CityColumn:   "city",
	StateColumn:  "state",
	CountyColumn: "county COLLATE NOCASE",
	// An area is the latitude bands of properties_area_band (0007) it
	// crosses, each sought by longitude: the index alone gives the ids,
	// the exact coordinates and the state and ZIP filters. The band
	// expression is the index's, written the same way.
	InBox: func(arg func(float64) string, south, north, west, east float64) string {
		return sqliteBand("latitude") + " IN (" + sqlshared.AreaBandList(south, north) + ")" +
			" AND longitude BETWEEN " + arg(west) + " AND " + arg(east) +
			" AND latitude BETWEEN " + arg(south) + " AND " + arg(north)
	},
}

// queries are the statements this engine sends, built once.
var queries = sqlshared.Build(&dialect)
