// Package walkscore is the walk score module backed by the Walk Score API
// (https://api.walkscore.com): the published 0-100 Walk Score of a place,
// with its Transit Score and Bike Score when the upstream has them. It
// registers itself as module "walkscore-api" for the walkscore role.
//
// Endpoint used, relative to the base URL:
//
//   - GET score?format=json&lat=<latitude>&lon=<longitude>&address=<address>&transit=1&bike=1&wsapikey=<key>
//     for WalkScore; address is left out when the caller has none.
//
// Options (config.yaml): api_key (required), the wsapikey Walk Score issued
// for this server. Any other option is rejected.
//
// Quirks of the upstream this package handles:
//
//   - format=json is always sent: the service answers in XML by default.
//   - The outcome is the "status" field of the body, not the HTTP status, so
//     the body is read first whatever the HTTP status. The HTTP status is used
//     only when the body holds no status: 403 is taken as a blocked IP (42),
//     404 as rejected coordinates (30), 429 as a rate limit and 5xx as an
//     internal error (31).
//   - The status codes map to errors as follows:
//     1 is a score;
//     2 (score being calculated) is KindUpstream with code score_pending: the
//     request is worth retrying later, and the retry decorator may do so;
//     30 (invalid latitude/longitude) is KindUpstream with code
//     upstream_rejected_input: the coordinates come from propertyd's own
//     geocoder and were range-checked here, so a refusal is the upstream
//     disagreeing with us, not a client error;
//     31 (internal error) is KindUpstream with code upstream_error;
//     40 (invalid key) and 42 (IP blocked) are KindUnavailable with code
//     upstream_misconfigured: only the operator can fix them;
//     41 (daily quota exceeded) is KindUpstream with code upstream_rate_limited;
//     any other status is KindUpstream with code upstream_error.
//   - The transit object may be present with score, description and summary
//     all null where Walk Score has no transit data; the bike object may be
//     missing. Either leaves the matching score nil.
//   - Numbers are decoded leniently (integer, float or numeric string), and a
//     missing description is derived from the score's band.
//   - The key travels in the query string, so transport errors (which quote
//     the URL) have it replaced by "REDACTED" before they are returned.
//
// Walk Score's terms ask for its logo and a link to the place's ws_link to be
// shown with the score; WalkScore carries neither, so a deployment that uses
// this module must add the branding where scores are shown.
//
// HTTP 429 and 5xx answers, and statuses 2, 31 and 41, carry any Retry-After
// header, so the retry and circuit-breaker decorators around the module can
// act on them. The module itself neither retries nor limits its rate.
package walkscore
