// Package fakeupstream speaks the wire formats of the upstreams propertyd
// calls (Census geocoder, FEMA NFHL, Census ACS, Overpass, Walk Score, HUD
// FMR), built from data it is given: the same JSON, CSV or HTML bodies,
// status codes and quirks as the recordings under shared/upstreams. It only
// builds answers: each upstream is a list of Routes whose Serve turns a
// request into a Reply, and failures are Replies of their own.
//
// Two packages serve those answers, so both send the same bytes:
// providers/kits/providertest registers the routes as httpmock responders for
// tests, and the sandbox (cmd/internal/sandbox) serves them over net/http
// for the sandbox binary, the benchmark and the end-to-end tests. This
// package imports neither httpmock nor testing, so the sandbox binary does
// not either.
//
// Everything here is safe for concurrent use: the fakes never change the
// data they were built from.
package fakeupstream

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sync"
)

// Reply is one answer of a fake upstream. Header may be nil; a Reply is
// never changed after it is built, so a caller that edits one copies its
// Header first (Clone does).
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Clone returns a copy of r whose Header and Body the caller may change.
func (r Reply) Clone() Reply {
	return Reply{Status: r.Status, Header: r.Header.Clone(), Body: append([]byte(nil), r.Body...)}
}

// reply builds a Reply with a Content-Type, or none when contentType is "".
func reply(status int, contentType string, body []byte) Reply {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return Reply{Status: status, Header: h, Body: body}
}

// jsonReply encodes v compactly; a value that cannot be encoded (a NaN
// coordinate given to a fake) is a 500 saying so, not a panic in a test.
func jsonReply(status int, contentType string, v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		return reply(http.StatusInternalServerError, "text/plain; charset=utf-8",
			[]byte("fakeupstream: encoding the answer: "+err.Error()))
	}
	return reply(status, contentType, b)
}

// Route is one endpoint of a fake upstream: a method and a path below the
// upstream's base URL, and how it answers.
type Route struct {
	// Method is the HTTP method, e.g. "GET"; other methods are not this
	// route.
	Method string
	// Path is the path below the base URL, e.g. "/geographies/address",
	// or "" for the base URL itself. Pattern is used instead when set.
	Path string
	// Pattern, when not empty, is a regular expression the whole path
	// below the base URL must match, for paths with variable parts such as
	// the ACS year ("/[0-9]{4}/acs/acs5").
	Pattern string
	// Serve answers a request for the route. It reads the request's
	// query, headers and body, and of its path only what follows the base
	// URL, so the same route serves under any base URL.
	Serve func(*http.Request) Reply
}

// Match reports whether a request with method for path (below the base
// URL, without the query) is one for r.
func (r Route) Match(method, path string) bool {
	if method != r.Method {
		return false
	}
	if r.Pattern == "" {
		return path == r.Path
	}
	return compiled(r.Pattern).MatchString(path)
}

// Answering returns r answering every request with rep: the route of a
// failure that does not depend on the request.
func (r Route) Answering(rep Reply) Route {
	r.Serve = func(*http.Request) Reply { return rep }
	return r
}

// patterns caches the compiled Route patterns: Match runs on every call the
// sandbox serves.
var patterns sync.Map // string -> *regexp.Regexp

func compiled(pattern string) *regexp.Regexp {
	if re, ok := patterns.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`^(?:` + pattern + `)$`)
	patterns.Store(pattern, re)
	return re
}
