package overpass

import (
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// Rule maps OpenStreetMap tags to an amenity category: an element whose tag
// Key has one of Values belongs to Category, with that value as its type.
type Rule struct {
	Category string   // a key of providers.AmenityCategories
	Key      string   // OSM tag key, e.g. "amenity"
	Values   []string // accepted values of Key, e.g. "school"
}

// Rules is the tag table: the query asks for exactly these tags, and an
// element is put in the category of the first rule it matches, so the order
// settles elements carrying several tags (a railway=station that is also a
// public_transport=station is a "station"; a highway=bus_stop that is also a
// public_transport=platform is a "bus_stop"). The package doc explains what
// is left out and why. Treat it as read-only.
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
	for _, r := range Rules {
		v, has := tags[r.Key]
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

// query returns the Overpass QL text asking for every Rules element within
// radius metres of p, ways and relations with their center.
func query(p providers.Point, radius, timeout int) string {
	var b strings.Builder
	b.WriteString("[out:json][timeout:")
	b.WriteString(strconv.Itoa(timeout))
	b.WriteString("];\n(\n")
	around := "nwr(around:" + strconv.Itoa(radius) + "," +
		strconv.FormatFloat(p.Lat, 'f', -1, 64) + "," +
		strconv.FormatFloat(p.Lng, 'f', -1, 64) + ")"
	for _, r := range Rules {
		b.WriteString("  ")
		b.WriteString(around)
		b.WriteString(filter(r))
		b.WriteString(";\n")
	}
	b.WriteString(");\nout center tags;\n")
	return b.String()
}

// filter returns the tag filter of r: an equality for one value, an anchored
// regular expression for several.
func filter(r Rule) string {
	if len(r.Values) == 1 {
		return "[" + qlString(r.Key) + "=" + qlString(r.Values[0]) + "]"
	}
	return "[" + qlString(r.Key) + "~" + qlString("^("+strings.Join(r.Values, "|")+")$") + "]"
}

// qlString quotes s as an Overpass QL string literal.
func qlString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// displayName is the name shown for an item: its name tag, else its brand,
// else its type in words ("bus_stop" becomes "Bus stop").
func displayName(tags map[string]string, typ string) string {
	for _, k := range []string{"name", "brand"} {
		if v := strings.TrimSpace(tags[k]); v != "" {
			return v
		}
	}
	words := strings.ReplaceAll(typ, "_", " ")
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:]
}
