// Package censusacs reads tract-level figures from the Census Bureau's
// American Community Survey 5-year data API
// (https://api.census.gov/data/<year>/acs/acs5). It registers two modules on
// the same upstream: "census-acs" for the demographics role and
// "census-acs-housing" for the housing role. Both are served by Client.
//
// Endpoint used, relative to the base URL (DefaultBaseURL is
// https://api.census.gov/data):
//
//	GET {year}/acs/acs5?get=NAME,<variables>&for=tract:<tract>&in=state:<st>%20county:<cty>[&key=<key>]
//
// for one tract, and for every tract of a state at once (StateDemographics,
// StateHousing: the service asks by state, see providers.
// StateDemographicsProvider), the same query with the tract wildcard and
// the state alone, as the upstream documents tract queries within a state:
//
//	GET {year}/acs/acs5?get=NAME,<variables>&for=tract:*&in=state:<st>[&key=<key>]
//
// Its answer is the same table with one row per tract (about 9,100 for
// California, under 3 MB); each row is decoded as a single tract's is.
// Every state the ACS covers has tracts, so an answer without any (HTTP
// 204, an empty body, a header alone) is upstream_bad_response, as an
// unreadable one is, never a state without figures; a state the ACS does
// not cover (Covers) is answered with no tract, without a call.
//
// and, to learn the newest release, the API's discovery document, which is
// the base URL with ".json" appended (https://api.census.gov/data.json):
//
//	GET {base}.json
//
// The variables asked for are DemographicsVariables and HousingVariables
// (ACS detailed tables B01002, B01003, B19013, B25002, B25003, B25010,
// B25018, B25024, B25035, B25041, B25064, B25077). A request carries at most
// MaxVariables names, NAME included; longer lists are split into several
// requests whose answers are merged.
//
// Options (config.yaml), the same for both modules:
//
//   - year: "latest" (the default) to follow the newest 5-year release the
//     API publishes, or a vintage to pin, four digits, 2009 or later
//     (e.g. "2023"). Following the newest, the client reads the discovery
//     document (a DCAT-US catalogue of every dataset: it takes the largest
//     c_vintage of the entries whose c_dataset is ["acs", "acs5"]; see
//     NewestYear) when it first needs a year, and again a day later
//     (DiscoveryTTL), in the background: only the first fetch after start
//     waits for it. When discovery fails it is logged, retried an hour
//     later (DiscoveryRetry), and the last release learned, or DefaultYear
//     (2022) before any, is asked for. The document is public and asked
//     for without the key. The client implements providers.Superseder, so
//     the service refreshes values of an older release as soon as a newer
//     one is learned; their vintage stays in meta.sections. Each of the two
//     modules discovers on its own (two small daily requests);
//   - api_key: the Census API key, sent as key= only when set. The upstream
//     now refuses keyless requests, so production configs need one.
//
// Any other option is rejected.
//
// Quirks of the upstream this package handles:
//
//   - Answers are JSON arrays of arrays: row 0 is the header (the requested
//     names in request order, then state, county, tract), every later row is
//     one geography, every value a JSON string or null. Columns are found by
//     header name, never by position; the row is picked by its geography
//     columns. NAME is requested but never parsed (its format changed in 2022).
//   - Estimates the Bureau could not compute or suppressed come as negative
//     sentinels (-666666666, -999999999, -888888888, -555555555, -333333333,
//     -222222222); any value at or below -100000000 is read as "no value" and
//     becomes a nil field, never a number. Top-coded medians (e.g. 250001
//     for incomes of 250,000 and more) are kept as they are.
//   - A valid query that matches nothing (an unknown tract) is answered with
//     HTTP 204 and an empty body: KindNotFound, code tract_not_found.
//   - A missing key is answered with a 302 redirect to an HTML "Missing Key"
//     page and an invalid key with HTTP 200 and an HTML "Invalid Key" page.
//     The client never follows redirects (it uses a copy of the configured
//     http.Client, so the caller's client is untouched) and sniffs the
//     Content-Type and the first byte of every 200 answer: both key pages
//     (told by their title or text) become KindUnavailable, code
//     upstream_misconfigured, message "census ACS API key is missing or
//     invalid", never a JSON syntax error; any other HTML page in a 200 (a
//     maintenance notice, a proxy's page) is KindUpstream,
//     upstream_bad_response, which the breaker counts as a failure. A 404 (wrong
//     dataset path, usually a year that is not published) and 401/403 are
//     misconfigurations too.
//   - Errors in the query (unknown variable, unsupported geography, more
//     than 50 variables) are HTTP 400 with a one-line text body; it is kept
//     as the cause of a KindUpstream error (code upstream_error) for logs.
//   - The API key and the tract never appear in errors: transport errors
//     quote the request URL without its query string (upstream.RedactURL).
//
// Derived figures: vacancy_rate is vacant / all housing units (B25002),
// owner_occupied_pct and renter_occupied_pct are owner or renter households /
// occupied units (B25003), and housing shares are each category / the table
// total (B25024, B25041); all are percentages rounded half away from zero to
// one decimal (see Percent), nil when a count is missing or the denominator
// is zero.
//
// HTTP 429 and 5xx answers become KindUpstream errors (codes
// upstream_rate_limited and upstream_error) carrying any Retry-After, so the
// retry and circuit-breaker decorators around the module can act on them.
// The module itself neither retries nor limits its rate.
package censusacs
