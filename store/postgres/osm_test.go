package postgres

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
// that a load's two writers copy (since 0018 sequences of their own, the
// tables being partitioned).
func TestFeatureIDsAreDrawnAThousandAtATime(t *testing.T) {
	db := openOneConn(t)
	for _, seq := range []string{"osm_places_ids", "osm_buildings_ids", "osm_addresses_ids"} {
		var cache int64
		err := db.pool.QueryRow(context.Background(),
			`SELECT seqcache FROM pg_sequence WHERE seqrelid = to_regclass($1)`, seq).Scan(&cache)
		if err != nil || cache != 1000 {
			t.Errorf("%s caches %d ids a backend, %v; want 1000", seq, cache, err)
		}
	}
}

// TestEachGenerationIsAPartition: since 0018 a load's features are
// partitions of its generation, created unindexed as it starts and
// indexed as it settles; a former generation goes whole, table and all.
func TestEachGenerationIsAPartition(t *testing.T) {
	db, _ := openFresh(t)
	ctx := context.Background()
	count := countIn(db)
	storetest.ReplacedFeaturesGo(t, db, count)
	partitions := func(parent string) []string {
		rows, err := db.pool.Query(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
			WHERE i.inhparent = to_regclass($1) ORDER BY 1`, parent)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	var served []int64
	rows, err := db.pool.Query(ctx, `SELECT generation FROM osm_extracts ORDER BY generation`)
	if err != nil {
		t.Fatal(err)
	}
	if served, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil || len(served) != 2 {
		t.Fatalf("served generations %v, %v; want those of dc and va", served, err)
	}
	for _, parent := range []string{"osm_places", "osm_buildings", "osm_addresses"} {
		var want []string
		for _, g := range served {
			want = append(want, fmt.Sprintf("%s_g%d", parent, g))
		}
		if got := partitions(parent); !slices.Equal(got, want) {
			t.Errorf("partitions of %s = %v, want the served generations' %v", parent, got, want)
		}
	}

	// A load's partitions have no index until it settles.
	load, _, err := db.BeginOSM(ctx, "dc", "f3")
	if err != nil {
		t.Fatal(err)
	}
	indexes := func(table string) int64 {
		return count(t, `SELECT COUNT(*) FROM pg_indexes WHERE tablename = '`+table+`'`)
	}
	places := fmt.Sprintf("osm_places_g%d", load.Generation)
	if n := indexes(places); n != 0 {
		t.Errorf("%s has %d indexes as its load starts, want none", places, n)
	}
	if err := db.SettleOSM(ctx, &load); err != nil {
		t.Fatal(err)
	}
	if n := indexes(places); n != 3 {
		t.Errorf("%s has %d indexes once settled, want 3", places, n)
	}
}

// TestReadsDoNotQueueBehindPartitionsDDL: creating a generation's
// partition, or dropping a former one, takes the parent's ACCESS EXCLUSIVE
// lock, which waits for every read of the parent already running; a read
// arriving meanwhile would queue behind it for as long. Each such
// statement waits a fifth of a second at most a try (Partitions.Guard), so
// while a long read holds the former extract's places, reads still answer
// at once, and the load starts, or its drop is done, once the long read
// ends.
func TestReadsDoNotQueueBehindPartitionsDDL(t *testing.T) {
	for _, heldAt := range []string{"start", "drop"} {
		t.Run(heldAt, func(t *testing.T) {
			db, _ := openFresh(t)
			ctx := context.Background()
			box := providers.BBox{West: -77.15, South: 38.80, East: -76.925, North: 38.98}
			p := providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: 1, Version: 1}, Category: "parks", Type: "park",
				Name: "Park", NameKey: "park", Point: providers.Point{Lat: 38.89, Lng: -77.03}}
			begin := func(fp string) providers.OSMLoad {
				load, _, err := db.BeginOSM(ctx, "dc", fp)
				if err != nil {
					t.Error(err)
					return load
				}
				if err := db.PutOSM(ctx, &load, providers.OSMBatch{Places: []providers.OSMPlace{p}}, 1); err != nil {
					t.Error(err)
				}
				return load
			}
			publish := func(load providers.OSMLoad) {
				if _, err := db.PublishOSM(ctx, load, providers.OSMExtract{Timestamp: time.Now(), Coverage: box}); err != nil {
					t.Error(err)
				}
			}
			former := begin("f1")
			publish(former)
			var next providers.OSMLoad
			if heldAt == "drop" {
				next = begin("f2")
			}
			// A long read of the former extract's places: a transaction
			// that holds its lock for two seconds.
			holder, err := db.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Rollback(ctx) //nolint:errcheck // committed below
			var n int
			if err := holder.QueryRow(ctx, `SELECT COUNT(*) FROM osm_places WHERE generation = $1`, former.Generation).Scan(&n); err != nil || n != 1 {
				t.Fatalf("the long read: %d, %v", n, err)
			}
			released := make(chan struct{})
			go func() {
				time.Sleep(2 * time.Second)
				holder.Commit(ctx) //nolint:errcheck // ends the long read
				close(released)
			}()
			done := make(chan struct{})
			go func() {
				defer close(done)
				if heldAt == "start" {
					next = begin("f2")
				}
				publish(next)
			}()
			time.Sleep(500 * time.Millisecond) // the load's start, or its drop, under way
			c := providers.Circle{Center: providers.Point{Lat: 38.89, Lng: -77.03}, RadiusMeters: 500}
			for range 3 {
				start := time.Now()
				if _, places, err := db.OSMPlacesNear(ctx, c, providers.PlaceFilter{}); err != nil || len(places) != 1 {
					t.Fatalf("a read during the long one: %v, %v", places, err)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("a read during the long one took %s: it queued behind the %s's lock", d, heldAt)
				}
				time.Sleep(200 * time.Millisecond)
			}
			<-released
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the load did not end after the long read did")
			}
			var left *string
			if err := db.pool.QueryRow(ctx, `SELECT to_regclass($1)::text`, fmt.Sprintf("osm_places_g%d", former.Generation)).Scan(&left); err != nil || left != nil {
				t.Errorf("the former generation's partition after the long read ended: %v, %v; want it dropped", left, err)
			}
		})
	}
}

// TestADropStillRefusedIsLeftToTheNextLoad: a former generation whose
// partition stays locked by a read through every try of its drop
// (Partitions.Guard, some six seconds) is left in place, the publish
// succeeding; the next load's drop removes it.
func TestADropStillRefusedIsLeftToTheNextLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a read for eight seconds")
	}
	db, _ := openFresh(t)
	ctx := context.Background()
	box := providers.BBox{West: -77.15, South: 38.80, East: -76.925, North: 38.98}
	load := func(fp string) providers.OSMLoad {
		l, _, err := db.BeginOSM(ctx, "dc", fp)
		if err != nil {
			t.Fatal(err)
		}
		p := providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: 1, Version: 1}, Category: "parks", Type: "park",
			Name: "Park", NameKey: "park", Point: providers.Point{Lat: 38.89, Lng: -77.03}}
		if err := db.PutOSM(ctx, &l, providers.OSMBatch{Places: []providers.OSMPlace{p}}, 1); err != nil {
			t.Fatal(err)
		}
		return l
	}
	publish := func(l providers.OSMLoad) {
		if _, err := db.PublishOSM(ctx, l, providers.OSMExtract{Timestamp: time.Now(), Coverage: box}); err != nil {
			t.Fatal(err)
		}
	}
	former := load("f1")
	publish(former)
	partition := fmt.Sprintf("osm_places_g%d", former.Generation)
	exists := func() bool {
		var name *string
		if err := db.pool.QueryRow(ctx, `SELECT to_regclass($1)::text`, partition).Scan(&name); err != nil {
			t.Fatal(err)
		}
		return name != nil
	}
	second := load("f2")
	holder, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx) //nolint:errcheck // committed below
	var n int
	if err := holder.QueryRow(ctx, `SELECT COUNT(*) FROM osm_places WHERE generation = $1`, former.Generation).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the long read: %d, %v", n, err)
	}
	start := time.Now()
	publish(second) // its drop gives up on the former generation's places
	if d := time.Since(start); d < 4*time.Second || d > 15*time.Second {
		t.Errorf("the publish took %s, want its drop's tries, some six seconds", d)
	}
	if !exists() {
		t.Fatal("the former generation's places were dropped while a read held them")
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	publish(load("f3"))
	if exists() {
		t.Error("the next load's drop left the former generation's places in place")
	}
}

// Two assessor datasets with generations of one number retire and drop
// each its own: see storetest.RetiredByDatasetGo.
func TestRetiredByDatasetGo(t *testing.T) {
	db, _ := openFresh(t)
	storetest.RetiredByDatasetGo(t, db, countIn(db))
}
