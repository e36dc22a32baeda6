package postgres

import (
	"context"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/store/internal/storetest"
)

// upgradedFrom returns the store opened on a schema that was at version
// (the embedded migrations up to it, not beyond) when the statements ran
// on it: the upgrade from there, as SQLite's tests of the same name do.
func upgradedFrom(t *testing.T, version int, stmts ...stmt) *DB {
	t.Helper()
	ctx := context.Background()
	u := freshSchema(t)
	before := mapFS{}
	names, err := fs.Glob(migrationFS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if v, err := strconv.Atoi(name[:4]); err != nil || v > version {
			continue
		}
		data, err := fs.ReadFile(migrationFS, name)
		if err != nil {
			t.Fatal(err)
		}
		before[name] = string(data)
	}
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, pool, before.fs()); err != nil {
		pool.Close()
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := pool.Exec(ctx, q.sql, q.args...); err != nil {
			pool.Close()
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	pool.Close()
	return openURL(t, u, nil)
}

// stmt is a statement and its arguments, as an earlier version wrote rows.
type stmt struct {
	sql  string
	args []any
}

// wkbSquare is the WKB of the polygon from (west, south) to (east, north).
func wkbSquare(south, west, north, east float64) []byte {
	raw, err := wkb.Marshal(orb.Polygon{{{west, south}, {east, south}, {east, north}, {west, north}, {west, south}}})
	if err != nil {
		panic(err)
	}
	return raw
}

// TestBuildingFactsServedBefore0016: as SQLite's test of the same name, a
// facts dataset of an extract's buildings copied into fact_rows before
// 0016 is served from there after the upgrade, and the extract's next load
// serves its buildings where they stand, the copies going.
func TestBuildingFactsServedBefore0016(t *testing.T) {
	db := upgradedFrom(t, 15, []stmt{
		{`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, row_count, loaded_at, point_rows)
			VALUES ('osm-dc', 'openstreetmap', 1048576, 1, '2026-01-01', 1, '2026-01-01T00:00:00.000Z', 1)`, nil},
		{`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng, property_type)
			VALUES ('osm-dc', 1, 'way/10', 38.8977, -77.0365, $1, 38.8976, 38.8978, -77.0366, -77.0364, 'single_family')`,
			[]any{wkbSquare(38.8976, -77.0366, 38.8978, -77.0364)}},
		{`INSERT INTO fact_parcel_bands (band, min_lng, id, min_lat, max_lat, max_lng)
			SELECT trunc(min_lat * 200)::integer, min_lng, id, min_lat, max_lat, max_lng FROM fact_rows`, nil},
	}...)
	storetest.BuildingFactsCopiedBefore0016Go(t, db, countIn(db))
}

// countIn runs a query of one number on db, for the checks of storetest
// that read the engine's tables.
func countIn(db *DB) func(t *testing.T, q string) int64 {
	return func(t *testing.T, q string) int64 {
		var n int64
		if err := db.pool.QueryRow(context.Background(), q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
}

// TestFeaturesKeptThrough0017: as SQLite's test of the same name, an
// extract loaded before 0017 is served after it, which dropped the
// tables' key of an element.
func TestFeaturesKeptThrough0017(t *testing.T) {
	db := upgradedFrom(t, 16, []stmt{{`INSERT INTO osm_generations (generation) VALUES (1)`, nil},
		{storetest.Before0017Extract, nil}, {storetest.Before0017Place, nil},
		{storetest.Before0017Address, nil}, {storetest.Before0017Building, nil}}...)
	storetest.FeaturesKeptThrough0017Go(t, db, countIn(db))
}

// TestFeaturesMoveIntoPartitionsThrough0018: an extract loaded at schema
// 17 is served after 0018 from partitions of its generation, indexed, with
// its ids; the tables of 0017 are gone, and the next load's features take
// ids after the ones moved.
func TestFeaturesMoveIntoPartitionsThrough0018(t *testing.T) {
	db := upgradedFrom(t, 17, []stmt{{`INSERT INTO osm_generations (generation) VALUES (1)`, nil},
		{storetest.Before0017Extract, nil}, {storetest.Before0017Place, nil},
		{storetest.Before0017Address, nil}, {storetest.Before0017Building, nil}}...)
	count := countIn(db)
	for q, want := range map[string]int64{
		`SELECT COUNT(*) FROM osm_places_g1 WHERE id = 7`:               1,
		`SELECT COUNT(*) FROM osm_addresses_g1 WHERE id = 8`:            1,
		`SELECT COUNT(*) FROM osm_buildings_g1 WHERE id = 9`:            1,
		`SELECT COUNT(*) FROM pg_class WHERE relname LIKE 'osm_%_0017'`: 0,
		// The indexes of each kind, built as 0018 moved the rows.
		`SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'osm_places_g1'`:    3,
		`SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'osm_addresses_g1'`: 1,
		`SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'osm_buildings_g1'`: 1,
	} {
		if n := count(t, q); n != want {
			t.Errorf("%s = %d after 0018, want %d", q, n, want)
		}
	}
	storetest.FeaturesKeptThrough0017Go(t, db, count)
	if n := count(t, `SELECT MIN(id) FROM osm_places WHERE generation = 2`); n <= 7 {
		t.Errorf("a new load's place has id %d, want one after the place moved (7)", n)
	}
}

// A record match=best made by taking one of several addresses loses its
// keys through 0019, as on SQLite.
func TestKeysOfABestChoiceGoThrough0019(t *testing.T) {
	var stmts []stmt
	for _, q := range storetest.Before0019Records {
		stmts = append(stmts, stmt{sql: q})
	}
	storetest.KeysOfABestChoiceGoThrough0019(t, upgradedFrom(t, 18, stmts...))
}

// TestFactsAndExtractsServedBefore0023AreDatasets: as SQLite's test of the
// same name, 0023 lists the assessor datasets and the extracts served
// before it in datasets, the import left out.
func TestFactsAndExtractsServedBefore0023AreDatasets(t *testing.T) {
	ctx := context.Background()
	db := upgradedFrom(t, 22,
		stmt{sql: `INSERT INTO fact_sets (dataset, source, priority, generation, as_of, fingerprint, row_count, matched, failed, loaded_at)
			VALUES ('cook', 'cook-county-assessor', 1, 3, '2026-09-30', 'fc', 228, 12, 6, '2026-10-01T00:00:00.000Z')`},
		stmt{sql: `INSERT INTO fact_sets (dataset, source, priority, generation, as_of, loaded_at)
			VALUES ('import', '', 0, 1, '2026-10-02', '2026-10-02T00:00:00.000Z')`},
		stmt{sql: `INSERT INTO osm_generations (generation) VALUES (4)`},
		stmt{sql: `INSERT INTO osm_extracts (name, generation, min_lat, max_lat, min_lng, max_lng, timestamp, fingerprint,
				places, buildings, addresses, skipped, loaded_at)
			VALUES ('dc', 4, 38.79, 38.99, -77.12, -76.90, '2026-11-20T03:00:00.000Z', 'fx', 10, 20, 30, 2, '2026-11-21T00:00:00.000Z')`},
		stmt{sql: `INSERT INTO dataset_retired (kind, generation) VALUES ('flood', 7)`},
	)
	ds, err := db.Datasets(ctx, "")
	if err != nil || len(ds) != 2 {
		t.Fatalf("Datasets after 0023 = %+v, %v; want cook and dc", ds, err)
	}
	x, cook := ds[0], ds[1]
	if cook.Kind != "parcels" || cook.Name != "cook" || cook.Generation != 3 || cook.Rows != 228 || cook.Failed != 6 ||
		cook.Vintage != "2026-09-30" || cook.LoadedAt.IsZero() ||
		string(cook.Meta) != `{"source" : "cook-county-assessor", "precedence" : 1, "matched" : 12}` {
		t.Errorf("the assessor dataset after 0023: %+v (meta %s)", cook, cook.Meta)
	}
	if x.Kind != "osm" || x.Name != "dc" || x.Generation != 4 || x.Rows != 60 || x.Failed != 2 || x.Vintage != "2026-11-20" ||
		x.Coverage.West != -77.12 {
		t.Errorf("the extract after 0023: %+v (meta %s)", x, x.Meta)
	}
	if v, err := db.DatasetsVersion(ctx); err != nil || v != "7.2" {
		t.Errorf("DatasetsVersion after 0023 = %q, %v; want the two datasets' (7.2)", v, err)
	}
	if ret, _ := db.RetiredGenerations(ctx, "flood"); len(ret) != 1 || ret[0].Generation != 7 || ret[0].Name != "" {
		t.Errorf("the retired generation after 0023: %+v", ret)
	}
}

// The address points and ranges served before 0025 move into tables of
// their generation, indexed and attached, and are found after it, as on
// SQLite; 0024's tables are gone.
func TestAddressesServedBefore0025MoveIntoTablesOfTheirGeneration(t *testing.T) {
	var stmts []stmt
	for _, s := range storetest.Before0025 {
		stmts = append(stmts, stmt{strings.Replace(s.SQL, "?", "$1", 1), s.Args})
	}
	db := upgradedFrom(t, 24, stmts...)
	count := countIn(db)
	for q, want := range map[string]int64{
		`SELECT COUNT(*) FROM address_points_g3 WHERE id = 11`:                                                              1,
		`SELECT COUNT(*) FROM address_ranges_g3 WHERE id = 12`:                                                              1,
		`SELECT COUNT(*) FROM pg_inherits WHERE inhrelid IN ('address_points_g3'::regclass, 'address_ranges_g3'::regclass)`: 2,
		`SELECT COUNT(*) FROM pg_indexes WHERE tablename IN ('address_points_g3', 'address_ranges_g3')`:                     2,
		`SELECT COUNT(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace
			AND (relname LIKE 'address%0024' OR relname LIKE 'address%staged%')`: 0,
	} {
		if n := count(t, q); n != want {
			t.Errorf("%s = %d after 0025, want %d", q, n, want)
		}
	}
	storetest.AddressesKeptThrough0025(t, db)
}
