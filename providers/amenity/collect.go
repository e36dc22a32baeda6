package amenity

import (
	"cmp"
	"math"
	"slices"
	"strconv"
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
// capped at maxResults per category (0 means no cap; see Cap). A place
// listed twice (same Key) counts once. radius and source are reported as
// they are; the caller has chosen the places within the radius. The answer
// carries Attribution.
func Collect(p providers.Point, radius int, places []providers.OSMPlace, maxResults int, source string) *providers.Amenities {
	return gather(p, places).answer(radius, maxResults, source)
}

// answer is Collect of the places col gathered.
func (col *collection) answer(radius, maxResults int, source string) *providers.Amenities {
	out := &providers.Amenities{
		RadiusMeters: radius,
		Categories:   make(map[string][]providers.Amenity, len(providers.AmenityCategories)),
		Source:       source,
		Attribution:  Attribution,
	}
	for ci, cat := range providers.AmenityCategories {
		items := col.byCat[ci]
		if maxResults > 0 && len(items) > maxResults {
			items = capped(col.cs, items, maxResults)
		}
		list := make([]providers.Amenity, len(items))
		for i, k := range items {
			c := &col.cs[k]
			list[i] = providers.Amenity{
				Name:          c.place.Name,
				Type:          c.place.Type,
				DistanceMiles: c.miles,
				Latitude:      c.place.Point.Lat,
				Longitude:     c.place.Point.Lng,
			}
		}
		out.Categories[cat] = list
		out.TotalCount += len(list)
	}
	return out
}

// collection is places on their way into an answer: byCat lists, for each
// of providers.AmenityCategories, the indexes into cs of the items kept,
// in the answer's order.
//
// It sorts indexes into one slice of candidates rather than the candidates
// themselves, and compares places by their Key's text only when two are
// as near: a downtown circle holds thousands of places.
type collection struct {
	cs    []candidate
	byCat [maxCategories][]int32
}

// gather places, de-duplicates and sorts places around p.
func gather(p providers.Point, places []providers.OSMPlace) *collection {
	col := &collection{cs: make([]candidate, 0, len(places))}
	seen := make(map[element]struct{}, len(places))
	for i := range places {
		pl := &places[i]
		cat := categoryIndex(pl.Category)
		if cat < 0 {
			continue
		}
		e := element{pl.OSMRef.Type, pl.ID}
		if _, dup := seen[e]; dup {
			continue
		}
		seen[e] = struct{}{}
		m := p.DistanceMeters(pl.Point)
		col.byCat[cat] = append(col.byCat[cat], int32(len(col.cs)))
		col.cs = append(col.cs, candidate{place: pl, meters: m, miles: roundMiles(m)})
	}
	cs := col.cs
	var d deduper
	for ci := range providers.AmenityCategories {
		items := d.dedupe(cs, col.byCat[ci])
		slices.SortFunc(items, func(a, b int32) int {
			x, y := &cs[a], &cs[b]
			if c := cmp.Compare(x.miles, y.miles); c != 0 {
				return c
			}
			if c := strings.Compare(x.place.Name, y.place.Name); c != 0 {
				return c
			}
			return compareRefs(x.place.OSMRef, y.place.OSMRef)
		})
		col.byCat[ci] = items
	}
	return col
}

// capped returns the first n of items (in the answer's order) and, after
// them, the first of each type none of those has, in that order; it
// reuses items.
func capped(cs []candidate, items []int32, n int) []int32 {
	var typesBuf [8]string
	types := typesBuf[:0]
	for _, k := range items[:n] {
		if t := cs[k].place.Type; !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	kept := items[:n]
	for _, k := range items[n:] {
		if t := cs[k].place.Type; !slices.Contains(types, t) {
			types = append(types, t)
			kept = append(kept, k)
		}
	}
	return kept
}

// maxCategories bounds providers.AmenityCategories, so that Collect keeps
// its per-category lists in an array. A category past it would be dropped
// from every answer without a word: the package refuses to start instead.
const maxCategories = 16

func init() {
	if len(providers.AmenityCategories) > maxCategories {
		panic("amenity: more categories than maxCategories; raise it")
	}
}

// categoryIndex returns the index of category in
// providers.AmenityCategories, or -1 when it is none of them.
func categoryIndex(category string) int {
	for i, c := range providers.AmenityCategories {
		if c == category {
			return i
		}
	}
	return -1
}

// element is a place's identity, its Key without the text: the same
// element whatever its version.
type element struct {
	typ string
	id  int64
}

// candidate is a place on its way into the answer, with its exact distance
// (by which it is de-duplicated) and the distance shown (by which it is
// sorted).
type candidate struct {
	place  *providers.OSMPlace
	meters float64
	miles  float64
}

// compareRefs orders two elements as their Keys' text ("node/12" before
// "node/9"), without building it.
func compareRefs(a, b providers.OSMRef) int {
	if a.Type == b.Type && a.ID == b.ID {
		return 0
	}
	var x, y [64]byte
	return strings.Compare(refText(x[:0], a), refText(y[:0], b))
}

func refText(buf []byte, r providers.OSMRef) string {
	buf = append(buf, r.Type...)
	buf = append(buf, '/')
	return string(strconv.AppendInt(buf, r.ID, 10))
}

// deduper drops the farther of two items with the same name less than
// DedupeMeters apart: one place mapped twice. Unnamed items are kept. Its
// zero value is ready; it keeps its buffers from one category to the next.
type deduper struct {
	first map[string]int32 // name key: the nearest item kept with it
	next  []int32          // by candidate: the next farther kept with its name, or -1
}

// dedupe sorts the candidates idx of cs by distance and returns those
// kept, in that order; it reuses idx.
func (d *deduper) dedupe(cs []candidate, idx []int32) []int32 {
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := &cs[a], &cs[b]
		if c := cmp.Compare(x.meters, y.meters); c != 0 {
			return c
		}
		return compareRefs(x.place.OSMRef, y.place.OSMRef)
	})
	if d.first == nil {
		d.first = make(map[string]int32, len(idx))
	}
	clear(d.first)
	if cap(d.next) < len(cs) {
		d.next = make([]int32, len(cs))
	}
	d.next = d.next[:len(cs)]
	kept := idx[:0]
	for _, i := range idx {
		name := cs[i].place.NameKey
		if name == "" {
			kept = append(kept, i)
			continue
		}
		head, named := d.first[name]
		if named && d.near(cs, head, cs[i].place.Point) {
			continue
		}
		// Kept: it goes last in its name's list, the farthest so far.
		d.next[i] = -1
		if !named {
			d.first[name] = i
		} else {
			last := head
			for d.next[last] >= 0 {
				last = d.next[last]
			}
			d.next[last] = i
		}
		kept = append(kept, i)
	}
	return kept
}

// near reports whether q is less than DedupeMeters from one of the items
// kept in the list that starts at head.
func (d *deduper) near(cs []candidate, head int32, q providers.Point) bool {
	for k := head; k >= 0; k = d.next[k] {
		if cs[k].place.Point.DistanceMeters(q) < DedupeMeters {
			return true
		}
	}
	return false
}

// roundMiles converts metres to miles rounded to two decimals.
func roundMiles(m float64) float64 {
	return math.Round(m/metersPerMile*100) / 100
}
