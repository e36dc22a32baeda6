package overpass

import (
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
)

// query returns the Overpass QL text asking for every amenity.Rules element within
// radius metres of p, ways and relations with their center.
func query(p providers.Point, radius, timeout int) string {
	var b strings.Builder
	b.WriteString("[out:json][timeout:")
	b.WriteString(strconv.Itoa(timeout))
	b.WriteString("];\n(\n")
	around := "nwr(around:" + strconv.Itoa(radius) + "," +
		strconv.FormatFloat(p.Lat, 'f', -1, 64) + "," +
		strconv.FormatFloat(p.Lng, 'f', -1, 64) + ")"
	for _, r := range amenity.Rules {
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
func filter(r amenity.Rule) string {
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
