package providertest

import (
	"net/http"
	"strings"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// CensusPlace is one address the fake Census geocoder knows. Street, City,
// State and Zip are the canonical, UPPER-CASE parts of the matched address
// ("1600 PENNSYLVANIA AVE NW", "WASHINGTON", "DC", "20502"); Aliases are other
// street spellings that match it beyond what CensusSameStreet tolerates, as
// the real geocoder's fuzzier matching would (see RegisterCensusGeocoder).
// StateFIPS (2 digits), CountyFIPS (3), Tract (6) and Block (4) are the
// geography codes; an empty code leaves that layer empty. Lat and Lng are
// the coordinates the geocoder answers, CountyName the county as it names
// it ("Fairfax County").
type CensusPlace = fakeupstream.CensusPlace

// RegisterCensusGeocoder makes mt answer the Census geocoder routes under
// baseURL (geographies/address, geographies/onelineaddress,
// geographies/coordinates and geographies/addressbatch) the way the real
// service does, in the shapes of the Current_Current vintage recordings
// (layers "States", "Counties", "Census Tracts", "2010 Census Blocks"),
// knowing only places; and the locations searches (locations/address,
// locations/onelineaddress), which match alike and answer the same matches
// without geographies. Each route is its own responder, so
// mt.GetCallCountInfo counts the matches asked apart from the geographies.
//
// A request street matches a place when it is the same street as the place's
// Street or one of its Aliases in the sense of CensusSameStreet, and the state
// code matches (case aside); city and ZIP are ignored, as the real matcher
// tolerates them being wrong. A one-line address matches when its first words
// are the street in that sense and a later word is the state. Every matching
// place is returned, so two places with the same street give the real
// two-match answer. No match gives the real no-match body. Reverse lookups
// answer with the geographies of the nearest place within 5 km, else with
// empty layers. Batch answers list rows in reverse input order (the real
// service does not keep the input order), with "Exact" for a Street match,
// "Non_Exact" for an alias match and "Tie" when several places match.
//
// A request without format=json gets an HTML page, as from the real service;
// one without benchmark (or, for geographies, vintage) or without an address
// gets HTTP 400 with an {"errors":[...]} body.
func RegisterCensusGeocoder(mt *httpmock.MockTransport, baseURL string, places ...CensusPlace) {
	register(mt, strings.TrimRight(baseURL, "/"), fakeupstream.CensusGeocoder(places...))
}

// CensusArea is one county or census tract polygon of the fake Census
// geocoder's map (see RegisterCensusGeocoderAreas). Shape is an
// orb.Polygon or orb.MultiPolygon in longitude, latitude, as a TIGER/Line
// file holds it: a point in a hole is outside, one on any edge inside. An
// area with a Tract (6 digits) is a tract; one without is a county named
// CountyName as the geocoder names it ("Fairfax County"). StateFIPS (2
// digits) and CountyFIPS (3) are its codes, State the USPS code sent on
// the States layer with a county.
type CensusArea = fakeupstream.CensusArea

// RegisterCensusGeocoderAreas is RegisterCensusGeocoder answering
// geographies from county and tract polygons, as the real service answers
// from its TIGER map, instead of the places' own codes: a reverse lookup
// answers with every county and tract holding the point (empty layers when
// none does), an address match with those holding the place's point, and a
// batch row with their codes. The places' StateFIPS, CountyFIPS,
// CountyName, Tract and Block are then unused.
func RegisterCensusGeocoderAreas(mt *httpmock.MockTransport, baseURL string, areas []CensusArea, places ...CensusPlace) {
	register(mt, strings.TrimRight(baseURL, "/"), fakeupstream.CensusGeocoderAreas(areas, places...))
}

// CensusFailWith makes every Census geocoder route under baseURL answer with
// status and body, replacing earlier responders; the Content-Type follows the
// body (JSON, HTML or plain text). Use CensusRespondWith to add headers such
// as Retry-After or to fail at the transport level.
func CensusFailWith(mt *httpmock.MockTransport, baseURL string, status int, body string) {
	CensusRespondWith(mt, baseURL, responder(func(*http.Request) fakeupstream.Reply {
		return fakeupstream.CensusFailure(status, body)
	}))
}

// CensusRespondWith makes every Census geocoder route under baseURL answer
// with r, replacing earlier responders.
func CensusRespondWith(mt *httpmock.MockTransport, baseURL string, r httpmock.Responder) {
	base := strings.TrimRight(baseURL, "/")
	for _, route := range fakeupstream.CensusGeocoder() {
		mt.RegisterResponder(route.Method, base+route.Path, r)
	}
}

// CensusSameStreet reports whether the fake Census geocoder takes street
// lines a and b for the same street. It stands in for the real matcher as far
// as the recordings under shared/upstreams show it, on the fake's own terms
// (it shares no code with the service's normalization, so it cannot hide a
// loss there):
//
//   - case does not matter ("2525 buckelew dr" matched "2525 BUCKELEW DR");
//   - a suffix or directional spelled out is its abbreviation where it stands
//     as one ("1600 Pennsylvania Avenue NW" matched "1600 PENNSYLVANIA AVE
//     NW", "3 Gramercy Park West" matched "3 GRAMERCY PARK W" as Exact);
//   - punctuation other than the apostrophe and blanks do not matter
//     ("Ave." is "AVE");
//   - an apostrophe does: TIGER street names keep theirs ("O'BRIEN"), so
//     "OBRIEN" is another name, and a typographic apostrophe (U+2019) is not
//     the ASCII one TIGER writes.
//
// Other spellings (ordinals spelled out, unusual abbreviations such as "AV")
// are not assumed to match: give them as a place's Aliases.
func CensusSameStreet(a, b string) bool { return fakeupstream.CensusSameStreet(a, b) }
