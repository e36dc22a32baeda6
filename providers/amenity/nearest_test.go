package amenity_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
)

// neighbourhood is n places around p: half of them near p or all spread
// evenly, of
// every category and type, many sharing a name, and a sixth of them the
// twin of another (same category and name, any of its types, 10 to 40 m
// away: one place mapped twice, a bus stop and its platform).
func neighbourhood(rng *rand.Rand, p providers.Point, n int, clustered bool) []providers.OSMPlace {
	var kinds []struct{ cat, typ string }
	for _, r := range amenity.Rules {
		for _, v := range r.Values {
			kinds = append(kinds, struct{ cat, typ string }{r.Category, v})
		}
	}
	typesOf := func(cat string) []string {
		var out []string
		for _, k := range kinds {
			if k.cat == cat {
				out = append(out, k.typ)
			}
		}
		return out
	}
	var out []providers.OSMPlace
	for i := range n {
		pl := providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: int64(i + 1)}}
		if len(out) > 0 && rng.IntN(6) == 0 {
			twin := out[rng.IntN(len(out))]
			ts := typesOf(twin.Category)
			pl.Category, pl.Type, pl.Name, pl.NameKey = twin.Category, ts[rng.IntN(len(ts))], twin.Name, twin.NameKey
			d := (10 + rng.Float64()*30) / 111195
			pl.Point = providers.Point{Lat: twin.Point.Lat + d, Lng: twin.Point.Lng + d*rng.Float64()}
		} else {
			k := kinds[rng.IntN(len(kinds))]
			pl.Category, pl.Type = k.cat, k.typ
			pl.Name = amenity.DisplayName("", "", k.typ)
			if rng.IntN(5) > 0 {
				pl.Name = fmt.Sprint("Place ", rng.IntN(400))
				pl.NameKey = amenity.NameKey(pl.Name)
			}
			spread := 0.02
			if clustered && rng.IntN(2) == 0 {
				spread = 0.006
			}
			pl.Point = providers.Point{Lat: p.Lat + (rng.Float64()-0.5)*2*spread, Lng: p.Lng + (rng.Float64()-0.5)*2.6*spread}
		}
		out = append(out, pl)
	}
	return out
}

// TestCollectNearestAnswersAsCollect: reading nearest first, a capped
// answer is the one Collect gives of every place of the circle, on random
// neighbourhoods clustered and even, sparse and dense, for several caps
// and radii.
func TestCollectNearestAnswersAsCollect(t *testing.T) {
	p := providers.Point{Lat: 38.9, Lng: -77.03}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 9))
		clustered := seed%2 == 0
		n := 50 + rng.IntN(1500)
		if seed%10 == 1 {
			n = 2000 + rng.IntN(2000)
		}
		places := neighbourhood(rng, p, n, clustered)
		for _, radius := range []int{2000, 900} {
			c := providers.Circle{Center: p, RadiusMeters: float64(radius)}
			var inCircle []providers.OSMPlace
			for _, pl := range places {
				if c.Contains(pl.Point) {
					inCircle = append(inCircle, pl)
				}
			}
			for _, n := range []int{20, 3, 1, 0} {
				got, err := amenity.CollectNearest(p, radius, n, "osm-extract", func(f providers.PlaceFilter) ([]providers.OSMPlace, error) {
					var out []providers.OSMPlace
					for _, pl := range inCircle {
						if f.Selects(p, pl) {
							out = append(out, pl)
						}
					}
					return out, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				want := amenity.Collect(p, radius, inCircle, n, "osm-extract")
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				if string(gj) != string(wj) {
					t.Fatalf("seed %d, radius %d, cap %d: reading nearest first a user reads\n%s\nwhere all places give\n%s", seed, radius, n, gj, wj)
				}
			}
		}
	}
}

// TestCollectNearestReadsLittleOfADowntown: of a downtown circle of some
// 3,300 places of the common kinds (the benchmark's generated city), a
// capped answer reads the places of the near circle and, of the whole
// circle, no more than the few types none of them is: under a fifth of the
// places, for the same answer.
func TestCollectNearestReadsLittleOfADowntown(t *testing.T) {
	p := providers.Point{Lat: 38.9, Lng: -77.03}
	kinds := [][3]string{{"schools", "school"}, {"hospitals", "hospital"}, {"grocery", "supermarket"}, {"parks", "park"},
		{"transit", "bus_stop"}, {"restaurants", "restaurant"}, {"restaurants", "cafe"}, {"banks", "bank"}}
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 3))
		c := providers.Circle{Center: p, RadiusMeters: 2000}
		var places []providers.OSMPlace
		for i := 0; len(places) < 3300; i++ {
			k := kinds[i%len(kinds)]
			name := fmt.Sprint("Place ", i)
			pl := providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: int64(i)}, Category: k[0], Type: k[1],
				Name: name, NameKey: amenity.NameKey(name),
				Point: providers.Point{Lat: p.Lat + (rng.Float64()-0.5)*0.036, Lng: p.Lng + (rng.Float64()-0.5)*0.046}}
			if c.Contains(pl.Point) {
				places = append(places, pl)
			}
		}
		read := 0
		got, err := amenity.CollectNearest(p, 2000, 20, "osm-extract", func(f providers.PlaceFilter) ([]providers.OSMPlace, error) {
			var out []providers.OSMPlace
			for _, pl := range places {
				if f.Selects(p, pl) {
					out = append(out, pl)
				}
			}
			read += len(out)
			return out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(amenity.Collect(p, 2000, places, 20, "osm-extract"))
		if string(gj) != string(wj) {
			t.Fatalf("seed %d: reading nearest first a user reads\n%s\nwhere all places give\n%s", seed, gj, wj)
		}
		if read > len(places)/5 {
			t.Errorf("seed %d: reading nearest first read %d of the circle's %d places", seed, read, len(places))
		}
	}
}

func TestCollectNearestPassesOnReadErrors(t *testing.T) {
	down := providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable, "the database is down")
	calls := 0
	_, err := amenity.CollectNearest(providers.Point{Lat: 38.9, Lng: -77.03}, 2000, 20, "osm-extract",
		func(providers.PlaceFilter) ([]providers.OSMPlace, error) { calls++; return nil, down })
	if err != down || calls != 1 {
		t.Errorf("a failing read: err %v after %d reads, want the read's error after 1", err, calls)
	}
}
