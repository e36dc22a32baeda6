package osmwalk_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/osmwalk"
)

// place builds amenities from category → distances in miles.
func place(byCat map[string][]float64) *providers.Amenities {
	a := &providers.Amenities{RadiusMeters: 2000, Categories: map[string][]providers.Amenity{}, Source: "overpass"}
	for _, c := range providers.AmenityCategories {
		a.Categories[c] = []providers.Amenity{}
	}
	for c, ds := range byCat {
		for _, d := range ds {
			a.Categories[c] = append(a.Categories[c], providers.Amenity{Name: c, Type: typeOf(c), DistanceMiles: d})
			a.TotalCount++
		}
	}
	return a
}

func typeOf(c string) string {
	return map[string]string{"schools": "school", "hospitals": "hospital", "grocery": "supermarket", "parks": "park",
		"transit": "bus_stop", "restaurants": "restaurant", "banks": "bank"}[c]
}

func repeat(d float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func TestScore(t *testing.T) {
	downtown := map[string][]float64{
		"grocery": {0.1}, "restaurants": repeat(0.15, 12), "transit": {0.05, 0.08, 0.12},
		"schools": {0.3}, "parks": {0.2}, "banks": {0.1}, "hospitals": {0.8},
	}
	tests := []struct {
		name     string
		a        *providers.Amenities
		min, max int
		desc     string
	}{
		{"nil amenities", nil, 0, 0, "Car-Dependent"},
		{"no amenities", place(nil), 0, 0, "Car-Dependent"},
		{"everything beyond a mile", place(map[string][]float64{"grocery": {1.2}, "restaurants": {1.0, 1.3}, "parks": {1.1}}), 0, 0, "Car-Dependent"},
		{"everything at the door", place(map[string][]float64{
			"grocery": {0}, "restaurants": repeat(0, 10), "transit": {0, 0, 0}, "schools": {0}, "parks": {0}, "banks": {0}, "hospitals": {0},
		}), 100, 100, "Walker's Paradise"},
		{"dense downtown", place(downtown), 95, 97, "Walker's Paradise"},
		{"inner suburb", place(map[string][]float64{
			"grocery": {0.4}, "restaurants": {0.3, 0.5, 0.6}, "transit": {0.2}, "schools": {0.5}, "parks": {0.3},
		}), 50, 69, "Somewhat Walkable"},
		{"outer suburb", place(map[string][]float64{"grocery": {0.9}, "schools": {0.6}, "parks": {0.7}, "transit": {0.5}}), 1, 24, "Car-Dependent"},
		{"only a convenience store next door", &providers.Amenities{Categories: map[string][]providers.Amenity{
			"grocery": {{Name: "Corner", Type: "convenience", DistanceMiles: 0.05}}}}, 13, 13, "Car-Dependent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := osmwalk.Score(tt.a)
			if got.WalkScore < tt.min || got.WalkScore > tt.max || got.Description != tt.desc {
				t.Errorf("score %d %q, want %d..%d %q (breakdown %+v)", got.WalkScore, got.Description, tt.min, tt.max, tt.desc, got.Breakdown)
			}
			if got.Method != "osm-distance-decay" || got.Source != "osm-walk" {
				t.Errorf("method %q source %q", got.Method, got.Source)
			}
			if len(got.Breakdown) != len(providers.AmenityCategories) {
				t.Errorf("breakdown has %d categories, want %d", len(got.Breakdown), len(providers.AmenityCategories))
			}
		})
	}
}

func TestScoreBreakdown(t *testing.T) {
	got := osmwalk.Score(place(map[string][]float64{"grocery": {0.625, 0.1}, "restaurants": {0.2, 0.25}}))
	g := got.Breakdown["grocery"]
	if g.Weight != 26.09 || g.Count != 2 || g.Nearest == nil || *g.Nearest != 0.1 || g.Points != 26.09 {
		t.Errorf("grocery = %+v (nearest %v), want weight 26.09, 2 items, nearest 0.1, full points", g, g.Nearest)
	}
	// Ranks .75 and .45 at full credit: 1.2 of 11.5 raw points.
	if r := got.Breakdown["restaurants"]; r.Points != 10.43 || r.Weight != 26.09 {
		t.Errorf("restaurants = %+v, want 10.43 of 26.09 points", r)
	}
	if h := got.Breakdown["hospitals"]; h.Nearest != nil || h.Count != 0 || h.Points != 0 || h.Weight != 4.35 {
		t.Errorf("hospitals = %+v, want no items, null nearest, 4.35 weight", h)
	}
	if got.WalkScore != 37 { // 26.09 + 10.43 = 36.52
		t.Errorf("score = %d, want 37", got.WalkScore)
	}
	total := 0.0
	for _, b := range got.Breakdown {
		total += b.Weight
	}
	if math.Abs(total-100) > 0.05 {
		t.Errorf("weights sum to %v, want 100", total)
	}
}

func TestDecay(t *testing.T) {
	tests := []struct{ miles, want float64 }{
		{0, 1}, {0.25, 1}, {0.375, 0.933}, {0.5, 0.75}, {0.625, 0.5}, {0.75, 0.25}, {0.875, 0.067}, {1, 0}, {3, 0}, {math.NaN(), 0},
	}
	for _, tt := range tests {
		if got := osmwalk.Decay(tt.miles); math.Abs(got-tt.want) > 0.001 {
			t.Errorf("Decay(%v) = %v, want %v", tt.miles, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		score int
		want  string
	}{
		{100, "Walker's Paradise"}, {90, "Walker's Paradise"}, {89, "Very Walkable"}, {70, "Very Walkable"},
		{69, "Somewhat Walkable"}, {50, "Somewhat Walkable"}, {49, "Car-Dependent"}, {25, "Car-Dependent"},
		{24, "Car-Dependent"}, {0, "Car-Dependent"},
	}
	for _, tt := range tests {
		if got := osmwalk.Describe(tt.score); got != tt.want {
			t.Errorf("Describe(%d) = %q, want %q", tt.score, got, tt.want)
		}
	}
}

// TestScoreIsMonotonic checks on random places that adding an amenity, or
// moving one nearer, never lowers the score.
func TestScoreIsMonotonic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	types := map[string][]string{"grocery": {"supermarket", "convenience", "greengrocer"}}
	randomItem := func(c string) providers.Amenity {
		typ := typeOf(c)
		if ts, ok := types[c]; ok {
			typ = ts[rng.IntN(len(ts))]
		}
		return providers.Amenity{Name: c, Type: typ, DistanceMiles: math.Round(rng.Float64()*130) / 100}
	}
	clone := func(a *providers.Amenities) *providers.Amenities {
		b := &providers.Amenities{Categories: map[string][]providers.Amenity{}}
		for c, items := range a.Categories {
			b.Categories[c] = append([]providers.Amenity(nil), items...)
		}
		return b
	}
	for i := range 2000 {
		a := &providers.Amenities{Categories: map[string][]providers.Amenity{}}
		for _, c := range providers.AmenityCategories {
			for range rng.IntN(6) {
				a.Categories[c] = append(a.Categories[c], randomItem(c))
			}
		}
		before := osmwalk.Score(a).WalkScore
		c := providers.AmenityCategories[rng.IntN(len(providers.AmenityCategories))]

		added := clone(a)
		added.Categories[c] = append(added.Categories[c], randomItem(c))
		if after := osmwalk.Score(added).WalkScore; after < before {
			t.Fatalf("case %d: adding %+v to %s lowered the score from %d to %d", i, added.Categories[c][len(added.Categories[c])-1], c, before, after)
		}
		if n := len(a.Categories[c]); n > 0 {
			moved := clone(a)
			k := rng.IntN(n)
			moved.Categories[c][k].DistanceMiles *= rng.Float64()
			if after := osmwalk.Score(moved).WalkScore; after < before {
				t.Fatalf("case %d: moving a %s nearer lowered the score from %d to %d", i, c, before, after)
			}
		}
	}
}

func TestWeightsCoverEveryCategory(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range osmwalk.Weights {
		seen[w.Category] = true
		for k := 1; k < len(w.Ranks); k++ {
			if w.Ranks[k] > w.Ranks[k-1] {
				t.Errorf("%s ranks increase at %d: later items would count more", w.Category, k)
			}
		}
	}
	for _, c := range providers.AmenityCategories {
		if !seen[c] {
			t.Errorf("category %s has no weight", c)
		}
	}
}
