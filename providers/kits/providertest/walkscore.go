package providertest

import (
	"strings"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// WalkScorePlace is one place the fake Walk Score API scores. Point is
// matched against the request's lat and lon by Point.Key (five decimals);
// Address only shapes the ws_link of the answer. WalkScore is the 0-100
// score, Description defaults to its band. TransitScore nil answers a
// transit object whose score, description and summary are all null, as Walk
// Score does where it has no transit data; TransitSummary defaults to a
// route count. BikeScore nil leaves the bike object out.
type WalkScorePlace = fakeupstream.WalkScorePlace

// WalkScoreFake configures RegisterWalkScore. The zero value scores nothing
// and accepts any non-empty key. Key is the wsapikey the fake accepts (any
// other key, or none, is answered with status 40; empty accepts any
// non-empty key). Places are the places it knows: a point not among them is
// answered like an invalid coordinate (status 30 with HTTP 404), so a test
// never gets a score it did not set up. Status, when neither 0 nor 1,
// answers every request (with a valid key) with that status code and the
// HTTP status of WalkScoreHTTPStatus. RetryAfter, when not empty, is sent as
// the Retry-After header of every answer that is not a score.
type WalkScoreFake = fakeupstream.WalkScoreFake

// The status codes of the Walk Score API, for WalkScoreFake.Status.
const (
	WalkScoreOK            = fakeupstream.WalkScoreOK
	WalkScorePending       = fakeupstream.WalkScorePending
	WalkScoreInvalidLatLon = fakeupstream.WalkScoreInvalidLatLon
	WalkScoreInternal      = fakeupstream.WalkScoreInternal
	WalkScoreInvalidKey    = fakeupstream.WalkScoreInvalidKey
	WalkScoreQuota         = fakeupstream.WalkScoreQuota
	WalkScoreBlockedIP     = fakeupstream.WalkScoreBlockedIP
)

// WalkScoreHTTPStatus returns the HTTP status Walk Score is reported to send
// with a body status: 404 for 30, 500 for 31, 403 for 42, else 200.
func WalkScoreHTTPStatus(status int) int { return fakeupstream.WalkScoreHTTPStatus(status) }

// RegisterWalkScore registers on mt a responder for GET <baseURL>/score that
// answers like the Walk Score API: a JSON body whose "status" says the
// outcome, with a score body (4-space indented, branding links, snapped
// coordinates, and the transit and bike objects only when transit=1 and
// bike=1 are asked for) for a known place. A request without format=json is
// answered HTTP 400 with a plain-text explanation, since the real service
// would answer XML, which no propertyd client reads.
func RegisterWalkScore(mt *httpmock.MockTransport, baseURL string, f WalkScoreFake) {
	register(mt, strings.TrimRight(baseURL, "/"), fakeupstream.WalkScore(f))
}
