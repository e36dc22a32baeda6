// Package census is the geocoder module backed by the US Census Bureau
// geocoder (https://geocoding.geo.census.gov/geocoder): free, no API key, and
// the source of the county and census tract every other section is keyed by.
// It registers itself as module "census" for the geocoder and
// reverse_geocoder roles.
//
// Endpoints used, all relative to the base URL:
//
//   - GET geographies/address?street=&city=&state=&zip=&benchmark=&vintage=&format=json
//     for Geocode (empty city, state and zip are left out);
//   - GET geographies/onelineaddress?address=&benchmark=&vintage=&format=json
//     for Geocode of an address given in one line (Address.Line);
//   - GET locations/address and GET locations/onelineaddress, with the same
//     parameters but vintage, for GeocodeMatch: the same matches without
//     their geographies, for a caller that finds the county and tract in
//     boundaries of its own (providers.MatchGeocoder);
//   - GET geographies/coordinates?x=<longitude>&y=<latitude>&benchmark=&vintage=&format=json
//     for Reverse;
//   - POST geographies/addressbatch (multipart/form-data: addressFile, benchmark,
//     vintage) for GeocodeBatch, at most MaxBatchRows rows per call.
//
// Addresses are sent as given, neither normalized nor abbreviated: the
// upstream matches against TIGER names, which keep apostrophes ("O'BRIEN")
// and hyphens, and parses suffixes and directionals itself. Query values
// are percent-encoded, so an apostrophe, '&', '#', '+' or a non-ASCII
// letter arrives as typed; the address file is CSV with a field holding a
// comma or a double quote quoted, and blanks and line breaks inside a field
// collapsed to one space.
//
// Options (config.yaml): benchmark (default Public_AR_Current) and vintage
// (default Current_Current); both accept a name or a numeric id and must
// belong together. Any other option is rejected.
//
// Quirks of the upstream this package handles:
//
//   - format=json is always sent: without it the service renders HTML.
//     Anything other than HTTP 200 with a JSON body holding "result" is an
//     upstream error; an {"errors":[...],"status":"400"} body keeps the
//     upstream's messages as the cause, for logs only.
//   - Several matches are normal: one address on two TIGER edges, or
//     different addresses (a street in two towns, two ZIP codes). Geocode
//     returns the first with the others in Location.Others, in the
//     upstream's order; the service decides what they are.
//   - A batch answer's Tie row names no candidate: GeocodeAll asks its
//     address again alone, so its candidates come back as Geocode's do.
//   - Geography layer names change with the vintage ("2010 Census Blocks" vs
//     "Census Blocks", "115th" vs "116th Congressional Districts"), so the
//     county and tract layers are found by a tolerant, case-insensitive key
//     match ("Counties", "Census Tracts", optionally prefixed by a year), never
//     "Tribal Census Tracts".
//   - A layer array may hold {"status":"Layer query encountered an error..."}
//     objects instead of geographies, still with HTTP 200; they are skipped.
//   - The county, FIPS code and tract are read from the Counties and Census
//     Tracts layers by package tiger's Locate, the definition that loaded
//     TIGER/Line boundaries share: the layers' NAME is TIGER/Line's NAMELSAD
//     ("Fairfax County"), STATE, COUNTY and TRACT its STATEFP, COUNTYFP and
//     TRACTCE.
//   - Field types drift between vintages (POP100 is a number or ""), so only
//     the few fields needed are decoded, each accepting a string or a number.
//   - x is the longitude and y the latitude, in requests and responses.
//   - The matched ZIP may differ from the one sent, and older vintages answer
//     in upper case while newer ones use mixed case: Street, City and State of
//     a Location are upper-cased; MatchedAddress is kept as the upstream wrote it.
//   - Batch answers come back as CSV without header, every field quoted, rows
//     in no particular order, "lon,lat" in a single field, and No_Match/Tie rows
//     with three fields only; results are returned in input order.
//
// HTTP 429 and 5xx answers become KindUpstream errors (codes
// upstream_rate_limited and upstream_error) carrying any Retry-After, so the
// retry and circuit-breaker decorators around the module can act on them.
// The module itself neither retries nor limits its rate.
package census
