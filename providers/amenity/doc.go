// Package amenity is the one definition of the amenity categories that
// propertyd draws from OpenStreetMap, and of how a list of places becomes an
// amenities answer. Both paths that read OpenStreetMap use it: the overpass
// module (which builds its query from Rules and its answer with Collect) and
// the local extract loaded by "propertyd data load osm" (which keeps the
// places Classify accepts and answers with Collect too). So the two cannot
// drift: a point answered from the extract and from Overpass gets the same
// categories, items, names, distances and order.
//
// # Categories
//
// Rules is the tag table. An element belongs to the category of the first
// rule it matches, so it is listed once; its type is the value of the
// matching tag:
//
//	schools      amenity=school|kindergarten|college|university
//	hospitals    amenity=hospital|clinic|doctors, healthcare=hospital|clinic
//	grocery      shop=supermarket|grocery|greengrocer|convenience
//	parks        leisure=park|playground
//	transit      railway=station|halt|tram_stop|subway_entrance, highway=bus_stop,
//	             amenity=bus_station, public_transport=station|platform
//	restaurants  amenity=restaurant|fast_food|cafe|food_court|pub|bar
//	banks        amenity=bank
//
// The values are those the OpenStreetMap wiki documents for each key
// (Key:amenity, Key:shop, Key:leisure, Key:railway, Key:highway,
// Key:public_transport, Key:healthcare). Left out on purpose:
// amenity=pharmacy (not a hospital), amenity=atm (not a bank, and usually
// unnamed), leisure=garden (often private) and leisure=nature_reserve (its
// center can be miles from its edge), public_transport=stop_position (the
// same stop as its platform, on the road). Bars and pubs count as
// restaurants, as in Walk Score's own "restaurants and bars" category.
//
// # Answer
//
// Every key of providers.AmenityCategories is present, each an array (never
// null) sorted by distance and then name. An item's name is its name tag,
// else its brand tag, else its type in words ("Bus stop"). Distances are
// great-circle miles from the point, rounded to two decimals; ways and
// relations are placed at their center. Items are de-duplicated: within a
// category two items with the same name less than DedupeMeters apart (a
// shop mapped as a node and as its building, the two platforms of one bus
// stop) count once, as the one nearer the point.
//
// # Cap
//
// A cap of N keeps, of each category, its first N items and, after them,
// the first item of each type none of those is: twenty bus stops do not hide
// the subway entrance a little farther, nor twenty convenience stores the
// supermarket. Each list stays sorted; it holds at most N items and one more
// for each other type of its category (the values of its Rules). A score
// weighing at most N items of a category, nearest first, and counting only
// the best item where it weighs types differently, reads the same from a
// capped answer as from the whole (osm-walk's walk score: see its package
// doc). The overpass module's max_results option sets the cap (20 by
// default), for its answers and for those read from a loaded extract.
package amenity
