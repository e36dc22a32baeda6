package amenity

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// DedupeMeters is the distance under which two items of one category with
// the same name are taken for the same place mapped twice.
const DedupeMeters = 50

const metersPerMile = 1609.344

// Attribution is the credit every answer built from OpenStreetMap data
// carries, whichever path it came by: the Open Database License asks that
// a work produced from the data say where it comes from.
const Attribution = "© OpenStreetMap contributors, ODbL 1.0 (https://www.openstreetmap.org/copyright)"

// Collect builds the answer around p from places, each already classified
// (an element Rules rejects is no Place): placed, de-duplicated, sorted and
// capped at maxResults per category (0 means no cap). A place listed twice
// (same Key) counts once. radius and source are reported as they are; the
// caller has chosen the places within the radius. The answer carries
// Attribution.
func Collect(p providers.Point, radius int, places []providers.OSMPlace, maxResults int, source string) *providers.Amenities {
	seen := make(map[string]bool, len(places))
	byCat := make(map[string][]candidate, len(providers.AmenityCategories))
	for _, pl := range places {
		key := pl.Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		m := p.DistanceMeters(pl.Point)
		byCat[pl.Category] = append(byCat[pl.Category], candidate{
			item: providers.Amenity{
				Name:          pl.Name,
				Type:          pl.Type,
				DistanceMiles: roundMiles(m),
				Latitude:      pl.Point.Lat,
				Longitude:     pl.Point.Lng,
			},
			meters: m,
			at:     pl.Point,
			name:   pl.NameKey,
			key:    key,
		})
	}
	out := &providers.Amenities{
		RadiusMeters: radius,
		Categories:   make(map[string][]providers.Amenity, len(providers.AmenityCategories)),
		Source:       source,
		Attribution:  Attribution,
	}
	for _, cat := range providers.AmenityCategories {
		items := dedupe(byCat[cat])
		slices.SortStableFunc(items, func(a, b candidate) int {
			if c := cmp.Compare(a.item.DistanceMiles, b.item.DistanceMiles); c != 0 {
				return c
			}
			if c := strings.Compare(a.item.Name, b.item.Name); c != 0 {
				return c
			}
			return strings.Compare(a.key, b.key)
		})
		if maxResults > 0 && len(items) > maxResults {
			items = items[:maxResults]
		}
		list := make([]providers.Amenity, len(items))
		for i, c := range items {
			list[i] = c.item
		}
		out.Categories[cat] = list
		out.TotalCount += len(list)
	}
	return out
}

// candidate is an item on its way into the answer, with the exact distance
// and identity used to de-duplicate and order it.
type candidate struct {
	item   providers.Amenity
	meters float64
	at     providers.Point
	name   string // NameKey of the name tag; empty when unnamed
	key    string // type/id
}

// dedupe drops the farther of two items with the same name less than
// DedupeMeters apart: one place mapped twice. Unnamed items are kept.
func dedupe(cs []candidate) []candidate {
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if c := cmp.Compare(a.meters, b.meters); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	kept := cs[:0:0]
	named := map[string][]providers.Point{}
	for _, c := range cs {
		if c.name != "" {
			if near(named[c.name], c.at) {
				continue
			}
			named[c.name] = append(named[c.name], c.at)
		}
		kept = append(kept, c)
	}
	return kept
}

// near reports whether q is less than DedupeMeters from one of ps.
func near(ps []providers.Point, q providers.Point) bool {
	for _, p := range ps {
		if p.DistanceMeters(q) < DedupeMeters {
			return true
		}
	}
	return false
}

// roundMiles converts metres to miles rounded to two decimals.
func roundMiles(m float64) float64 {
	return math.Round(m/metersPerMile*100) / 100
}
