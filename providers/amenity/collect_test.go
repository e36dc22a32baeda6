package amenity_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
)

// plainCollect is the answer as the package doc defines it, written the
// plain way (one sorted list per category, a map of the names kept, the
// types listed): what Collect must answer, however it goes about it.
func plainCollect(p providers.Point, radius int, places []providers.OSMPlace, maxResults int, source string) *providers.Amenities {
	type cand struct {
		item   providers.Amenity
		meters float64
		at     providers.Point
		name   string
		key    string
	}
	seen := map[string]bool{}
	byCat := map[string][]cand{}
	for _, pl := range places {
		key := pl.Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		m := p.DistanceMeters(pl.Point)
		byCat[pl.Category] = append(byCat[pl.Category], cand{
			item: providers.Amenity{Name: pl.Name, Type: pl.Type, DistanceMiles: math.Round(m/1609.344*100) / 100,
				Latitude: pl.Point.Lat, Longitude: pl.Point.Lng},
			meters: m, at: pl.Point, name: pl.NameKey, key: key,
		})
	}
	out := &providers.Amenities{RadiusMeters: radius, Categories: map[string][]providers.Amenity{}, Source: source,
		Attribution: amenity.Attribution}
	for _, cat := range providers.AmenityCategories {
		cs := byCat[cat]
		slices.SortStableFunc(cs, func(a, b cand) int {
			if c := cmp.Compare(a.meters, b.meters); c != 0 {
				return c
			}
			return strings.Compare(a.key, b.key)
		})
		var kept []cand
		named := map[string][]providers.Point{}
	next:
		for _, c := range cs {
			if c.name != "" {
				for _, q := range named[c.name] {
					if q.DistanceMeters(c.at) < amenity.DedupeMeters {
						continue next
					}
				}
				named[c.name] = append(named[c.name], c.at)
			}
			kept = append(kept, c)
		}
		slices.SortStableFunc(kept, func(a, b cand) int {
			if c := cmp.Compare(a.item.DistanceMiles, b.item.DistanceMiles); c != 0 {
				return c
			}
			if c := strings.Compare(a.item.Name, b.item.Name); c != 0 {
				return c
			}
			return strings.Compare(a.key, b.key)
		})
		if maxResults > 0 && len(kept) > maxResults {
			listed := map[string]bool{}
			for _, c := range kept[:maxResults] {
				listed[c.item.Type] = true
			}
			capped := kept[:maxResults:maxResults]
			for _, c := range kept[maxResults:] {
				if !listed[c.item.Type] {
					listed[c.item.Type] = true
					capped = append(capped, c)
				}
			}
			kept = capped
		}
		list := make([]providers.Amenity, len(kept))
		for i, c := range kept {
			list[i] = c.item
		}
		out.Categories[cat] = list
		out.TotalCount += len(list)
	}
	return out
}

// randomPlaces are n places around p, drawn to exercise every rule: few
// names (so that places share them, some less than 50 m apart), unnamed
// places, elements listed twice, places at the very same point, ids whose
// text orders them otherwise than their numbers, every category and type.
func randomPlaces(rng *rand.Rand, p providers.Point, n int) []providers.OSMPlace {
	var rules []struct{ cat, typ string }
	for _, r := range amenity.Rules {
		for _, v := range r.Values {
			rules = append(rules, struct{ cat, typ string }{r.Category, v})
		}
	}
	types := []string{"node", "way", "relation"}
	out := make([]providers.OSMPlace, 0, n)
	for len(out) < n {
		if len(out) > 0 && rng.IntN(20) == 0 {
			dup := out[rng.IntN(len(out))]
			dup.Version++
			out = append(out, dup) // the same element again
			continue
		}
		r := rules[rng.IntN(len(rules))]
		at := providers.Point{Lat: p.Lat + (rng.Float64()-0.5)*0.03, Lng: p.Lng + (rng.Float64()-0.5)*0.04}
		if len(out) > 0 && rng.IntN(10) == 0 {
			at = out[rng.IntN(len(out))].Point // a tie in distance
		}
		name, key := amenity.DisplayName("", "", r.typ), ""
		if rng.IntN(4) > 0 {
			tag := fmt.Sprintf("Place %d", rng.IntN(12))
			name, key = tag, amenity.NameKey(tag)
		}
		out = append(out, providers.OSMPlace{
			OSMRef:   providers.OSMRef{Type: types[rng.IntN(len(types))], ID: int64(rng.IntN(200)), Version: 1},
			Category: r.cat, Type: r.typ, Name: name, NameKey: key, Point: at,
		})
	}
	return out
}

func TestCollectAnswersAsTheRulesSay(t *testing.T) {
	p := providers.Point{Lat: 38.9, Lng: -77.03}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 22))
		places := randomPlaces(rng, p, 1+rng.IntN(400))
		for _, maxResults := range []int{0, 1, 3, 20} {
			got := amenity.Collect(p, 2000, places, maxResults, "osm-extract")
			want := plainCollect(p, 2000, places, maxResults, "osm-extract")
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if string(gj) != string(wj) {
				t.Fatalf("seed %d, max_results %d: a user would read\n%s\nwhere the rules give\n%s", seed, maxResults, gj, wj)
			}
		}
	}
}

// TestACapListsTheNearestOfEachOtherType: capped at 2, the grocery list
// is the two nearest convenience stores and then the supermarket farther
// off, not the third convenience store; transit, the two bus stops and the
// subway entrance; a category within the cap is listed whole.
func TestACapListsTheNearestOfEachOtherType(t *testing.T) {
	p := providers.Point{Lat: 38.9, Lng: -77.03}
	north := func(m float64) providers.Point { return providers.Point{Lat: p.Lat + m/111195, Lng: p.Lng} }
	id := int64(0)
	place := func(cat, typ, name string, m float64) providers.OSMPlace {
		id++
		return providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: id}, Category: cat, Type: typ, Name: name,
			NameKey: amenity.NameKey(name), Point: north(m)}
	}
	places := []providers.OSMPlace{
		place("grocery", "convenience", "Corner 1", 100), place("grocery", "convenience", "Corner 2", 200),
		place("grocery", "convenience", "Corner 3", 300), place("grocery", "supermarket", "Big Market", 900),
		place("grocery", "supermarket", "Bigger Market", 1000),
		place("transit", "bus_stop", "K St", 50), place("transit", "bus_stop", "L St", 150), place("transit", "bus_stop", "M St", 250),
		place("transit", "subway_entrance", "Metro", 700), place("transit", "bus_stop", "N St", 800),
		place("schools", "school", "Elm School", 400),
	}
	got := amenity.Collect(p, 2000, places, 2, "osm-extract")
	names := func(cat string) []string {
		var out []string
		for _, a := range got.Categories[cat] {
			out = append(out, a.Name)
		}
		return out
	}
	for cat, want := range map[string][]string{
		"grocery": {"Corner 1", "Corner 2", "Big Market"},
		"transit": {"K St", "L St", "Metro"},
		"schools": {"Elm School"},
	} {
		if g := names(cat); !slices.Equal(g, want) {
			t.Errorf("%s capped at 2: a user reads %q, want %q", cat, g, want)
		}
	}
	if got.TotalCount != 7 {
		t.Errorf("total_count = %d, want the 7 items listed", got.TotalCount)
	}
}

func BenchmarkCollectDowntown(b *testing.B) {
	p := providers.Point{Lat: 38.9, Lng: -77.03}
	rng := rand.New(rand.NewPCG(1, 2))
	places := make([]providers.OSMPlace, 3300)
	for i := range places {
		r := amenity.Rules[i%len(amenity.Rules)]
		name := fmt.Sprintf("Place %d", i)
		places[i] = providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: int64(i)}, Category: r.Category, Type: r.Values[0],
			Name: name, NameKey: amenity.NameKey(name),
			Point: providers.Point{Lat: p.Lat + (rng.Float64()-0.5)*0.036, Lng: p.Lng + (rng.Float64()-0.5)*0.046}}
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			plainCollect(p, 2000, places, 0, "osm-extract")
		}
	})
	b.Run("collect", func(b *testing.B) {
		for b.Loop() {
			amenity.Collect(p, 2000, places, 0, "osm-extract")
		}
	})
}
