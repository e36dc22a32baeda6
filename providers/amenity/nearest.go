package amenity

import (
	"slices"

	"github.com/propertyd/propertyd/providers"
)

// NearShare is the share of the radius within which CollectNearest reads
// every place first: a third of 2,000 m, some 1.4 km², holds a category's
// 20 nearest places wherever it has 15 places a km² or more.
const NearShare = 1.0 / 3

// Reader reads the places of a circle that a filter selects, all of them
// from one extract (see providers.OSMStore.OSMPlacesNear).
type Reader func(f providers.PlaceFilter) ([]providers.OSMPlace, error)

// CollectNearest answers what Collect answers of every place of the
// circle of radius around p, capped at maxResults, reading through read
// only what the cap may list rather than every place: a downtown circle of
// 2 km holds thousands, the answer a hundred or so. With no cap
// (maxResults 0) it reads every place.
//
// It reads every place within NearShare of the radius first. A category
// whose first maxResults items all lie nearer than anything beyond (their
// distance in miles, as shown, below that of the near circle's edge) has
// them; of its types none of those is, the nearest is settled the same
// way, when the near circle holds it. It then reads, of the whole circle,
// the categories and the types left unsettled, and the places named as
// one of those beyond the near circle: a place mapped twice under one
// name is dropped as the farther of the two (see DedupeMeters), and the
// nearer may be of a type not read. What it has read is then all that the
// answer's items depend on, and Collect of it is Collect of the circle
// (TestCollectNearestAnswersAsCollect holds it to that). Errors are
// read's.
func CollectNearest(p providers.Point, radius, maxResults int, source string, read Reader) (*providers.Amenities, error) {
	if maxResults <= 0 || radius <= 0 {
		places, err := read(providers.PlaceFilter{})
		if err != nil {
			return nil, err
		}
		return Collect(p, radius, places, maxResults, source), nil
	}
	within := float64(radius) * NearShare
	near, err := read(providers.PlaceFilter{Within: within})
	if err != nil {
		return nil, err
	}
	col := gather(p, near)
	cats, types := col.unsettled(within, maxResults)
	if len(cats)+len(types) == 0 {
		return col.answer(radius, maxResults, source), nil
	}
	more, err := read(providers.PlaceFilter{Categories: cats, Types: types})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, pl := range more {
		if pl.NameKey != "" && !slices.Contains(cats, pl.Category) && !slices.Contains(names, pl.NameKey) &&
			p.DistanceMeters(pl.Point) > within {
			names = append(names, pl.NameKey)
		}
	}
	places := append(near, more...)
	if len(names) > 0 {
		same, err := read(providers.PlaceFilter{NameKeys: names})
		if err != nil {
			return nil, err
		}
		places = append(places, same...)
	}
	return Collect(p, radius, places, maxResults, source), nil
}

// unsettled returns what the places col gathered within the near circle
// (within metres of its point) leave open of an answer capped at n: the
// categories whose first n items may lie beyond it, and, of the others,
// the types none of their first n is whose nearest may lie beyond it.
func (col *collection) unsettled(within float64, n int) (cats, types []string) {
	// A place beyond the near circle is shown at this distance or more.
	edge := roundMiles(within)
	for ci, cat := range providers.AmenityCategories {
		items := col.byCat[ci]
		if len(items) < n || col.cs[items[n-1]].miles >= edge {
			cats = append(cats, cat)
			continue
		}
		for _, t := range categoryTypes[ci] {
			settled := false
			for i, k := range items {
				if c := &col.cs[k]; c.place.Type == t {
					settled = i < n || c.miles < edge
					break
				}
			}
			if !settled {
				types = append(types, t)
			}
		}
	}
	return cats, types
}

// categoryTypes lists, for each of providers.AmenityCategories, the types
// Rules gives its places.
var categoryTypes = func() (out [maxCategories][]string) {
	for _, r := range Rules {
		ci := categoryIndex(r.Category)
		for _, v := range r.Values {
			if ci >= 0 && !slices.Contains(out[ci], v) {
				out[ci] = append(out[ci], v)
			}
		}
	}
	return out
}()
