package osmwalk

import (
	"math"
	"sort"

	"github.com/propertyd/propertyd/providers"
)

// CategoryWeight is one category's part of the score: the points its best,
// second best... item can earn at full credit. Ranks never increase.
type CategoryWeight struct {
	Category string
	Ranks    []float64
}

// Weight returns the category's raw weight, the sum of its rank points.
func (w CategoryWeight) Weight() float64 {
	s := 0.0
	for _, r := range w.Ranks {
		s += r
	}
	return s
}

// Weights is the scoring table, one row per key of
// providers.AmenityCategories; the package doc explains the numbers. Treat
// it as read-only.
var Weights = []CategoryWeight{
	{Category: "grocery", Ranks: []float64{3}},
	{Category: "restaurants", Ranks: []float64{.75, .45, .25, .25, .225, .225, .225, .225, .2, .2}},
	{Category: "transit", Ranks: []float64{1, .6, .4}},
	{Category: "schools", Ranks: []float64{1}},
	{Category: "parks", Ranks: []float64{1}},
	{Category: "banks", Ranks: []float64{1}},
	{Category: "hospitals", Ranks: []float64{.5}},
}

// TypeFactors scales the value of items by their type; a type not listed
// counts fully. A convenience store is a weaker grocery stop.
var TypeFactors = map[string]float64{"convenience": 0.5}

// The decay range in miles: full credit up to FullCreditMiles (a five-minute
// walk), none from ZeroCreditMiles on.
const (
	FullCreditMiles = 0.25
	ZeroCreditMiles = 1.0
)

// Walk Score's band descriptions.
const (
	WalkersParadise  = "Walker's Paradise"
	VeryWalkable     = "Very Walkable"
	SomewhatWalkable = "Somewhat Walkable"
	CarDependent     = "Car-Dependent"
)

// Decay returns the share of an item's points earned at miles: 1 up to
// FullCreditMiles, 0 from ZeroCreditMiles on, a half cosine between. An
// unknown (NaN) distance earns nothing.
func Decay(miles float64) float64 {
	switch {
	case math.IsNaN(miles) || miles >= ZeroCreditMiles:
		return 0
	case miles <= FullCreditMiles:
		return 1
	}
	t := (miles - FullCreditMiles) / (ZeroCreditMiles - FullCreditMiles)
	return (1 + math.Cos(math.Pi*t)) / 2
}

// Describe returns the band description of a 0-100 score.
func Describe(score int) string {
	switch {
	case score >= 90:
		return WalkersParadise
	case score >= 70:
		return VeryWalkable
	case score >= 50:
		return SomewhatWalkable
	}
	return CarDependent
}

// Score computes the walk score of a place from the amenities around it (as
// listed within at least ZeroCreditMiles). A nil a, or missing categories,
// count as no amenities. It is pure and safe for concurrent use.
func Score(a *providers.Amenities) *providers.WalkScore {
	total := 0.0
	for _, w := range Weights {
		total += w.Weight()
	}
	ws := &providers.WalkScore{
		Method:    Method,
		Source:    Source,
		Breakdown: make(map[string]providers.WalkScoreCategory, len(Weights)),
	}
	if a != nil {
		ws.AmenitiesSource, ws.Vintage = a.Source, a.Vintage
	}
	sum := 0.0
	for _, w := range Weights {
		var items []providers.Amenity
		if a != nil {
			items = a.Categories[w.Category]
		}
		values := make([]float64, 0, len(items))
		var nearest *float64
		for _, it := range items {
			if nearest == nil || it.DistanceMiles < *nearest {
				d := it.DistanceMiles
				nearest = &d
			}
			f, ok := TypeFactors[it.Type]
			if !ok {
				f = 1
			}
			values = append(values, Decay(it.DistanceMiles)*f)
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(values)))
		raw := 0.0
		for k, pts := range w.Ranks {
			if k < len(values) {
				raw += pts * values[k]
			}
		}
		points := 100 * raw / total
		sum += points
		ws.Breakdown[w.Category] = providers.WalkScoreCategory{
			Weight:  round2(100 * w.Weight() / total),
			Count:   len(items),
			Nearest: nearest,
			Points:  round2(points),
		}
	}
	ws.WalkScore = int(math.Max(0, math.Min(100, math.Round(sum))))
	ws.Description = Describe(ws.WalkScore)
	return ws
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
