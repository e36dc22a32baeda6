package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/storetest"
)

// TestThePlacesOfEveryCircleShareOnePreparedStatement: reading the places
// of circles at many latitudes (so many sets of bands, of 3 to 10), with
// filters of several lengths, prepares one statement of places a shape of
// read on the connection (every place, of types, of categories), not one
// a number of bands or of types: PostgreSQL plans a new statement's first
// runs anew each time, 0.6 ms.
func TestThePlacesOfEveryCircleShareOnePreparedStatement(t *testing.T) {
	db := openOneConn(t)
	ctx := context.Background()
	load, _, err := db.BeginOSM(ctx, "dc", "f1")
	if err != nil {
		t.Fatal(err)
	}
	var places []providers.OSMPlace
	for i := range 200 {
		places = append(places, providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: int64(i + 1), Version: 1},
			Category: "schools", Type: "school", Name: fmt.Sprint("School ", i), NameKey: fmt.Sprint("school ", i),
			Point: providers.Point{Lat: 38.80 + float64(i)*0.0009, Lng: -77.03}})
	}
	if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: places}, int64(len(places))); err != nil {
		t.Fatal(err)
	}
	cover := providers.BBox{West: -77.12, South: 38.70, East: -76.90, North: 39.10}
	if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Coverage: cover, Timestamp: time.Now()}); err != nil {
		t.Fatal(err)
	}
	filters := []providers.PlaceFilter{{Within: 700}, {Types: []string{"school"}}, {Types: []string{"school", "college", "university"}},
		{Categories: []string{"parks"}, Types: []string{"school"}}, {Within: 300}, {Categories: []string{"parks", "banks"}, Types: []string{"school", "college"}}}
	read := 0
	for i := range 60 {
		c := providers.Circle{Center: providers.Point{Lat: 38.80 + float64(i)*0.003, Lng: -77.03}, RadiusMeters: 1000 + float64(i%3)*500}
		_, got, err := db.OSMPlacesNear(ctx, c, filters[i%len(filters)])
		if err != nil {
			t.Fatal(err)
		}
		read += len(got)
	}
	if read == 0 {
		t.Fatal("no place read")
	}
	var prepared []string
	rows, err := db.pool.Query(ctx, `SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'SELECT x.generation, p.osm_type%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, s)
	}
	if len(prepared) > 3 {
		t.Errorf("60 circles prepared %d statements of places, want one a shape of filter (3):\n%q", len(prepared), prepared)
	}
}

// A newer extract leaves nothing of the former one's buildings behind
// (migration 0016): see storetest.ReplacedBuildingsGo.
func TestReplacedBuildingsGo(t *testing.T) {
	db, _ := openFresh(t)
	storetest.ReplacedBuildingsGo(t, db, countIn(db))
}

// A newer extract drops every feature of the former one, a range of ids
// at a time: see storetest.ReplacedFeaturesGo.
func TestReplacedFeaturesGo(t *testing.T) {
	db, _ := openFresh(t)
	storetest.ReplacedFeaturesGo(t, db, countIn(db))
}

// TestFeatureIDsAreDrawnAThousandAtATime: since 0017 each backend takes
// the ids of places, buildings and address points from their sequences
// 1,000 at a time, rather than sharing the sequence's page for every row
// that a load's two writers copy.
func TestFeatureIDsAreDrawnAThousandAtATime(t *testing.T) {
	db := openOneConn(t)
	for _, seq := range []string{"osm_places_id_seq", "osm_buildings_id_seq", "osm_addresses_id_seq"} {
		var cache int64
		err := db.pool.QueryRow(context.Background(),
			`SELECT seqcache FROM pg_sequence WHERE seqrelid = to_regclass($1)`, seq).Scan(&cache)
		if err != nil || cache != 1000 {
			t.Errorf("%s caches %d ids a backend, %v; want 1000", seq, cache, err)
		}
	}
}
