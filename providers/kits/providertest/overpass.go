package providertest

import (
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// OSMElement is one OpenStreetMap object known to the fake Overpass API.
// Type is "node", "way" or "relation" (empty means node). Lat and Lng are a
// node's position, or the center the server computes for a way or relation.
// Tags may be nil (the answer then has no "tags" member, as upstream). ID is
// the element's OpenStreetMap id.
type OSMElement = fakeupstream.OSMElement

// OverpassTimeoutRemark is the remark the real server puts in an HTTP 200
// answer when the query ran out of time; its elements are partial.
const OverpassTimeoutRemark = fakeupstream.OverpassTimeoutRemark

// OverpassMemoryRemark is the remark of an HTTP 200 answer whose query ran
// out of memory on the server.
const OverpassMemoryRemark = fakeupstream.OverpassMemoryRemark

// OverpassRateLimitedMessage is what the upstream's "rate_limited" HTML page
// says after "Error:": with RegisterOverpassHTMLError and status 200 it is
// the page some mirrors send with a success code.
const OverpassRateLimitedMessage = fakeupstream.OverpassRateLimitedMessage

// RegisterOverpass makes baseURL (the interpreter URL) answer Overpass QL
// queries, sent as POST form data= or GET ?data=, like the real server: with
// the elements that lie within a statement's around radius and match its tag
// filter, as [out:json] with nodes at lat/lon and ways and relations with a
// center when the query says "out center". It understands statements of the
// form
//
//	nwr(around:R,LAT,LON)["key"="value"];   (also ~"regex", node/way/rel/nw/nr/wr)
//
// and answers a query it cannot read, or one without [out:json], with the
// upstream's HTTP 400 parse-error page.
func RegisterOverpass(mt *httpmock.MockTransport, baseURL string, elements ...OSMElement) {
	register(mt, baseURL, fakeupstream.Overpass(elements...))
}

// RegisterOverpassRemark makes baseURL answer every query with HTTP 200, the
// partial elements (not filtered) and remark, as the real server does when a
// query fails at run time (see OverpassTimeoutRemark).
func RegisterOverpassRemark(mt *httpmock.MockTransport, baseURL, remark string, partial ...OSMElement) {
	registerOverpassReply(mt, baseURL, fakeupstream.OverpassRemark(remark, partial...))
}

// RegisterOverpassRateLimited makes baseURL answer with HTTP 429 and the
// upstream's "rate_limited" HTML page; a retryAfter above zero adds a
// Retry-After header in whole seconds (the public instance sends none).
func RegisterOverpassRateLimited(mt *httpmock.MockTransport, baseURL string, retryAfter time.Duration) {
	registerOverpassReply(mt, baseURL, fakeupstream.OverpassRateLimited(retryAfter))
}

// RegisterOverpassTooBusy makes baseURL answer with HTTP 504 and the
// upstream's "server is probably too busy" HTML page.
func RegisterOverpassTooBusy(mt *httpmock.MockTransport, baseURL string) {
	registerOverpassReply(mt, baseURL, fakeupstream.OverpassTooBusy())
}

// RegisterOverpassHTMLError makes baseURL answer with status and the
// upstream's "OSM3S Response" HTML page carrying message after "Error:",
// e.g. status 400 with "line 2: parse error: ';' expected - 'out' found.".
// Status 200 mimics the mirrors that send error pages with a success code.
// A retryAfter above zero adds a Retry-After header.
func RegisterOverpassHTMLError(mt *httpmock.MockTransport, baseURL string, status int, message string, retryAfter time.Duration) {
	registerOverpassReply(mt, baseURL, fakeupstream.OverpassErrorPage(status, message, retryAfter))
}

// registerOverpassReply makes every route of the interpreter at baseURL
// answer rep.
func registerOverpassReply(mt *httpmock.MockTransport, baseURL string, rep fakeupstream.Reply) {
	var routes []fakeupstream.Route
	for _, r := range fakeupstream.Overpass() {
		routes = append(routes, r.Answering(rep))
	}
	register(mt, baseURL, routes)
}
