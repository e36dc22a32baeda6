// Package osmwalk is the osm-walk module: a walkability score computed from
// the OpenStreetMap amenities propertyd already fetches, for deployments
// without a Walk Score API key. It registers itself as module "osm-walk" for
// the walkscore role and calls no upstream of its own: it scores the
// amenities within overpass.DefaultRadius (2000 m) of the point, the radius
// the amenities section uses by default, so both share one cache entry and a
// cached property costs no upstream call. The service reads or fetches those
// amenities through their section and hands them to ScoreAmenities
// (providers.AmenitiesScorer), so a request including both sections reads
// and decodes them once; WalkScore, for other callers, asks the configured
// amenities source (Settings.Amenities) for them. The radius covers the
// whole decay range below (1 mile is 1609 m).
//
// # Formula
//
// The score follows the published outline of Walk Score's original method:
// points by category, full credit within a five-minute walk, none beyond a
// 20-minute walk, several items counting for some categories. It is not
// Walk Score: distances are straight lines, not walking routes, and there is
// no pedestrian-friendliness (block length, intersection density) penalty.
//
// Each category has a list of rank points (Weights); its weight is their
// sum, and the weights together (11.5) are scaled to 100:
//
//	category     rank points                                   weight  max points
//	grocery      3                                               3      26.09
//	restaurants  .75 .45 .25 .25 .225 .225 .225 .225 .2 .2       3      26.09
//	transit      1 .6 .4                                         2      17.39
//	schools      1                                               1       8.70
//	parks        1                                               1       8.70
//	banks        1                                               1       8.70
//	hospitals    .5                                              0.5     4.35
//
// The restaurant ranks are Walk Score's published ones: the tenth restaurant
// still counts, with less. Every item has a value, Decay(distance) times
// its type factor (TypeFactors: a convenience store is worth half a
// grocery store, everything else 1). A category's values are sorted from
// best to worst and the k-th best earns the k-th rank points times its
// value; items beyond the last rank earn nothing (diminishing returns):
//
//	points(c) = 100/11.5 * sum_k rank_c[k] * value_(k)
//	score     = round(sum_c points(c)), clamped to 0..100
//
// Decay is 1 up to 0.25 mile (a five-minute walk), 0 from 1 mile on, and a
// half cosine between, smooth at both ends:
//
//	decay(d) = (1 + cos(pi * (d - 0.25) / 0.75)) / 2
//	d:      0.25  0.375  0.5   0.625  0.75  0.875  1.0
//	decay:  1     0.93   0.75  0.5    0.25  0.07   0
//
// Because rank points never increase with rank and decay never increases
// with distance, adding an amenity or moving one nearer never lowers the
// score.
//
// The description uses Walk Score's bands: 90-100 "Walker's Paradise",
// 70-89 "Very Walkable", 50-69 "Somewhat Walkable", 25-49 "Car-Dependent"
// (most errands require a car) and 0-24 "Car-Dependent" (almost all
// errands do). The breakdown reports, per category, its max points
// (weight), how many items the amenities list had (count), the nearest
// distance in miles (null when none) and the points earned, rounded to two
// decimals.
//
// # Capped amenities
//
// The amenities module caps each category (its max_results option, 20 by
// default): the nearest N items, then the nearest of each type none of them
// is (package amenity). The score is the same as from the whole list when
// N is at least 10, the most ranks of a category: a category whose items
// all have one type factor earns its points from its nearest items, which
// the cap keeps; grocery, the one category weighing a type differently,
// earns them from its single best item, which is the nearest of its type,
// listed too. TestACapDoesNotChangeTheScore holds the table to that. Only
// count then says how many items the capped list holds, not how many lie
// within the radius. A max_results below 10 makes restaurant and transit
// points count the items it keeps only.
package osmwalk
