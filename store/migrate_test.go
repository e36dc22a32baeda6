package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/storetest"
)

// Migrations are numbered upward from 1. Gaps are allowed: work on two
// branches numbers its migrations apart, and the version that a database
// holds still means one schema.
func TestEmbeddedMigrationsAreNumberedFromOne(t *testing.T) {
	vs := embeddedVersions(t)
	if len(vs) == 0 || vs[0] != 1 {
		t.Fatalf("migration versions %v, want them to start at 1", vs)
	}
	for i := 1; i < len(vs); i++ {
		if vs[i] <= vs[i-1] {
			t.Fatalf("migration versions %v are not increasing", vs)
		}
	}
}

// embeddedVersions are the versions of the embedded migrations, in order:
// what a database holds once Open migrated it.
func embeddedVersions(t *testing.T) []int {
	t.Helper()
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	var vs []int
	for _, m := range ms {
		vs = append(vs, m.Version)
	}
	return vs
}

// failingMigrations are the embedded migrations as applied already
// ("SELECT 1", skipped), then a good one and a failing one past them; it
// returns the versions a database holds once the good one is applied.
func failingMigrations(t *testing.T, good, bad string) (fstest.MapFS, []int) {
	t.Helper()
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	var want []int
	for _, m := range ms {
		fsys[m.Name] = &fstest.MapFile{Data: []byte("SELECT 1")}
		want = append(want, m.Version)
	}
	next := ms[len(ms)-1].Version + 1
	fsys[fmt.Sprintf("%04d_ok.sql", next)] = &fstest.MapFile{Data: []byte(good)}
	fsys[fmt.Sprintf("%04d_bad.sql", next+1)] = &fstest.MapFile{Data: []byte(bad)}
	return fsys, append(want, next)
}

func appliedVersions(t *testing.T, db *DB) []int {
	t.Helper()
	rows, err := db.readers.Query("SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return vs
}

func TestMigrationsApplyOnceAcrossReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, m := range ms {
		want = append(want, m.Version)
	}
	for range 3 {
		db, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if got := appliedVersions(t, db); !reflect.DeepEqual(got, want) {
			t.Fatalf("schema_migrations holds %v, want %v exactly once each", got, want)
		}
		db.Close()
	}
}

func TestMigrationFailureLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	db := openInternal(t)
	bad, want := failingMigrations(t, "CREATE TABLE t3 (x)", "CREATE TABLE t4 (x); INSERT INTO no_such_table VALUES (1)")
	err := migrate(ctx, db.writer, bad)
	wantKind(t, err, providers.KindInternal, "internal_error")
	if got := appliedVersions(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("applied %v after a failing migration, want %v", got, want)
	}
	var n int
	if err := db.readers.QueryRow("SELECT COUNT(*) FROM sqlite_master WHERE name = 't4'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("table of the failed migration exists (%d, %v); the migration must roll back whole", n, err)
	}
}

func TestADatabaseOfTheFirstSchemaIsUpgradedWithItsRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	first, err := fs.ReadFile(migrationFS, "0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, raw, fstest.MapFS{"0001_init.sql": &fstest.MapFile{Data: first}}); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO properties (street_address, city, state, latitude, longitude, source, created_at, updated_at)
		VALUES ('1 MAIN ST', 'SPRINGFIELD', 'IL', 39.8, -89.6, 'census', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`); err != nil {
		t.Fatalf("a record in the first schema: %v", err)
	}
	if _, err := raw.Exec(`INSERT INTO properties (street_address, city, state, zip_code, latitude, longitude, property_type, bedrooms,
			canonical, source, created_at, updated_at)
		VALUES ('2 MAIN ST', 'SPRINGFIELD', 'IL', '62701', 39.8, -89.6, 'condo', 2, '2 MAIN ST, SPRINGFIELD, IL, 62701', 'import',
			'2026-01-01T00:00:00.000Z', '2026-01-05T00:00:00.000Z')`); err != nil {
		t.Fatalf("an imported record in the first schema: %v", err)
	}
	if _, err := raw.Exec(`INSERT INTO sections (section, key, data, source, vintage, fetched_at, expires_at)
		VALUES ('flood', '39.8,-89.6', '{"zone":"X"}', 'fema-nfhl', '', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z')`); err != nil {
		t.Fatalf("a section in the first schema: %v", err)
	}
	raw.Close()

	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("opening a database of the first schema: %v", err)
	}
	defer db.Close()
	if want := embeddedVersions(t); !reflect.DeepEqual(appliedVersions(t, db), want) {
		t.Fatalf("applied %v, want %v", appliedVersions(t, db), want)
	}
	// Attributes an import wrote before facts had sources are the
	// import's, as of the day it wrote them, and a reload of any dataset
	// keeps them (they are the import's rows now).
	imported, err := db.Property(ctx, 2)
	if err != nil || imported.Bedrooms == nil || *imported.Bedrooms != 2 ||
		imported.FactsOrigin != `{"source":"import","as_of":"2026-01-05"}` {
		t.Fatalf("imported record after the upgrade: %+v, %v", imported, err)
	}
	l, _, err := db.BeginFacts(ctx, "cook", "f")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, []providers.FactRow{{Key: "x", FactsKey: providers.FactsKey("2 MAIN ST", "62701", ""),
		Facts: providers.Facts{Bedrooms: ptrInt(5), YearBuilt: ptrInt(1950)}}}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if set, err := db.PublishFacts(ctx, l, providers.FactSet{Priority: 1, AsOf: "2026-02-01"}, nil); err != nil || set.Matched != 1 {
		t.Fatalf("a load after the upgrade: %+v, %v; want its row to join the upgraded record by address", set, err)
	}
	if got, _ := db.Property(ctx, 2); *got.Bedrooms != 2 || got.YearBuilt == nil || *got.YearBuilt != 1950 {
		t.Fatalf("after a load: %+v; want the import's bedrooms and the load's year", got.Facts())
	}
	sec, err := db.Section(ctx, "flood", "39.8,-89.6")
	if err != nil || string(sec.Data) != `{"zone":"X"}` || sec.Missing {
		t.Fatalf("a section stored before the upgrade reads back as %+v, %v", sec, err)
	}
	props, total, err := db.Search(ctx, providers.SearchFilter{City: "Springfield", Page: 1, PerPage: 10})
	if err != nil || total != 2 || props[0].StreetAddress != "1 MAIN ST" {
		t.Fatalf("search by city after the upgrade: %v, %d, %v", props, total, err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.Exec("INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path, Options{})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open of a database from a newer binary: %v, want ErrSchemaTooNew", err)
	}
	wantKind(t, err, providers.KindInternal, "schema_too_new")
}

func TestReadersCannotWrite(t *testing.T) {
	db := openInternal(t)
	if _, err := db.readers.Exec("INSERT INTO sections (section, key, data, fetched_at, expires_at) VALUES ('a', 'b', x'', '', '')"); err == nil {
		t.Fatal("a reader connection accepted a write; readers must be query-only")
	}
	var mode string
	if err := db.readers.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (%v), want wal", mode, err)
	}
	var fk int
	if err := db.writer.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("writer foreign_keys = %d (%v), want 1", fk, err)
	}
}

func TestDeletingAPropertyRemovesItsKeysAndIndexEntry(t *testing.T) {
	ctx := context.Background()
	db := openInternal(t)
	p, _, err := db.Save(ctx, providers.NewProperty{Property: providers.Property{Latitude: 1, Longitude: 2}, Canonical: "C", Keys: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.Exec("DELETE FROM properties WHERE id = ?", p.ID); err != nil {
		t.Fatal(err)
	}
	var keys, boxes int
	db.readers.QueryRow("SELECT COUNT(*) FROM property_keys").Scan(&keys)
	db.readers.QueryRow("SELECT COUNT(*) FROM properties_rtree").Scan(&boxes)
	if keys != 0 || boxes != 0 {
		t.Fatalf("after delete: %d keys, %d R*Tree entries; want 0 and 0", keys, boxes)
	}
}

func wantKind(t testing.TB, err error, kind providers.Kind, code string) {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Kind != kind || pe.Code != code {
		t.Fatalf("error %v, want kind %d code %q", err, kind, code)
	}
}

// openAt returns a database at path with the embedded migrations up to
// version, not beyond: a database as an earlier version left it.
func openAt(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	before := fstest.MapFS{}
	for _, v := range embeddedVersions(t) {
		if v > version {
			continue
		}
		names, err := fs.Glob(migrationFS, fmt.Sprintf("%04d_*.sql", v))
		if err != nil || len(names) != 1 {
			t.Fatalf("migration %d: %v %v", v, names, err)
		}
		data, err := fs.ReadFile(migrationFS, names[0])
		if err != nil {
			t.Fatal(err)
		}
		before[names[0]] = &fstest.MapFile{Data: data}
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), raw, before); err != nil {
		t.Fatal(err)
	}
	return raw
}

// stmt is a statement and its arguments, as an earlier version wrote rows.
type stmt struct {
	sql  string
	args []any
}

// upgradedFrom returns the store opened on a database that was at schema
// version (openAt) when the statements ran on it: the upgrade from there,
// closed when the test ends.
func upgradedFrom(t *testing.T, version int, stmts ...stmt) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.db")
	raw := openAt(t, path, version)
	for _, q := range stmts {
		if _, err := raw.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	raw.Close()
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A load of an extract left unfinished before buildings kept their facts
// (0013) resumes from its first element, so that every building it wrote
// is written again with them.
func TestAnOSMLoadLeftBeforeBuildingFactsStartsAgain(t *testing.T) {
	ctx := context.Background()
	db := upgradedFrom(t, 12, stmt{sql: `INSERT INTO osm_generations (generation) VALUES (1)`},
		stmt{sql: `INSERT INTO osm_loads (name, generation, fingerprint, done, started_at)
			VALUES ('dc', 1, 'f1', 5000, '2026-11-20T00:00:00.000Z')`})
	load, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil || !load.Resumed || load.Generation != 1 || load.Done != 0 {
		t.Fatalf("BeginOSM after the upgrade = %+v, %v; want generation 1 resumed from element 0", load, err)
	}
}

// A database whose parcels were loaded before migration 0012 keeps finding
// them: the small ones move from the R*Tree to fact_parcel_bands, the
// large ones stay in the tree, and neither is found twice.
func TestParcelsLoadedBeforeTheBandsAreFoundAfter(t *testing.T) {
	ctx := context.Background()
	// A served dataset of two parcels, written as the loads of schema 11
	// wrote them: rows, then every row's box in the R*Tree.
	db := upgradedFrom(t, 11, []stmt{
		{`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, row_count, loaded_at)
			VALUES ('parcels', 'parcels', 1, 1, '2026-01-01', 2, '2026-01-01T00:00:00.000Z')`, nil},
		{`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng, year_built)
			VALUES ('parcels', 1, 'S', 41.8750, -87.6318, ?, 41.8748, 41.8752, -87.6320, -87.6316, 1901)`,
			[]any{wkbSquare(41.8748, -87.6320, 41.8752, -87.6316)}},
		{`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng, year_built)
			VALUES ('parcels', 1, 'L', 41.9000, -87.6500, ?, 41.8900, 41.9100, -87.6600, -87.6400, 1902)`,
			[]any{wkbSquare(41.8900, -87.6600, 41.9100, -87.6400)}},
		{`INSERT INTO fact_rows_rtree (id, min_lat, max_lat, min_lng, max_lng) SELECT id, min_lat, max_lat, min_lng, max_lng FROM fact_rows`, nil},
	}...)
	var bands, tree int
	if err := db.readers.QueryRow(`SELECT (SELECT COUNT(*) FROM fact_parcel_bands), (SELECT COUNT(*) FROM fact_rows_rtree)`).Scan(&bands, &tree); err != nil {
		t.Fatal(err)
	}
	if bands != 1 || tree != 1 {
		t.Errorf("after the upgrade: %d parcels in the bands, %d in the R*Tree; want the small one in the bands, the large one in the tree", bands, tree)
	}
	for _, c := range []struct {
		street   string
		lat, lng float64
		want     int
	}{{"1 BAND ST", 41.8749, -87.6317, 1901}, {"2 BAND ST", 41.9050, -87.6450, 1902}} {
		r, _, err := db.Save(ctx, storetest.NewAt(c.street, c.lat, c.lng))
		if err != nil {
			t.Fatal(err)
		}
		if r.YearBuilt == nil || *r.YearBuilt != c.want {
			t.Errorf("%s after the upgrade: year %v, want %d", c.street, r.YearBuilt, c.want)
		}
	}
}

// TestDatasetsServedBefore0015SayWhetherTheyHaveRowsByCoordinates: 0015
// sets point_rows of each dataset served (1 for one with a row of no
// address key and a latitude, 0 for one keyed by address alone), and
// fact_rows_key keeps the keyed rows only.
func TestDatasetsServedBefore0015SayWhetherTheyHaveRowsByCoordinates(t *testing.T) {
	db := upgradedFrom(t, 14, []stmt{
		{sql: `INSERT INTO fact_sets (dataset, source, priority, generation, as_of, row_count, loaded_at)
			VALUES ('points', 'points', 1, 3, '2026-01-01', 1, '2026-01-01T00:00:00.000Z'),
				('keyed', 'keyed', 2, 1, '2026-01-01', 1, '2026-01-01T00:00:00.000Z')`},
		{sql: `INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, year_built)
			VALUES ('points', 3, 'P', 41.875, -87.6318, 1901)`},
		// A row of a generation no longer served gives its dataset nothing.
		{sql: `INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, year_built)
			VALUES ('keyed', 0, 'old', 41.875, -87.6318, 1850)`},
		{sql: `INSERT INTO fact_rows (dataset, generation, row_key, facts_key, latitude, longitude, year_built)
			VALUES ('keyed', 1, 'K', '1 MAIN ST|CHICAGO|IL|60601|', 41.9, -87.65, 1902)`},
	}...)
	got := map[string]int{}
	rows, err := db.readers.Query(`SELECT dataset, point_rows FROM fact_sets`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ds string
		var n int
		if err := rows.Scan(&ds, &n); err != nil {
			t.Fatal(err)
		}
		got[ds] = n
	}
	rows.Close()
	if got["points"] != 1 || got["keyed"] != 0 {
		t.Errorf("point_rows after 0015 = %v, want points 1 and keyed 0", got)
	}
	var def string
	if err := db.readers.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'fact_rows_key'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "WHERE facts_key IS NOT NULL") {
		t.Errorf("fact_rows_key after 0015: %s; want it to keep the keyed rows only", def)
	}
}

// TestBuildingFactsServedBefore0016: a facts dataset of an extract's
// buildings published before 0016 kept a copy of each building in
// fact_rows; after the upgrade it is served from there as before, and the
// extract's next load serves its buildings where they stand, its records
// inside the former copies losing their facts and the copies going.
func TestBuildingFactsServedBefore0016(t *testing.T) {
	db := upgradedFrom(t, 15, []stmt{
		{`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, row_count, loaded_at, point_rows)
			VALUES ('osm-dc', 'openstreetmap', 1048576, 1, '2026-01-01', 1, '2026-01-01T00:00:00.000Z', 1)`, nil},
		{`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng, property_type)
			VALUES ('osm-dc', 1, 'way/10', 38.8977, -77.0365, ?, 38.8976, 38.8978, -77.0366, -77.0364, 'single_family')`,
			[]any{wkbSquare(38.8976, -77.0366, 38.8978, -77.0364)}},
		{`INSERT INTO fact_parcel_bands (band, min_lng, id, min_lat, max_lat, max_lng)
			SELECT CAST(min_lat * 200 AS INTEGER), min_lng, id, min_lat, max_lat, max_lng FROM fact_rows`, nil},
	}...)
	storetest.BuildingFactsCopiedBefore0016Go(t, db, countIn(db.readers))
}

// wkbSquare is the WKB of the polygon from (west, south) to (east, north).
func wkbSquare(south, west, north, east float64) []byte {
	raw, err := wkb.Marshal(orb.Polygon{{{west, south}, {east, south}, {east, north}, {west, north}, {west, south}}})
	if err != nil {
		panic(err)
	}
	return raw
}

// TestFeaturesKeptThrough0017: an extract loaded before 0017 is served
// after it, its tables made again without their key of an element
// (storetest.FeaturesKeptThrough0017Go).
func TestFeaturesKeptThrough0017(t *testing.T) {
	db := upgradedFrom(t, 16, stmt{sql: `INSERT INTO osm_generations (generation) VALUES (1)`},
		stmt{sql: storetest.Before0017Extract}, stmt{sql: storetest.Before0017Place},
		stmt{sql: storetest.Before0017Address}, stmt{sql: storetest.Before0017Building})
	storetest.FeaturesKeptThrough0017Go(t, db, countIn(db.readers))
}

// A record match=best made by taking one of several addresses loses its
// keys through 0019, so the ambiguous spelling its client sent is no
// longer everyone's answer.
func TestKeysOfABestChoiceGoThrough0019(t *testing.T) {
	var stmts []stmt
	for _, q := range storetest.Before0019Records {
		stmts = append(stmts, stmt{sql: q})
	}
	storetest.KeysOfABestChoiceGoThrough0019(t, upgradedFrom(t, 18, stmts...))
}

// TestFactsAndExtractsServedBefore0023AreDatasets: 0023 lists the assessor
// datasets and the extracts served before it in datasets, where data
// status and DatasetsVersion read them; the operator's import stays out,
// and a retired generation of before keeps its place, named by no
// dataset.
func TestFactsAndExtractsServedBefore0023AreDatasets(t *testing.T) {
	ctx := context.Background()
	db := upgradedFrom(t, 22, []stmt{
		{`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, fingerprint, row_count, matched, failed, loaded_at)
			VALUES ('cook', 'cook-county-assessor', 1, 3, '2026-09-30', 'fc', 228, 12, 6, '2026-10-01T00:00:00.000Z')`, nil},
		{`INSERT INTO fact_sets (dataset, source, priority, generation, as_of, loaded_at)
			VALUES ('import', '', 0, 1, '2026-10-02', '2026-10-02T00:00:00.000Z')`, nil},
		{`INSERT INTO osm_generations (generation) VALUES (4)`, nil},
		{`INSERT INTO osm_extracts (name, generation, min_lat, max_lat, min_lng, max_lng, timestamp, fingerprint,
				places, buildings, addresses, skipped, loaded_at)
			VALUES ('dc', 4, 38.79, 38.99, -77.12, -76.90, '2026-11-20T03:00:00.000Z', 'fx', 10, 20, 30, 2, '2026-11-21T00:00:00.000Z')`, nil},
		{`INSERT INTO dataset_retired (kind, generation) VALUES ('flood', 7)`, nil},
	}...)
	ds, err := db.Datasets(ctx, "")
	if err != nil || len(ds) != 2 {
		t.Fatalf("Datasets after 0023 = %+v, %v; want cook and dc", ds, err)
	}
	x, cook := ds[0], ds[1]
	if cook.Kind != "parcels" || cook.Name != "cook" || cook.Generation != 3 || cook.Rows != 228 || cook.Failed != 6 ||
		cook.Vintage != "2026-09-30" || cook.Fingerprint != "fc" || cook.LoadedAt.IsZero() ||
		string(cook.Meta) != `{"source":"cook-county-assessor","precedence":1,"matched":12}` {
		t.Errorf("the assessor dataset after 0023: %+v (meta %s)", cook, cook.Meta)
	}
	if x.Kind != "osm" || x.Name != "dc" || x.Generation != 4 || x.Rows != 60 || x.Failed != 2 || x.Vintage != "2026-11-20" ||
		x.Coverage.West != -77.12 || x.Coverage.North != 38.99 ||
		string(x.Meta) != `{"places":10,"buildings":20,"addresses":30,"polygon":false}` {
		t.Errorf("the extract after 0023: %+v (meta %s)", x, x.Meta)
	}
	if v, err := db.DatasetsVersion(ctx); err != nil || v != "7.2" {
		t.Errorf("DatasetsVersion after 0023 = %q, %v; want the two datasets' (7.2)", v, err)
	}
	if ret, _ := db.RetiredGenerations(ctx, "flood"); len(ret) != 1 || ret[0].Generation != 7 || ret[0].Name != "" {
		t.Errorf("the retired generation after 0023: %+v", ret)
	}
}

// The address points and ranges served before 0025 are found after it,
// beside a generation loaded since, and dropped with their generation; a
// load in progress across it begins again.
func TestAddressesServedBefore0025AreKept(t *testing.T) {
	var stmts []stmt
	for _, s := range storetest.Before0025 {
		stmts = append(stmts, stmt{s.SQL, s.Args})
	}
	storetest.AddressesKeptThrough0025(t, upgradedFrom(t, 24, stmts...))
}
