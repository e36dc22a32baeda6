// Package hudfmr is the fair market rent module backed by the HUD USER Fair
// Market Rent API (https://www.huduser.gov/hudapi/public/fmr): HUD's fair
// market rents of a county by bedroom count, shown with the housing section.
// It registers itself as module "hud-fmr" for the fair_market_rent role.
//
// Endpoint used, relative to the base URL:
//
//   - GET data/<state FIPS><county FIPS>99999[?year=YYYY] for FairMarketRents,
//     with "Authorization: Bearer <token>" and "Accept: application/json"
//     (without an Accept allowing JSON the service answers 406).
//
// Options (config.yaml): token (required), the access token created in the
// HUD USER account; year (optional), a four-digit fiscal year, sent as
// year=; without it HUD answers its latest fiscal year. Any other option is
// rejected.
//
// Quirks of the upstream this package handles:
//
//   - Everything comes wrapped in {"data": {...}}.
//   - basicdata is one object for areas without Small Area FMRs, but an array
//     of per-ZIP rows where Small Area FMRs apply. For such an array the row
//     whose zip_code is "MSA level" (the metro-wide FMR, first in HUD's
//     answers) is reported: a county has one figure per bedroom count, and
//     picking or averaging ZIP rows would invent one. An array without that
//     row is an upstream error.
//   - Value types drift between years: rents are strings such as "758.0" or
//     integers, and year and the status flags are strings or numbers, so each
//     field accepts a string, a number or null. Rents are rounded to whole
//     dollars; a missing or null bedroom value leaves its key out of
//     ByBedrooms, and an answer without any rent is an upstream error.
//   - The fiscal year is the top-level year when present, else the year
//     inside basicdata, else the configured year option.
//   - AreaName is area_name when present; older answers lack it, so it falls
//     back to the metro name of a metro county, then "town, county", then
//     the county name.
//   - In the six New England states HUD keys its data by town (county
//     subdivision), not by county, so the county entity id may find nothing
//     there; that, like any 404 ("No data found using ..."), is KindNotFound
//     with code fmr_not_found. A year not yet published also gives 404; the
//     module does not fall back to an earlier year on its own.
//
// Errors: HTTP 401 (bad token) and 403 (token not registered for this
// dataset) are KindUnavailable with code upstream_misconfigured; 400 is
// KindUpstream with code upstream_rejected_input; 429 is KindUpstream with
// code upstream_rate_limited and 5xx KindUpstream with code upstream_error,
// both carrying any Retry-After, so the retry and circuit-breaker decorators
// around the module can act on them. The upstream's {"error": "..."} text
// becomes the cause, for logs only. The token is sent only in the
// Authorization header and never appears in an error. The module itself
// neither retries nor limits its rate.
//
// HUD's terms ask users of the API to show "This product uses the HUD User
// Data API but is not endorsed or certified by HUD User." where the data is
// shown.
package hudfmr
