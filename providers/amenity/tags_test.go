package amenity_test

import (
	"slices"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		tags     map[string]string
		category string
		typ      string
	}{
		{map[string]string{"amenity": "school"}, "schools", "school"},
		{map[string]string{"amenity": "kindergarten"}, "schools", "kindergarten"},
		{map[string]string{"amenity": "university"}, "schools", "university"},
		{map[string]string{"amenity": "college"}, "schools", "college"},
		{map[string]string{"amenity": "hospital", "healthcare": "hospital"}, "hospitals", "hospital"},
		{map[string]string{"amenity": "clinic"}, "hospitals", "clinic"},
		{map[string]string{"amenity": "doctors"}, "hospitals", "doctors"},
		{map[string]string{"healthcare": "clinic"}, "hospitals", "clinic"},
		{map[string]string{"shop": "supermarket"}, "grocery", "supermarket"},
		{map[string]string{"shop": "greengrocer"}, "grocery", "greengrocer"},
		{map[string]string{"shop": "grocery"}, "grocery", "grocery"},
		{map[string]string{"shop": "convenience"}, "grocery", "convenience"},
		{map[string]string{"leisure": "park"}, "parks", "park"},
		{map[string]string{"leisure": "playground"}, "parks", "playground"},
		{map[string]string{"highway": "bus_stop", "public_transport": "platform"}, "transit", "bus_stop"},
		{map[string]string{"railway": "station", "public_transport": "station"}, "transit", "station"},
		{map[string]string{"railway": "tram_stop"}, "transit", "tram_stop"},
		{map[string]string{"railway": "subway_entrance"}, "transit", "subway_entrance"},
		{map[string]string{"railway": "halt"}, "transit", "halt"},
		{map[string]string{"amenity": "bus_station"}, "transit", "bus_station"},
		{map[string]string{"public_transport": "platform"}, "transit", "platform"},
		{map[string]string{"amenity": "restaurant"}, "restaurants", "restaurant"},
		{map[string]string{"amenity": "cafe"}, "restaurants", "cafe"},
		{map[string]string{"amenity": "fast_food"}, "restaurants", "fast_food"},
		{map[string]string{"amenity": "pub"}, "restaurants", "pub"},
		{map[string]string{"amenity": "bar"}, "restaurants", "bar"},
		{map[string]string{"amenity": "food_court"}, "restaurants", "food_court"},
		{map[string]string{"amenity": "bank", "atm": "yes"}, "banks", "bank"},
		{map[string]string{"amenity": "school", "leisure": "playground"}, "schools", "school"},
		// Deliberately left out.
		{map[string]string{"amenity": "atm"}, "", ""},
		{map[string]string{"amenity": "pharmacy"}, "", ""},
		{map[string]string{"leisure": "garden"}, "", ""},
		{map[string]string{"leisure": "nature_reserve"}, "", ""},
		{map[string]string{"public_transport": "stop_position"}, "", ""},
		{map[string]string{"amenity": "theatre"}, "", ""},
		{map[string]string{"highway": "turning_circle"}, "", ""},
		{map[string]string{"shop": "supermarket_"}, "", ""},
		{nil, "", ""},
	}
	for _, tt := range tests {
		cat, typ, ok := amenity.Classify(tt.tags)
		if cat != tt.category || typ != tt.typ || ok != (tt.category != "") {
			t.Errorf("Classify(%v) = %q, %q, %v; want %q, %q", tt.tags, cat, typ, ok, tt.category, tt.typ)
		}
	}
}

func TestRulesCoverEveryCategory(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range amenity.Rules {
		if !slices.Contains(providers.AmenityCategories, r.Category) {
			t.Errorf("rule %v names unknown category %q", r, r.Category)
		}
		if len(r.Values) == 0 {
			t.Errorf("rule %v has no values", r)
		}
		seen[r.Category] = true
	}
	for _, c := range providers.AmenityCategories {
		if !seen[c] {
			t.Errorf("no rule fills category %q", c)
		}
	}
}
