package overpass

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

const metersPerMile = 1609.344

// Amenities lists the amenities within radiusMeters of p with one Overpass
// query. It returns KindInvalid (invalid_parameter "radius") for a radius
// outside [MinRadius, MaxRadius] or "point" for coordinates that are not
// WGS84; KindUpstream for an upstream error, error page, incomplete answer
// (upstream_incomplete) or rate limit (upstream_rate_limited);
// KindUnavailable (upstream_misconfigured) when the base URL is no
// interpreter; KindTimeout when ctx expired and KindCanceled when the caller
// went away.
func (c *Client) Amenities(ctx context.Context, p providers.Point, radiusMeters int) (*providers.Amenities, error) {
	if radiusMeters < MinRadius || radiusMeters > MaxRadius {
		return nil, providers.Invalid("radius",
			"must be from "+strconv.Itoa(MinRadius)+" to "+strconv.Itoa(MaxRadius)+" meters")
	}
	if !(p.Lat >= -90 && p.Lat <= 90) || !(p.Lng >= -180 && p.Lng <= 180) {
		return nil, providers.Invalid("point", "latitude must be from -90 to 90 and longitude from -180 to 180")
	}
	elements, err := c.interpret(ctx, query(p, radiusMeters, c.Options.TimeoutSeconds))
	if err != nil {
		return nil, err
	}
	return collect(p, radiusMeters, elements, c.MaxResults), nil
}

// candidate is an item on its way into the answer, with the exact distance
// and identity used to de-duplicate and order it.
type candidate struct {
	item   providers.Amenity
	meters float64
	at     providers.Point
	name   string // the name tag, lower case; empty when unnamed
	key    string // type/id
}

// collect builds the answer from the elements around p: classified,
// placed, de-duplicated, sorted and capped at maxResults per category
// (0 means no cap).
func collect(p providers.Point, radius int, elements []element, maxResults int) *providers.Amenities {
	seen := make(map[string]bool, len(elements))
	byCat := make(map[string][]candidate, len(providers.AmenityCategories))
	for _, e := range elements {
		key := e.Type + "/" + strconv.FormatInt(e.ID, 10)
		if seen[key] {
			continue
		}
		cat, typ, ok := Classify(e.Tags)
		if !ok {
			continue
		}
		at, ok := e.point()
		if !ok {
			continue
		}
		seen[key] = true
		m := p.DistanceMeters(at)
		byCat[cat] = append(byCat[cat], candidate{
			item: providers.Amenity{
				Name:          displayName(e.Tags, typ),
				Type:          typ,
				DistanceMiles: roundMiles(m),
				Latitude:      at.Lat,
				Longitude:     at.Lng,
			},
			meters: m,
			at:     at,
			name:   strings.ToLower(strings.TrimSpace(e.Tags["name"])),
			key:    key,
		})
	}
	out := &providers.Amenities{
		RadiusMeters: radius,
		Categories:   make(map[string][]providers.Amenity, len(providers.AmenityCategories)),
		Source:       Source,
	}
	for _, cat := range providers.AmenityCategories {
		items := dedupe(byCat[cat])
		sort.SliceStable(items, func(i, j int) bool {
			a, b := items[i], items[j]
			if a.item.DistanceMiles != b.item.DistanceMiles {
				return a.item.DistanceMiles < b.item.DistanceMiles
			}
			if a.item.Name != b.item.Name {
				return a.item.Name < b.item.Name
			}
			return a.key < b.key
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

// dedupe drops the farther of two items with the same name less than
// DedupeMeters apart: one place mapped twice. Unnamed items are kept.
func dedupe(cs []candidate) []candidate {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].meters != cs[j].meters {
			return cs[i].meters < cs[j].meters
		}
		return cs[i].key < cs[j].key
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
