package providertest

import (
	"net/http"
	"strings"

	"github.com/jarcoal/httpmock"
	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// ACSNewestYear is the newest ACS 5-year release the ACS fake's discovery
// document lists unless RegisterACSDiscovery says otherwise: the vintage
// the upstream reference recordings were made with.
const ACSNewestYear = fakeupstream.ACSNewestYear

// RegisterACSDiscovery registers on mt the Census data API's discovery
// document for the API at baseURL: {baseURL}.json, which for the real base
// URL https://api.census.gov/data is https://api.census.gov/data.json,
// listing the acs/acs5 dataset of each of years among other datasets, in
// the real document's shape. Registering again replaces the document.
func RegisterACSDiscovery(mt *httpmock.MockTransport, baseURL string, years ...int) {
	register(mt, strings.TrimRight(baseURL, "/"), []fakeupstream.Route{fakeupstream.ACSDiscovery(years...)})
}

// RegisterACSDiscoveryError makes the ACS fake's discovery document at
// baseURL answer status with a plain-text body, replacing the document.
func RegisterACSDiscoveryError(mt *httpmock.MockTransport, baseURL string, status int) {
	register(mt, strings.TrimRight(baseURL, "/"), []fakeupstream.Route{fakeupstream.ACSDiscoveryError(status)})
}

// ACSDiscoveryCalls returns how many times the discovery document of the
// ACS fake at baseURL was asked for.
func ACSDiscoveryCalls(mt *httpmock.MockTransport, baseURL string) int {
	return mt.GetCallCountInfo()[http.MethodGet+" "+strings.TrimRight(baseURL, "/")+fakeupstream.ACSDiscoveryPath]
}
