package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func openInternal(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// queryPlan returns the detail lines of EXPLAIN QUERY PLAN for query.
func queryPlan(t *testing.T, db *DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.readers.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		details = append(details, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return details
}

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
			City:          fmt.Sprintf("CITY%d", z/10),
			State:         fmt.Sprintf("S%d", z%50),
			ZipCode:       fmt.Sprintf("%05d", 10000+z),
			Latitude:      25 + rng.Float64()*24,
			Longitude:     -124 + rng.Float64()*57,
			PropertyType:  &types[rng.IntN(len(types))],
			Bedrooms:      ptrInt(rng.IntN(7)),
		}
		setPlace(&props[i], rng, z)
	}
	if err := db.SeedProperties(context.Background(), props); err != nil {
		t.Fatal(err)
	}
}

func ptrInt(n int) *int { return &n }

func ptrFloat(f float64) *float64 { return &f }

// Every search with a zip, state or property type filter must find its
// capped total, and the page ids of its index plan, from one covering index,
// without scanning or reading the table, whether or not the planner has
// statistics; its id-order plan walks the table by rowid, sorting nothing,
// and its sample reads the first rows in rowid order.
func TestSearchPlansUseCoveringIndexes(t *testing.T) {
	db := openInternal(t)
	seedSpread(t, db, 20000)
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			if _, err := db.writer.Exec("ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			name  string
			f     providers.SearchFilter
			index string
		}{
			{"zip and bedrooms", providers.SearchFilter{Zip: "10042", MinBedrooms: ptrInt(2), MaxBedrooms: ptrInt(4)}, "properties_zip"},
			{"zip", providers.SearchFilter{Zip: "10042"}, "properties_zip"},
			{"zip and type", providers.SearchFilter{Zip: "10042", PropertyTypes: []string{"condo"}}, "properties_zip"},
			{"city and state", providers.SearchFilter{City: "CITY4", State: "S2"}, "properties_state_city"},
			{"state", providers.SearchFilter{State: "s2"}, "properties_state_city"},
			{"state, city and bedrooms", providers.SearchFilter{City: "CITY4", State: "S2", MinBedrooms: ptrInt(3)}, "properties_state_city"},
			{"state, type and bedrooms", providers.SearchFilter{State: "S2", PropertyTypes: []string{"condo"}, MinBedrooms: ptrInt(3), MaxBedrooms: ptrInt(4)}, "properties_state_city"},
			{"city", providers.SearchFilter{City: "city4"}, "properties_city"},
			{"city, type and bedrooms", providers.SearchFilter{City: "CITY4", PropertyTypes: []string{"condo"}, MinBedrooms: ptrInt(2)}, "properties_city"},
			{"property type", providers.SearchFilter{PropertyTypes: []string{"condo"}}, "properties_type"},
			{"property type and bedrooms", providers.SearchFilter{PropertyTypes: []string{"condo"}, MaxBedrooms: ptrInt(2)}, "properties_type"},
			{"bedrooms range", providers.SearchFilter{MinBedrooms: ptrInt(2), MaxBedrooms: ptrInt(3)}, "properties_bedrooms"},
			{"zip, bathrooms and year", providers.SearchFilter{Zip: "10042", MinBathrooms: ptrFloat(2), MinYearBuilt: ptrInt(1950)}, "properties_zip"},
			{"zip and county", providers.SearchFilter{Zip: "10042", County: "county 2"}, "properties_zip"},
			{"zip and tract", providers.SearchFilter{Zip: "10042", FIPSCode: "01002", CensusTract: "000102"}, "properties_zip"},
			{"fips code and tract", providers.SearchFilter{FIPSCode: "01002", CensusTract: "000102"}, "properties_fips"},
			{"fips code, state and area", providers.SearchFilter{FIPSCode: "01002", State: "S2", MaxLivingAreaSqft: ptrInt(2000)}, "properties_fips"},
			{"county and state", providers.SearchFilter{County: "County 2", State: "S2", MinBedrooms: ptrInt(2)}, "properties_county"},
			{"state and year", providers.SearchFilter{State: "S2", MinYearBuilt: ptrInt(1950), MaxYearBuilt: ptrInt(1979)}, "properties_state_city"},
			{"state and several types", providers.SearchFilter{State: "S2", PropertyTypes: []string{"condo", "townhouse"}, MaxBedrooms: ptrInt(2)}, "properties_state_city"},
			{"state, several types and bathrooms", providers.SearchFilter{State: "S2", PropertyTypes: []string{"condo", "townhouse"}, MinBathrooms: ptrFloat(2)}, "properties_state_bathrooms"},
			{"state and bathrooms", providers.SearchFilter{State: "S2", MinBathrooms: ptrFloat(2.5)}, "properties_state_bathrooms"},
			{"state and living area", providers.SearchFilter{State: "S2", MinLivingAreaSqft: ptrInt(1500), MaxLivingAreaSqft: ptrInt(2500), MinYearBuilt: ptrInt(1950)}, "properties_state_area"},
			{"state, city and bathrooms", providers.SearchFilter{State: "S2", City: "CITY4", MinBathrooms: ptrFloat(2.5)}, "properties_state_city"},
			{"several types and area", providers.SearchFilter{PropertyTypes: []string{"condo", "townhouse"}, MinLivingAreaSqft: ptrInt(1500)}, "properties_type"},
			{"year range", providers.SearchFilter{MinYearBuilt: ptrInt(1950), MaxYearBuilt: ptrInt(1979), MinBathrooms: ptrFloat(2)}, "properties_year"},
			{"living area range", providers.SearchFilter{MinLivingAreaSqft: ptrInt(1500), MaxLivingAreaSqft: ptrInt(2500), MaxBedrooms: ptrInt(3)}, "properties_area"},
			{"bedrooms and bathrooms", providers.SearchFilter{MinBedrooms: ptrInt(3), MinBathrooms: ptrFloat(2)}, "properties_bedrooms"},
			{"bathrooms", providers.SearchFilter{MinBathrooms: ptrFloat(2.5)}, "properties_bathrooms"},
		} {
			tc.f.Page, tc.f.PerPage = 1, 20
			q, args := queries.Search(tc.f)
			pagePlan := strings.Join(queryPlan(t, db, q.ByIndex, args...), " | ")
			countPlan := strings.Join(queryPlan(t, db, q.Count, args[:len(args)-2]...), " | ")
			covering := "SEARCH properties USING COVERING INDEX " + tc.index + " ("
			for _, plan := range []string{pagePlan, countPlan} {
				if !strings.Contains(plan, covering) {
					t.Errorf("%s (analyzed %v): plan %q does not search the covering index %s", tc.name, analyzed, plan, tc.index)
				}
				if strings.Contains(plan, "SCAN p") || strings.Contains(plan, "SCAN properties") {
					t.Errorf("%s (analyzed %v): plan %q scans", tc.name, analyzed, plan)
				}
			}
			if byID := strings.Join(queryPlan(t, db, q.ByID, args...), " | "); byID != "SCAN p" {
				t.Errorf("%s (analyzed %v): id-order plan %q does not walk the table by rowid alone", tc.name, analyzed, byID)
			}
			if sample := strings.Join(queryPlan(t, db, q.Sample, args[:len(args)-2]...), " | "); !strings.Contains(sample,
				"SCAN properties") || strings.Contains(sample, "INDEX") || strings.Contains(sample, "TEMP B-TREE") {
				t.Errorf("%s (analyzed %v): sample plan %q does not read the first rows in rowid order", tc.name, analyzed, sample)
			}
			// The table is read only for the page's own rows, by id.
			if !strings.HasPrefix(pagePlan, "SEARCH p USING INTEGER PRIMARY KEY (rowid=?) | LIST SUBQUERY") {
				t.Errorf("%s (analyzed %v): page plan %q does not read rows by id", tc.name, analyzed, pagePlan)
			}
			t.Logf("%s analyzed=%v: %s || %s", tc.name, analyzed, pagePlan, countPlan)
		}
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

// A search in an area seeks the latitude bands of properties_area_band by
// longitude, never a search index for another filter (which would read a
// row per match of that filter) nor the whole table, with or without
// statistics; with no filter but the state or the ZIP code it reads the
// index alone (the count and the ids) and the page's rows by id.
func TestAreaSearchPlansSeekTheAreaBands(t *testing.T) {
	db := openInternal(t)
	seedSpread(t, db, 20000)
	box := &providers.BBox{West: -90, South: 39.5, East: -89.8, North: 39.7}
	seek := "USING COVERING INDEX properties_area_band (<expr>=? AND longitude>? AND longitude<?)"
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			if _, err := db.writer.Exec("ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []providers.SearchFilter{{Box: box}, {Box: box, State: "S2"}, {Box: box, Zip: "10042"},
			{Box: box, Zip: "10042", MinBedrooms: ptrInt(2)}} {
			f.Page, f.PerPage = 1, 20
			q, args := queries.Search(f)
			near, nargs := queries.SearchNearRect(f, 39.5, 39.7, -90, -89.8)
			want := seek
			if f.MinBedrooms != nil { // a filter the index lacks: the rows of the area's entries
				want = strings.Replace(seek, "COVERING INDEX", "INDEX", 1)
			}
			for _, plan := range []string{
				strings.Join(queryPlan(t, db, q.ByIndex, args...), " | "),
				strings.Join(queryPlan(t, db, q.Count, args[:len(args)-2]...), " | "),
				strings.Join(queryPlan(t, db, q.FirstIDs, args[:len(args)-2]...), " | "),
				strings.Join(queryPlan(t, db, near, nargs...), " | "),
			} {
				if !strings.Contains(plan, want) || strings.Contains(plan, "SCAN properties") ||
					strings.Count(plan, "INDEX properties_") != 1 {
					t.Errorf("%+v (analyzed %v): plan %q does not seek the area's bands (%s) alone", f, analyzed, plan, want)
				}
			}
		}
	}
}

func TestNearestPlanUsesTheSpatialIndex(t *testing.T) {
	db := openInternal(t)
	seedSpread(t, db, 2000)
	plan := strings.Join(queryPlan(t, db, queries.Nearest, 39.7, 39.8, -89.7, -89.6), " | ")
	// The R*Tree reports a constrained scan as "INDEX 2:<constraints>"; an
	// empty constraint list would mean a full walk of the tree.
	if !regexp.MustCompile(`SCAN r VIRTUAL TABLE INDEX 2:[A-Z0-9]+`).MatchString(plan) {
		t.Fatalf("Nearest plan %q does not search the R*Tree by box", plan)
	}
	if !strings.Contains(plan, "SEARCH p USING INTEGER PRIMARY KEY") {
		t.Fatalf("Nearest plan %q does not look properties up by id", plan)
	}
	t.Log(plan)
}

// A point's parcels are sought, never scanned: the small ones by the
// latitude bands' key (band, then west edge), the large ones through the
// R*Tree by box, an extract's buildings by their bands' key (generation,
// band, then west edge).
func TestParcelsAtPlanSeeksBandsAndTree(t *testing.T) {
	db := openInternal(t)
	plan := strings.Join(queryPlan(t, db, factDialect.ParcelsAt, 41.8750, -87.6318), " | ")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`SEARCH b USING PRIMARY KEY \(band=\? AND min_lng>\? AND min_lng<\?\)`),
		regexp.MustCompile(`SCAN t VIRTUAL TABLE INDEX 2:[A-Z0-9]+`),
		regexp.MustCompile(`SEARCH b USING PRIMARY KEY \(generation=\? AND size=\? AND band=\? AND min_lng>\? AND min_lng<\?\)`),
		regexp.MustCompile(`SEARCH o USING INTEGER PRIMARY KEY`),
	} {
		if !want.MatchString(plan) {
			t.Errorf("ParcelsAt plan %q does not match %s", plan, want)
		}
	}
	if strings.Contains(plan, "SCAN r") || strings.Contains(plan, "SCAN b") || strings.Contains(plan, "SCAN o") {
		t.Errorf("ParcelsAt plan %q scans a table", plan)
	}
	t.Log(plan)
}

// A publish finding the records inside a load's buildings seeks, for each
// record, each size's two bands of the buildings by their key (generation,
// size, band, then west edge), and the small parcels' bands by theirs.
func TestRowsAtRecordsPlanSeeksTheBandsByRecord(t *testing.T) {
	db := openInternal(t)
	plan := queryPlan(t, db, factDialect.RowsAtRecords, "osm-dc", 1, 0.0003, 0.0013)
	var buildings, parcels int
	for _, line := range plan {
		switch {
		case line == "SEARCH b USING PRIMARY KEY (generation=? AND size=? AND band=? AND min_lng>? AND min_lng<?)":
			buildings++
		case line == "SEARCH b USING PRIMARY KEY (band=? AND min_lng>? AND min_lng<?)":
			parcels++
		case strings.HasPrefix(line, "SCAN b"):
			t.Errorf("RowsAtRecords plan scans the bands: %q", line)
		}
	}
	if buildings != 4 || parcels != 2 {
		t.Errorf("RowsAtRecords plan seeks the buildings' bands %d times and the parcels' %d; want 4 and 2:\n%s",
			buildings, parcels, strings.Join(plan, "\n"))
	}
}

// Dropping a former extract's building entries, 5,000 a statement, seeks
// each by its whole key: by part of it, each statement read every entry of
// the generation (0.76 s a statement at 4,000,000 entries, against 0.02 s).
func TestDropBuildingBandsSeeksByTheKey(t *testing.T) {
	db := openInternal(t)
	plan := strings.Join(queryPlan(t, db, osmStatements.Planned()["dropBuildingBands"], 1), " | ")
	if !strings.HasPrefix(plan, "SEARCH osm_building_bands USING PRIMARY KEY (generation=? AND size=? AND band=? AND min_lng=?") {
		t.Errorf("dropBuildingBands plan %q does not seek the entries by their key", plan)
	}
}

// Dropping a former extract's buildings, a range of ids a statement, reads
// that range of the table alone.
func TestDropBuildingsReadsARangeOfIDs(t *testing.T) {
	db := openInternal(t)
	plan := strings.Join(queryPlan(t, db, osmStatements.Planned()["dropBuildings"], 1, 5000, 1), " | ")
	if plan != "SEARCH osm_buildings USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)" {
		t.Errorf("dropBuildings plan %q does not read a range of ids", plan)
	}
}

// The points near a record are sought through the R*Tree by box.
func TestRowsNearPlanSeeksTheTree(t *testing.T) {
	db := openInternal(t)
	plan := strings.Join(queryPlan(t, db, factDialect.RowsNear, 41.87, 41.88, -87.64, -87.63), " | ")
	if !regexp.MustCompile(`^SCAN t VIRTUAL TABLE INDEX 2:[A-Z0-9]+ \| SEARCH r USING INTEGER PRIMARY KEY`).MatchString(plan) {
		t.Errorf("RowsNear plan %q does not search the R*Tree by box first", plan)
	}
	t.Log(plan)
}

// Filling the bands twice (a publish interrupted after it, run again)
// leaves each small parcel and building there once, and fills only the
// load asked for: the buildings (of three latitude bands, so of both
// halves where the fill runs in two) of the extract generation the load
// names, that give facts and are small.
func TestParcelBandsFillTwiceKeepsOneEntry(t *testing.T) {
	db := openInternal(t)
	for i, q := range []string{
		`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng)
			VALUES ('a', 1, 'x', 41.87, -87.63, x'00', 41.869, 41.871, -87.631, -87.629)`,
		`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng)
			VALUES ('a', 1, 'y', 41.88, -87.63, x'00', 41.879, 41.881, -87.631, -87.629)`,
		`INSERT INTO fact_rows (dataset, generation, row_key, latitude, longitude, shape, min_lat, max_lat, min_lng, max_lng)
			VALUES ('a', 2, 'x', 41.87, -87.63, x'00', 41.869, 41.871, -87.631, -87.629)`,
		`INSERT INTO fact_buildings (dataset, generation, osm_generation) VALUES ('a', 1, 7), ('a', 2, 8)`,
		`INSERT INTO osm_buildings (generation, osm_type, osm_id, version, building, shape, min_lat, max_lat, min_lng, max_lng,
				latitude, longitude, property_type)
			VALUES (7, 'way', 1, 1, 'house', x'00', 41.8701, 41.8702, -87.6301, -87.6300, 41.87015, -87.63005, 'single_family'),
				(7, 'way', 2, 1, 'house', x'00', 41.8751, 41.8752, -87.6301, -87.6300, 41.87515, -87.63005, 'single_family'),
				(7, 'way', 3, 1, 'house', x'00', 41.8801, 41.8820, -87.6320, -87.6300, 41.88105, -87.63100, 'single_family'),
				(7, 'way', 4, 1, 'yes', x'00', 41.8701, 41.8702, -87.6311, -87.6310, 41.87015, -87.63105, NULL),
				(7, 'way', 5, 1, 'house', x'00', 41.8701, 41.8801, -87.6311, -87.6310, 41.87515, -87.63105, 'single_family'),
				(8, 'way', 1, 1, 'house', x'00', 41.8701, 41.8702, -87.6301, -87.6300, 41.87015, -87.63005, 'single_family')`,
	} {
		if _, err := db.writer.Exec(q); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	for range 2 {
		for _, q := range factDialect.IndexRows {
			if _, err := db.writer.Exec(q, "a", 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	var n int
	if err := db.writer.QueryRow(`SELECT COUNT(*) FROM fact_parcel_bands`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d entries after filling generation 1 twice, %v; want its 2 parcels once each", n, err)
	}
	if err := db.writer.QueryRow(`SELECT COUNT(*) FROM osm_building_bands`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d building entries after filling generation 1 twice, %v; want its 3 small buildings that give facts once each", n, err)
	}
}
