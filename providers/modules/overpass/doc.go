// Package overpass is the amenities module: it lists schools, hospitals,
// grocery stores, parks, transit stops, restaurants and banks around a point
// from OpenStreetMap data, asked of an Overpass API interpreter
// (https://overpass-api.de/api/interpreter by default). It registers itself
// as module "overpass" for the amenities role.
//
// # Request
//
// One Overpass QL query per call, sent as POST /api/interpreter with the form
// field data=:
//
//	[out:json][timeout:25];
//	(
//	  nwr(around:2000,38.8977,-77.0365)["amenity"~"^(school|kindergarten|college|university)$"];
//	  ... one statement per row of Rules ...
//	);
//	out center tags;
//
// around takes the latitude before the longitude. "out center tags" gives
// nodes their lat/lon and ways and relations a computed center, without node
// lists or members, which keeps the answer small. The [timeout:N] budget is
// the timeout_seconds option.
//
// # Categories
//
// Rules is the tag table (the package's single source of truth, also used to
// build the query). An element belongs to the category of the first rule it
// matches, so it is listed once; its type is the value of the matching tag:
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
// Left out on purpose: amenity=pharmacy (not a hospital), amenity=atm (not a
// bank, and usually unnamed), leisure=garden (often private) and
// leisure=nature_reserve (its center can be miles from its edge),
// public_transport=stop_position (the same stop as its platform, on the
// road). Bars and pubs count as restaurants, as in Walk Score's own
// "restaurants and bars" category.
//
// # Answer
//
// Every key of providers.AmenityCategories is present, each an array (never
// null) sorted by distance and then name. An item's name is its name tag,
// else its brand tag, else its type in words ("Bus stop"). Distances are
// great-circle miles from the point, rounded to two decimals; ways and
// relations are placed at their center, and elements without coordinates
// (the server can send a way with an empty "center": {}) are skipped.
// Items are de-duplicated: an element seen twice (same type and id) counts
// once, and within a category two items with the same name less than
// DedupeMeters apart (a shop mapped as a node and as its building, the two
// platforms of one bus stop) count once, as the one nearer the point. The
// max_results option keeps only the nearest N items of each category.
//
// # Quirks and failures
//
// Several failures arrive with HTTP 200, and none is ever returned as a
// partial success:
//
//   - a "remark" starting with "runtime error" (the query timed out or ran
//     out of memory on the server) means the elements are partial or empty:
//     KindUpstream with code upstream_incomplete. It is not KindTimeout,
//     which propertyd keeps for its own deadline: the upstream did answer,
//     with a truncated result. A "runtime remark" is informational only.
//   - a body that is not JSON (mirrors send their HTML error pages with
//     status 200) is KindUpstream: upstream_rate_limited when the page names
//     the rate_limited dispatcher state, upstream_error otherwise.
//
// HTTP 429 (the "OSM3S Response" HTML page, rate_limited) is KindUpstream
// with code upstream_rate_limited and RetryAfter from a Retry-After header
// when one is sent (the public instance does not send one; its /api/status
// page tells when a slot frees). HTTP 504 (dispatcher timeout: "the server is
// probably too busy") and other 5xx are KindUpstream upstream_error, like
// every upstream 5xx in propertyd, with RetryAfter when present. HTTP 400
// (query parse error) is KindUpstream upstream_error with the server's
// message as the cause. HTTP 404 means the base URL is not an interpreter:
// KindUnavailable upstream_misconfigured.
//
// # Usage policy
//
// The public instances ask for a descriptive User-Agent (user_agent option),
// fewer than about 10,000 queries a day and two concurrent queries per IP.
// Data is © OpenStreetMap contributors, ODbL. Cache answers and keep the
// radius small; heavy use calls for a self-hosted instance (set base_url).
package overpass
