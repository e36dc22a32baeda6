package providertest

import (
	"strings"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// HUDFMRToken is the bearer token RegisterHUDFMR expects; configure the
// hud-fmr module under test with it (option token).
const HUDFMRToken = "hud-fmr-test-token"

// HUDCounty is one county the fake HUD FMR API knows, keyed by its
// five-digit FIPS code in the map given to RegisterHUDFMR: CountyName (e.g.
// "Travis County, TX"), TownName (New England, usually empty), MetroName
// (empty makes it non-metro), AreaName (empty leaves area_name out, as the
// oldest answers do), Year (the fiscal year published, "2025" when empty;
// another year is answered 404) and Rents (Efficiency through
// Four-Bedroom). ZIPRents, when not nil, makes it a Small Area FMR area whose
// basicdata lists a "MSA level" row and then one row per ZIP code.
// StringValues writes rents as strings such as "758.0", as the oldest
// answers do. Status, when not 0, answers every request for the county with
// that HTTP status and an {"error": "..."} body, with RetryAfter as its
// Retry-After header when not empty.
type HUDCounty = fakeupstream.HUDCounty

// RegisterHUDFMR registers on mt a responder for GET <baseURL>/data/<entityid>
// that answers like the HUD USER FMR API for counties (keyed by five-digit
// FIPS code; the entity id is the code followed by 99999), expecting the
// bearer token HUDFMRToken. See RegisterHUDFMRWithToken.
func RegisterHUDFMR(mt *httpmock.MockTransport, baseURL string, counties map[string]HUDCounty) {
	RegisterHUDFMRWithToken(mt, baseURL, HUDFMRToken, counties)
}

// RegisterHUDFMRWithToken is RegisterHUDFMR with the bearer token to expect.
// The fake answers 401 {"error":"Unauthenticated."} for a missing or other
// token, 406 when Accept does not allow application/json, 404 {"error":"No
// data found using '<entityid>'"} for an unknown entity or an unpublished
// year, and otherwise {"data": {...}} with basicdata as one object, or as
// ZIP rows for a Small Area FMR county.
func RegisterHUDFMRWithToken(mt *httpmock.MockTransport, baseURL, token string, counties map[string]HUDCounty) {
	register(mt, strings.TrimRight(baseURL, "/"), fakeupstream.HUDFMR(token, counties))
}
