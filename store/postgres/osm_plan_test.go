package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// The second read of an amenities answer names the rare kinds its near
// circle left unsettled, most of them absent from the city: it seeks each
// kind's bands through the index the kind leads (migration 0014), not
// every place of the circle through the area index, which the planner
// chose at its default price of a random page read.
func TestRareKindsOfPlacesAreSoughtThroughTheirIndex(t *testing.T) {
	db := openOneConn(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := [][2]string{{"banks", "bank"}, {"grocery", "supermarket"}, {"hospitals", "hospital"}, {"parks", "park"},
		{"restaurants", "cafe"}, {"restaurants", "restaurant"}, {"schools", "school"}, {"transit", "bus_stop"}}
	var places []providers.OSMPlace
	for i := range 40000 {
		k := kinds[i%len(kinds)]
		places = append(places, providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: int64(i + 1), Version: 1},
			Category: k[0], Type: k[1], Name: fmt.Sprint("Place ", i), NameKey: fmt.Sprint("place ", i),
			Point: providers.Point{Lat: 38.80 + rng.Float64()*0.18, Lng: -77.15 + rng.Float64()*0.225}})
	}
	load, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: places}, int64(len(places))); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Timestamp: time.Now(),
		Coverage: providers.BBox{West: -77.15, South: 38.80, East: -76.925, North: 38.98}}); err != nil {
		t.Fatal(err)
	}
	rare := []string{"kindergarten", "college", "university", "clinic", "doctors", "grocery", "greengrocer", "convenience",
		"playground", "station", "halt", "tram_stop", "subway_entrance", "bus_station", "platform", "fast_food",
		"food_court", "pub", "bar"}
	// The statement places writes for a read of types: the dialect's
	// select through the type's index, its kinds, in a box of 2 km.
	south, north, west, east := 38.872, 38.908, -77.053, -77.007
	q := osmDialect.PlacesOfKind("type", "= ANY($6)", "$7")
	plan := explain(t, db.pool, q, "dc", south, north, west, east, sqlshared.AreaBands(south, north), rare)
	if !strings.Contains(plan, "Index Only Scan using osm_places_g1_type_band") || strings.Contains(plan, "_area_band") {
		t.Errorf("a read of rare types: plan %s; want it through the type index of generation 1's places alone, only", plan)
	}
	// And that statement is the one a read of types sends.
	c := providers.Circle{Center: providers.Point{Lat: 38.89, Lng: -77.03}, RadiusMeters: 2000}
	if _, _, err := db.OSMPlacesNear(ctx, c, providers.PlaceFilter{Types: rare}); err != nil {
		t.Fatal(err)
	}
	var sent int
	if err := db.pool.QueryRow(ctx, `SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE $1`,
		q[:strings.Index(q, "WHERE x.name")]+"%").Scan(&sent); err != nil || sent != 1 {
		t.Errorf("statements a read of types prepared like the one explained: %d, %v; want 1", sent, err)
	}

	// While the next load of dc is written, its places are a partition
	// without an index (0018): a read of the served extract never reads
	// it, which the executor decides as it runs (the served generation is
	// a subquery), for each read of places and address points.
	next, _, err := db.BeginOSM(ctx, "dc", "f2")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutOSM(ctx, &next, providers.OSMBatch{Places: places}, int64(len(places))); err != nil {
		t.Fatal(err)
	}
	loading := fmt.Sprintf("osm_places_g%d", next.Generation)
	for _, r := range []struct {
		query string
		args  []any
	}{
		{osmDialect.PlacesIn("= ANY($6)"), []any{"dc", south, north, west, east, sqlshared.AreaBands(south, north)}},
		{q, []any{"dc", south, north, west, east, sqlshared.AreaBands(south, north), rare}},
		{osmDialect.AddressesIn("= ANY($6)"), []any{"dc", south, north, west, east, sqlshared.AreaBands(south, north)}},
	} {
		plan := explainAs(t, db.pool, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)", r.query, r.args...)
		for i, line := range strings.Split(plan, " | ") {
			if strings.Contains(line, loading) && !strings.Contains(line, "never executed") {
				t.Errorf("a read of the served extract during a load reads the load's %s (line %d): %s", loading, i, plan)
			}
		}
	}
}
