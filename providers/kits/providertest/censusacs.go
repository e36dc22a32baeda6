package providertest

import (
	"net/http"
	"strings"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// ACSNotAvailable is the Census "not applicable / not available" sentinel
// the ACS fake answers for a variable a tract's data does not hold.
const ACSNotAvailable = fakeupstream.ACSNotAvailable

// RegisterACS registers on mt a fake of the Census ACS 5-year data API at
// baseURL (e.g. censusacs.DefaultBaseURL) that answers
// GET {baseURL}/{year}/acs/acs5 for any four-digit year from tracts: tract
// GEOID (11 digits) → variable → raw value as the upstream writes it
// ("5213", "34.6", or a sentinel such as "-666666666"). It answers like the
// real service:
//
//   - HTTP 200, application/json, an array of arrays: the header holds the
//     get= names in request order, then state, county and tract; one row per
//     matching tract, in GEOID order; every value a JSON string; rows
//     separated by ",\n";
//   - a requested variable the tract's map lacks is answered ACSNotAvailable;
//     NAME is "Census Tract <number>" and GEO_ID "1400000US<GEOID>" unless
//     the map holds them;
//   - for=tract:<code> or tract:*, with in=state:<st> and optionally
//     county:<cty> (space-separated or repeated in=); no matching tract is
//     HTTP 204 with an empty body;
//   - HTTP 400 with a one-line text body for more than 50 names ("error:
//     'get' is limited to 50 variables"), a name that is neither NAME, GEO_ID
//     nor an ACS variable id such as group(...) ("error: unknown variable
//     '<name>'"), or another geography ("error: unknown/unsupported
//     geography hierarchy").
//
// It accepts requests with or without a key; see RegisterACSWithKey.
// Registering again on the same baseURL replaces the previous fake.
func RegisterACS(mt *httpmock.MockTransport, baseURL string, tracts map[string]map[string]string) {
	RegisterACSWithKey(mt, baseURL, "", tracts)
}

// RegisterACSWithKey is RegisterACS for a service that demands the API key
// key, as the real one does: a request without key= is redirected (302) to
// the HTML "Missing Key" page at {baseURL}/missing_key.html (registered
// too, answered with HTTP 200), and a request with another key is answered
// with HTTP 200 and the HTML "Invalid Key" page, ACSInvalidKeyPage. An
// empty key accepts every request. It also registers the API's discovery
// document (see RegisterACSDiscovery) listing the 5-year releases up to
// ACSNewestYear.
func RegisterACSWithKey(mt *httpmock.MockTransport, baseURL, key string, tracts map[string]map[string]string) {
	register(mt, strings.TrimRight(baseURL, "/"), fakeupstream.ACS(key, tracts))
}

// RegisterACSError makes every data request of the ACS fake at baseURL fail
// with status and body, plus header (e.g. Retry-After), replacing any fake
// registered before. The Content-Type is text/plain unless header sets one.
// For the upstream's 400 texts use its own wording, e.g.
// "error: unknown variable 'B99999_001E'".
func RegisterACSError(mt *httpmock.MockTransport, baseURL string, status int, body string, header http.Header) {
	rep := fakeupstream.ACSError(status, body, header)
	register(mt, strings.TrimRight(baseURL, "/"), []fakeupstream.Route{
		fakeupstream.Route{Method: http.MethodGet, Pattern: fakeupstream.ACSDataPattern}.Answering(rep),
	})
}

// ACSCalls returns how many data requests the ACS fake at baseURL answered,
// not counting requests for the Missing Key page.
func ACSCalls(mt *httpmock.MockTransport, baseURL string) int {
	re := routeRegexp(strings.TrimRight(baseURL, "/"), fakeupstream.ACSDataPattern)
	return mt.GetCallCountInfo()["GET =~"+re.String()]
}

// ACSInvalidKeyPage is the HTML page the ACS fake answers, with HTTP 200,
// for a request carrying a key it does not know.
const ACSInvalidKeyPage = fakeupstream.ACSInvalidKeyPage
