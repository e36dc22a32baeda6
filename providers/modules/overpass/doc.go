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
//	  ... one statement per row of amenity.Rules ...
//	);
//	out center tags;
//
// around takes the latitude before the longitude. "out center tags" gives
// nodes their lat/lon and ways and relations a computed center, without node
// lists or members, which keeps the answer small. The [timeout:N] budget is
// the timeout_seconds option.
//
// # Categories and answer
//
// The categories, their tag rules and how the answer is built (names,
// distances, order, de-duplication) are package providers/amenity's, the
// one definition the local OpenStreetMap extract uses too, so an answer
// does not depend on which of the two a point was served from. The query
// asks for exactly amenity.Rules; elements without coordinates (the server
// can send a way with an empty "center": {}) are skipped. The max_results
// option caps each category (DefaultMaxResults, 20, unless it says
// otherwise; 0 lists every place): its nearest N items, and the nearest of
// each type none of them is (package amenity's Cap).
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
//     the rate_limited dispatcher state, upstream_error otherwise. The
//     former starts the same quiet as a 429 (see Usage policy): the guard
//     around the module starts it on the error's code, which only this
//     package can read from the page.
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
// The public instances ask for a descriptive User-Agent naming a contact
// (the default names config.yaml's contact, see Provision), fewer than
// about 10,000 queries a day, one script per user with no parallel workers,
// and at least 30 s of quiet after an HTTP 429 (or the rate-limit page a
// mirror sends with 200). The module declares the last two as its
// providers.Courtesy (Concurrency 1, QuietAfterRateLimit 30 s), which the
// outbound limits of its role apply for the whole fleet when the instances
// share a Redis. Data is © OpenStreetMap contributors,
// ODbL. Cache answers and keep the radius small, or load an extract (which
// answers in front of the module); heavy use calls for a self-hosted
// instance (set base_url).
package overpass
