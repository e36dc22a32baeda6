package amenity

import "strings"

// Rule maps OpenStreetMap tags to an amenity category: an element whose tag
// Key has one of Values belongs to Category, with that value as its type.
type Rule struct {
	Category string   // a key of providers.AmenityCategories
	Key      string   // OSM tag key, e.g. "amenity"
	Values   []string // accepted values of Key, e.g. "school"
}

// Rules is the tag table: the Overpass query asks for exactly these tags,
// the extract loader keeps exactly the elements they accept, and an element
// is put in the category of the first rule it matches, so the order settles
// elements carrying several tags (a railway=station that is also a
// public_transport=station is a "station"; a highway=bus_stop that is also
// a public_transport=platform is a "bus_stop"). The package doc explains
// what is left out and why. Treat it as read-only.
var Rules = []Rule{
	{Category: "schools", Key: "amenity", Values: []string{"school", "kindergarten", "college", "university"}},
	{Category: "hospitals", Key: "amenity", Values: []string{"hospital", "clinic", "doctors"}},
	{Category: "hospitals", Key: "healthcare", Values: []string{"hospital", "clinic"}},
	{Category: "grocery", Key: "shop", Values: []string{"supermarket", "grocery", "greengrocer", "convenience"}},
	{Category: "parks", Key: "leisure", Values: []string{"park", "playground"}},
	{Category: "transit", Key: "railway", Values: []string{"station", "halt", "tram_stop", "subway_entrance"}},
	{Category: "transit", Key: "highway", Values: []string{"bus_stop"}},
	{Category: "transit", Key: "amenity", Values: []string{"bus_station"}},
	{Category: "transit", Key: "public_transport", Values: []string{"station", "platform"}},
	{Category: "restaurants", Key: "amenity", Values: []string{"restaurant", "fast_food", "cafe", "food_court", "pub", "bar"}},
	{Category: "banks", Key: "amenity", Values: []string{"bank"}},
}

// Classify returns the category and type of an element with tags, by the
// first matching row of Rules, or ok=false when no row matches.
func Classify(tags map[string]string) (category, typ string, ok bool) {
	return ClassifyFunc(func(k string) (string, bool) {
		v, has := tags[k]
		return v, has
	})
}

// ClassifyFunc is Classify over a tag lookup, for callers that hold tags
// in another shape than a map (the extract loader reads them as a list).
func ClassifyFunc(tag func(key string) (string, bool)) (category, typ string, ok bool) {
	for _, r := range Rules {
		v, has := tag(r.Key)
		if !has {
			continue
		}
		for _, want := range r.Values {
			if v == want {
				return r.Category, v, true
			}
		}
	}
	return "", "", false
}

// DisplayName is the name shown for an item: its name tag, else its brand,
// else its type in words ("bus_stop" becomes "Bus stop").
func DisplayName(name, brand, typ string) string {
	for _, v := range []string{name, brand} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	words := strings.ReplaceAll(typ, "_", " ")
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:]
}

// NameKey is what de-duplication compares names by: the name tag, trimmed
// and lower case; empty for an unnamed item, which is never taken for
// another.
func NameKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }
