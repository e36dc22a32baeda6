package providertest

import (
	"net/http"
	"regexp"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
)

// register makes mt answer routes, relative to base (a base URL without
// trailing slash), with the fakes' replies; a route with a pattern is a
// regexp responder (see routeRegexp).
func register(mt *httpmock.MockTransport, base string, routes []fakeupstream.Route) {
	for _, r := range routes {
		if r.Pattern != "" {
			mt.RegisterRegexpResponder(r.Method, routeRegexp(base, r.Pattern), responder(r.Serve))
		} else {
			mt.RegisterResponder(r.Method, base+r.Path, responder(r.Serve))
		}
	}
}

// routeRegexp is the URL regexp of a route pattern under base, query
// included, the key httpmock counts its calls under.
func routeRegexp(base, pattern string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `(?:` + pattern + `)(\?.*)?$`)
}

// responder serves a fake's replies through httpmock.
func responder(serve func(*http.Request) fakeupstream.Reply) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) { return response(serve(req)), nil }
}

// response turns a reply into a fresh *http.Response.
func response(r fakeupstream.Reply) *http.Response {
	resp := httpmock.NewBytesResponse(r.Status, r.Body)
	for k, vs := range r.Header {
		resp.Header[k] = append([]string(nil), vs...)
	}
	return resp
}
