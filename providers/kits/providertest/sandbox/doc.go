// Package sandbox is a local HTTP server that stands in for every upstream
// propertyd calls (Census geocoder, FEMA NFHL, Census ACS, Overpass, Walk
// Score, HUD FMR), so the service can be tried, tested and benchmarked
// without the internet. It answers from a file of sample places (see
// LoadPlaces and DefaultPlaces) and can be made slow or failing, per
// upstream, at start or while it runs.
//
// The wire formats are not written here: each upstream is served by the
// routes of internal/fakeupstream (CensusGeocoder, FEMA, ACS, Overpass,
// WalkScore, HUDFMR), which speak the formats of the recordings under
// shared/upstreams byte for byte and are the same answers the providertest
// kit gives tests through httpmock. The sandbox matches each call below an
// upstream's path prefix to a route and writes the route's reply with
// net/http; it depends on neither httpmock nor testing, so the sandbox
// binary does not either.
//
// It lives beside providertest, whose answers it serves over HTTP: the
// sandbox command, the benchmark and the command's end-to-end tests use it,
// as anyone may for tests of their own against a real listener.
//
// # Routes
//
// One path prefix per upstream; setting a provider's base_url in
// config.yaml to http://HOST/<prefix> makes the real module talk to the
// sandbox (BaseURLs gives the map; UpstreamURLs the same by upstream):
//
//	upstream   base_url (prefix)                 roles (modules)
//	census     http://HOST/census/geocoder       geocoder, reverse_geocoder (census)
//	fema       http://HOST/fema                  flood (fema-nfhl; the MapServer root, layers 28 and 3)
//	acs        http://HOST/acs/data              demographics (census-acs), housing (census-acs-housing)
//	overpass   http://HOST/overpass/api/interpreter  amenities (overpass)
//	walkscore  http://HOST/walkscore             walkscore (walkscore-api)
//	hud        http://HOST/hud/fmr               fair_market_rent (hud-fmr)
//
// so the geocoder is called at /census/geocoder/geographies/address (its
// match alone at /census/geocoder/locations/address, counted apart), the
// NFHL at /fema/28/query, ACS at /acs/data/2022/acs/acs5 (and its
// discovery document, listing releases up to 2022, at /acs/data.json),
// Walk Score at /walkscore/score and HUD at /hud/fmr/data/<entityid>. ACS and Walk Score
// accept any API key (ACS also none); HUD wants the bearer token HUDToken,
// "sandbox-hud-token". A Walk Score request within WalkScoreRadius of a
// place is scored as that place; the geocoder reverse-geocodes within 5 km
// of a place; flood areas cover DefaultFloodBox degrees around their place
// unless they give a box.
//
// # Knobs
//
// Each upstream has Faults: added latency (fixed plus uniform jitter), an
// error rate failing with a status (500, 503, 429 with Retry-After...), a
// hang (no answer until the client gives up), malformed bodies (the real
// body cut in half, so truncated JSON) and, for fema, ArcGIS's error
// envelope sent with HTTP 200. Random draws use Options.Seed, so runs
// repeat. Set them with Options.Faults, SetFaults and ResetFaults, or at
// run time over HTTP.
//
// # Control endpoints
//
//	GET    /_sandbox/              upstream URLs, base_url per role, HUD token, place ids
//	GET    /_sandbox/faults        the knobs of every upstream
//	POST   /_sandbox/faults        set the knobs of one upstream ("*" for all), replacing them:
//	       {"upstream":"census","latency":"100ms","jitter":"20ms","error_rate":0.3,"status":503,
//	        "retry_after":"2","hang":false,"malformed":false,"arcgis_error":false}
//	DELETE /_sandbox/faults        reset every upstream (?upstream=NAME: only that one)
//	GET    /_sandbox/stats         calls received: {"census": 12, "fema": 3, ..., "routes": {"census": {"GET /census/geocoder/geographies/address": 12}, ...}}
//	POST   /_sandbox/stats/reset   zero the counts
//
// Omitted knobs are zero; unknown fields, an unknown upstream and
// out-of-range values are answered 400 with {"error": "..."}. Every call to
// an upstream prefix is counted, injected failures included; control
// requests are not.
//
// A hanging or delayed call whose client goes away, or that is still
// running when the server closes, is aborted with http.ErrAbortHandler, so
// serve the Server through net/http (Start or httptest), not by calling
// ServeHTTP directly with a recorder.
package sandbox
