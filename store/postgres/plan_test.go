package postgres

import (
	"context"
	"fmt"
	"github.com/jackc/pgx/v5"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// seedSpread inserts n records over many zips, cities and attributes, so the
// planner has realistic statistics to work with.
func seedSpread(t testing.TB, db *DB, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	types := providers.PropertyTypes
	props := make([]providers.Property, n)
	for i := range props {
		z := rng.IntN(2000)
		props[i] = providers.Property{
			StreetAddress: fmt.Sprintf("%d MAIN ST", i),
			City:          fmt.Sprintf("CITY%d", z%200),
			State:         fmt.Sprintf("S%d", z%50),
			ZipCode:       fmt.Sprintf("%05d", 10000+z),
			Latitude:      25 + rng.Float64()*24,
			Longitude:     -124 + rng.Float64()*57,
			PropertyType:  &types[rng.IntN(len(types))],
			Bedrooms:      ptr(rng.IntN(7)),
		}
		setPlace(&props[i], rng, z)
	}
	if err := db.SeedProperties(context.Background(), props); err != nil {
		t.Fatal(err)
	}
}

// allVisible reports whether VACUUM could mark every page of properties
// all-visible. It cannot while another session on the server holds an
// older snapshot (the rest of the suite, running beside this test on the
// same server): the planner then prices an index-only scan as the plain
// index scan it would be, and may choose that, on the same covering
// index. That choice is the server's state, not the query's.
func allVisible(t *testing.T, db *DB) bool {
	t.Helper()
	var visible, pages int64
	if err := db.pool.QueryRow(context.Background(),
		"SELECT relallvisible, relpages FROM pg_class WHERE oid = 'properties'::regclass").Scan(&visible, &pages); err != nil {
		t.Fatal(err)
	}
	return visible >= pages
}

// queryPlan returns the text of EXPLAIN for query.
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	return explain(t, db.pool, query, args...)
}

// explain returns the lines of EXPLAIN query on q (the pool, or one
// connection with its own settings), joined by " | ".
func explain(t *testing.T, q rowsQuerier, query string, args ...any) string {
	t.Helper()
	return explainAs(t, q, "EXPLAIN", query, args...)
}

// rowsQuerier is a pool or a connection, for explain.
type rowsQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// explainAs is explain with the command explain (EXPLAIN and its
// options, "EXPLAIN (ANALYZE)" say).
func explainAs(t *testing.T, q rowsQuerier, explain, query string, args ...any) string {
	t.Helper()
	rows, err := q.Query(context.Background(), explain+" "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, " | ")
}

// Every filtered search finds its capped total, and the page ids of its
// index plan, from its index alone (an index-only scan), never scanning the
// table; the page's rows are then read by primary key.
func TestSearchPlansUseCoveringIndexes(t *testing.T) {
	db, _ := openFresh(t)
	seedSpread(t, db, 20000)
	visible := allVisible(t, db)
	if !visible {
		t.Log("another session's snapshot kept VACUUM from marking the table all-visible: the planner prices " +
			"index-only scans as heap reads, so only the absence of a table scan is checked")
	}
	for _, tc := range []struct {
		name  string
		f     providers.SearchFilter
		index string
	}{
		{"zip and bedrooms", providers.SearchFilter{Zip: "10042", MinBedrooms: ptr(2), MaxBedrooms: ptr(4)}, "properties_zip"},
		{"zip", providers.SearchFilter{Zip: "10042"}, "properties_zip"},
		{"zip and type", providers.SearchFilter{Zip: "10042", PropertyTypes: []string{"condo"}}, "properties_zip"},
		{"city and state", providers.SearchFilter{City: "CITY4", State: "S4"}, "properties_state_city"},
		{"state", providers.SearchFilter{State: "s2"}, "properties_state_"}, // any index leading with the state
		{"state, city and bedrooms", providers.SearchFilter{City: "CITY4", State: "S4", MinBedrooms: ptr(3)}, "properties_state_city"},
		{"city", providers.SearchFilter{City: "city4"}, "properties_city"},
		{"city, type and bedrooms", providers.SearchFilter{City: "CITY4", PropertyTypes: []string{"condo"}, MinBedrooms: ptr(2)}, "properties_city"},
		{"property type and bedrooms", providers.SearchFilter{PropertyTypes: []string{"condo"}, MaxBedrooms: ptr(0)}, "properties_type"},
		{"zip, bathrooms and year", providers.SearchFilter{Zip: "10042", MinBathrooms: ptr(2.0), MinYearBuilt: ptr(1950)}, "properties_zip"},
		{"zip and county", providers.SearchFilter{Zip: "10042", County: "county 2"}, "properties_zip"},
		{"fips code and tract", providers.SearchFilter{FIPSCode: "01002", CensusTract: "000102"}, "properties_fips"},
		{"county and state", providers.SearchFilter{County: "County 2", State: "S2", MinBedrooms: ptr(2)}, "properties_county"},
		{"year range", providers.SearchFilter{MinYearBuilt: ptr(1950), MaxYearBuilt: ptr(1951)}, "properties_year"},
		{"living area range", providers.SearchFilter{MinLivingAreaSqft: ptr(1500), MaxLivingAreaSqft: ptr(1510)}, "properties_area"},
		{"state and bathrooms", providers.SearchFilter{State: "S2", MinBathrooms: ptr(3.5)}, "properties_state_bathrooms"},
		{"state and living area", providers.SearchFilter{State: "S2", MinLivingAreaSqft: ptr(1500), MaxLivingAreaSqft: ptr(1510)}, "properties_state_area"},
	} {
		tc.f.Page, tc.f.PerPage = 1, 20
		q, args := queries.Search(tc.f)
		pagePlan := queryPlan(t, db, q.ByIndex, args...)
		countPlan := queryPlan(t, db, q.Count, args[:len(args)-2]...)
		for _, plan := range []string{pagePlan, countPlan} {
			if !strings.Contains(plan, "Index Only Scan using "+tc.index) && visible {
				t.Errorf("%s: plan %q does not read the covering index %s alone", tc.name, plan, tc.index)
			}
			if strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s: plan %q scans the table", tc.name, plan)
			}
		}
		if !strings.Contains(pagePlan, "Index Scan using properties_pkey on properties p") && visible {
			t.Errorf("%s: page plan %q does not read the page's rows by id", tc.name, pagePlan)
		}
		t.Logf("%s: %s || %s", tc.name, pagePlan, countPlan)
	}
	// A broad filter's page in id order walks the primary key and sorts
	// nothing; its sample reads the first rows by the primary key.
	q, args := queries.Search(providers.SearchFilter{MinBedrooms: ptr(1), Page: 100, PerPage: 25})
	if plan := queryPlan(t, db, q.ByID, args...); !strings.Contains(plan, "Index Scan using properties_pkey on properties p") ||
		strings.Contains(plan, "Sort") {
		t.Errorf("a broad filter's page in id order: plan %q does not walk the primary key", plan)
	}
	if plan := queryPlan(t, db, q.Sample, args[:len(args)-2]...); !strings.Contains(plan, "Index Scan using properties_pkey on properties") ||
		strings.Contains(plan, "Sort") {
		t.Errorf("the sample: plan %q does not read the first rows by the primary key", plan)
	}
}

// setPlace gives p a county, FIPS code and tract by its zip index z (20
// zips a county) and facts drawn from rng.
func setPlace(p *providers.Property, rng *rand.Rand, z int) {
	p.County, p.FIPSCode = fmt.Sprintf("COUNTY %d", z/20), fmt.Sprintf("%05d", 1000+z/20)
	p.CensusTract = fmt.Sprintf("%06d", 100+z%20)
	baths, year, area := 1+0.5*float64(rng.IntN(6)), 1900+rng.IntN(125), 500+rng.IntN(4000)
	p.Bathrooms, p.YearBuilt, p.LivingAreaSqft = &baths, &year, &area
}

// A search in a small area reads its candidates from properties_area_band
// by an index-only scan of the bands it crosses, never scanning the table;
// with a state too, the planner may rather take the state's index where
// the state is the smaller set (at 20,000 records spread over many, it is).
func TestAreaSearchPlansSeekTheAreaBands(t *testing.T) {
	db, _ := openFresh(t)
	seedSpread(t, db, 20000)
	box := &providers.BBox{West: -90, South: 39.5, East: -89.9, North: 39.6}
	for _, f := range []providers.SearchFilter{{Box: box}, {Box: box, State: "S2"}} {
		f.Page, f.PerPage = 1, 20
		q, args := queries.Search(f)
		near, nargs := queries.SearchNearRect(f, 39.5, 39.6, -90, -89.9)
		for _, plan := range []string{queryPlan(t, db, q.ByIndex, args...), queryPlan(t, db, q.Count, args[:len(args)-2]...),
			queryPlan(t, db, q.FirstIDs, args[:len(args)-2]...),
			queryPlan(t, db, near, nargs...)} {
			if strings.Contains(plan, "Seq Scan") ||
				(f.State == "" && !strings.Contains(plan, "Index Only Scan using properties_area_band")) {
				t.Errorf("%+v: plan %q does not seek the area's bands", f, plan)
			}
		}
	}
}

func TestNearestPlanUsesTheSpatialIndex(t *testing.T) {
	db, _ := openFresh(t)
	seedSpread(t, db, 20000)
	plan := queryPlan(t, db, queries.Nearest, 39.7, 39.8, -89.7, -89.6)
	if !strings.Contains(plan, "properties_location") || strings.Contains(plan, "Seq Scan") {
		t.Fatalf("Nearest plan %q does not search the GiST index by box", plan)
	}
	t.Log(plan)
}

// A point's parcels are sought through the indexes by the point, never
// read whole: the large ones through fact_rows_shape by box (GiST's
// box_ops has @> of two boxes, not of a box and a point: with a point the
// whole index was read), the small ones through the bands' key, an
// extract's buildings through theirs.
func TestParcelsAtPlanSeeksByThePoint(t *testing.T) {
	db, _ := openFresh(t)
	ctx := context.Background()
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// An empty table is cheapest read whole: say it is not. The
	// buildings of an extract are partitions of its generation (0018):
	// with none, the planner drops their part of the read.
	for _, q := range []string{"SET enable_seqscan = off", "SELECT osm_partition('buildings', 1), osm_index_partition('buildings', 1)"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	plan := explain(t, conn, factDialect.ParcelsAt, 41.875, -87.6318)
	for _, want := range []string{
		"Index Cond: (box(point(min_lng, min_lat), point(max_lng, max_lat)) @> ",
		"fact_parcel_bands_pkey",
		"osm_building_bands_pkey",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("ParcelsAt plan %q lacks %q", plan, want)
		}
	}
	t.Log(plan)
}

// Filling the bands twice (a publish interrupted after it, run again)
// leaves each small parcel and building there once, and fills only the
// load asked for: the buildings (of three latitude bands, so of both
// halves where the fill runs in two) of the extract generation the load
// names, that give facts and are small.
func TestParcelBandsFillTwiceKeepsOneEntry(t *testing.T) {
	db, _ := openFresh(t)
	ctx := context.Background()
	for i, q := range []string{
		`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng)
			VALUES ('a', 1, 'x', 41.87, -87.63, '\x00', 41.869, 41.871, -87.631, -87.629)`,
		`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng)
			VALUES ('a', 1, 'y', 41.88, -87.63, '\x00', 41.879, 41.881, -87.631, -87.629)`,
		`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng)
			VALUES ('a', 2, 'x', 41.87, -87.63, '\x00', 41.869, 41.871, -87.631, -87.629)`,
		`INSERT INTO fact_buildings (dataset, generation, osm_generation) VALUES ('a', 1, 7), ('a', 2, 8)`,
		`SELECT osm_partition('buildings', 7), osm_partition('buildings', 8)`,
		`INSERT INTO osm_buildings (generation, osm_type, osm_id, version, building, shape, min_lat, max_lat, min_lng, max_lng,
				latitude, longitude, property_type)
			VALUES (7, 'way', 1, 1, 'house', '\x00', 41.8701, 41.8702, -87.6301, -87.6300, 41.87015, -87.63005, 'single_family'),
				(7, 'way', 2, 1, 'house', '\x00', 41.8751, 41.8752, -87.6301, -87.6300, 41.87515, -87.63005, 'single_family'),
				(7, 'way', 3, 1, 'house', '\x00', 41.8801, 41.8820, -87.6320, -87.6300, 41.88105, -87.63100, 'single_family'),
				(7, 'way', 4, 1, 'yes', '\x00', 41.8701, 41.8702, -87.6311, -87.6310, 41.87015, -87.63105, NULL),
				(7, 'way', 5, 1, 'house', '\x00', 41.8701, 41.8801, -87.6311, -87.6310, 41.87515, -87.63105, 'single_family'),
				(8, 'way', 1, 1, 'house', '\x00', 41.8701, 41.8702, -87.6301, -87.6300, 41.87015, -87.63005, 'single_family')`,
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	for range 2 {
		for _, q := range factDialect.IndexRows {
			if _, err := db.pool.Exec(ctx, q, "a", int64(1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT COUNT(*) FROM fact_parcel_bands`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d entries after filling generation 1 twice, %v; want its 2 parcels once each", n, err)
	}
	if err := db.pool.QueryRow(ctx, `SELECT COUNT(*) FROM osm_building_bands`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d building entries after filling generation 1 twice, %v; want its 3 small buildings that give facts once each", n, err)
	}
}
