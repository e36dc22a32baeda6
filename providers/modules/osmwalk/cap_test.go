package osmwalk_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
	"github.com/propertyd/propertyd/providers/modules/osmwalk"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

// TestACapDoesNotChangeTheScore: the amenities module's default cap, and
// any cap of at least 10, leave the walk score, its description and every
// category's points and nearest distance as the whole list gives them
// (count says how many items the capped list holds). Around each of many
// random points the places are dense, and grocery stores are mostly
// convenience stores, nearer than the supermarkets: the case where a plain
// cap of the nearest items would lose the best grocery store.
func TestACapDoesNotChangeTheScore(t *testing.T) {
	p := providers.Point{Lat: 38.9, Lng: -77.03}
	var kinds []struct{ cat, typ string }
	for _, r := range amenity.Rules {
		for _, v := range r.Values {
			kinds = append(kinds, struct{ cat, typ string }{r.Category, v})
		}
	}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var places []providers.OSMPlace
		for i := range 50 + rng.IntN(400) {
			k := kinds[rng.IntN(len(kinds))]
			reach := 0.018 // degrees: some 2 km
			if rng.IntN(3) == 0 {
				k = struct{ cat, typ string }{"grocery", "convenience"}
				reach = 0.006
			}
			name := fmt.Sprintf("Place %d", rng.IntN(40))
			places = append(places, providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: int64(i)}, Category: k.cat, Type: k.typ,
				Name: name, NameKey: amenity.NameKey(name),
				Point: providers.Point{Lat: p.Lat + (rng.Float64()-0.5)*reach, Lng: p.Lng + (rng.Float64()-0.5)*reach*1.3}})
		}
		whole := osmwalk.Score(amenity.Collect(p, 2000, places, 0, "osm-extract"))
		for _, n := range []int{overpass.DefaultMaxResults, 10} {
			capped := osmwalk.Score(amenity.Collect(p, 2000, places, n, "osm-extract"))
			if capped.WalkScore != whole.WalkScore || capped.Description != whole.Description {
				t.Fatalf("seed %d, cap %d: a user reads a walk score of %d (%s), the whole list gives %d (%s)",
					seed, n, capped.WalkScore, capped.Description, whole.WalkScore, whole.Description)
			}
			for cat, w := range whole.Breakdown {
				c := capped.Breakdown[cat]
				if c.Points != w.Points || c.Weight != w.Weight || (c.Nearest == nil) != (w.Nearest == nil) ||
					(c.Nearest != nil && *c.Nearest != *w.Nearest) {
					t.Fatalf("seed %d, cap %d: %s reads %+v, the whole list gives %+v", seed, n, cat, c, w)
				}
			}
		}
	}
}

// TestTheScoreTableKeepsToWhatACapLeaves: what TestACapDoesNotChangeTheScore
// relies on, so that a change to the table that a cap would distort fails
// here, by name: no category weighs more items than the smallest cap the
// package doc promises (10), and a category weighing more than one item
// gives all its types the same factor.
func TestTheScoreTableKeepsToWhatACapLeaves(t *testing.T) {
	for _, w := range osmwalk.Weights {
		if len(w.Ranks) > 10 || len(w.Ranks) > overpass.DefaultMaxResults {
			t.Errorf("%s weighs %d items: a cap of 10 (or the default %d) would change its points", w.Category, len(w.Ranks), overpass.DefaultMaxResults)
		}
		if len(w.Ranks) < 2 {
			continue
		}
		for _, r := range amenity.Rules {
			if r.Category != w.Category {
				continue
			}
			for _, v := range r.Values {
				if f, ok := osmwalk.TypeFactors[v]; ok && f != 1 {
					t.Errorf("%s weighs %d items and its type %s counts %v: a cap keeps only the nearest of that type", w.Category, len(w.Ranks), v, f)
				}
			}
		}
	}
}
