package censusacs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// MaxVariables is the most names one request may ask for, NAME included:
// the upstream answers longer lists with HTTP 400 ("'get' is limited to 50
// variables"), so longer lists are split over several requests.
const MaxVariables = 50

// maxBody bounds how much of an answer is read; a tract answer is a few
// hundred bytes.
const maxBody = 1 << 20

// service names the upstream in the messages clients see.
const service = "the census ACS API"

// KeyMessage is the client-safe message of the error returned when the
// upstream refuses the API key (a redirect to its "Missing Key" page or an
// "Invalid Key" HTML page).
const KeyMessage = "census ACS API key is missing or invalid"

// RequestURL returns the URL asking base for NAME and vars of tract t in the
// ACS 5-year release of year, written the way the upstream documents it:
// commas and colons literal, the two in= geographies separated by %20. The
// key parameter is added only when key is not empty.
func RequestURL(base, year string, vars []string, t providers.Tract, key string) string {
	return queryURL(base, year, vars, "tract:"+url.QueryEscape(t.Tract),
		"state:"+url.QueryEscape(t.State)+"%20county:"+url.QueryEscape(t.County), key)
}

// queryURL is the URL asking base for NAME and vars of the geographies
// forGeo within inGeo (both already escaped) in the release of year.
func queryURL(base, year string, vars []string, forGeo, inGeo, key string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(base, "/"))
	b.WriteString("/" + url.PathEscape(year) + "/acs/acs5?get=NAME")
	for _, v := range vars {
		b.WriteString("," + url.QueryEscape(v))
	}
	b.WriteString("&for=" + forGeo + "&in=" + inGeo)
	if key != "" {
		b.WriteString("&key=" + url.QueryEscape(key))
	}
	return b.String()
}

// chunks splits vars into the lists of names one request may ask for
// beside NAME (see MaxVariables); an empty list is one empty chunk.
func chunks(vars []string) [][]string {
	var out [][]string
	for start := 0; start < len(vars) || start == 0; start += MaxVariables - 1 {
		out = append(out, vars[start:min(start+MaxVariables-1, len(vars))])
	}
	return out
}

// fetch asks for vars of tract t, in as many requests as MaxVariables
// requires, and returns the tract's row with the columns of all answers
// and the year of the release they are from.
func (c *Client) fetch(ctx context.Context, t providers.Tract, vars []string) (Row, string, error) {
	if err := checkTract(t); err != nil {
		return nil, "", err
	}
	year := c.year(ctx)
	merged := Row{}
	for _, chunk := range chunks(vars) {
		rows, err := c.get(ctx, RequestURL(c.base, year, chunk, t, c.key), maxBody)
		if err != nil {
			if providers.CodeOf(err) == providers.CodeTractNotFound {
				return nil, "", tractNotFound(t)
			}
			return nil, "", err
		}
		row, err := Select(rows, t)
		if err != nil {
			return nil, "", err
		}
		for k, v := range row {
			merged[k] = v
		}
	}
	return merged, year, nil
}

// get sends one request, reading at most limit bytes of the answer, and
// classifies the answer with ParseResponse.
func (c *Client) get(ctx context.Context, u string, limit int64) ([]Row, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, providers.Wrap(errors.New(redactKey(err.Error())), providers.KindInternal,
			providers.CodeInternalError, "an internal error occurred")
	}
	req.Header.Set("Accept", "application/json")
	a, err := upstream.Do(c.http, req, limit, service)
	if err != nil {
		return nil, transportError(err)
	}
	rows, err := ParseResponse(a.Status, a.Header, a.Body)
	// An error page may echo the request URL, API key and all, in any
	// encoding: the key leaves no error of this call.
	return rows, upstream.Scrub(err, c.key)
}

// ParseResponse classifies one upstream answer, given its status, headers
// and body, and decodes it when it carries data. It is the whole decoding
// path of the client, pure so tests can drive it with recorded bodies:
//
//   - 200 with a JSON array of arrays: the rows (see Decode);
//   - 204, or 200 with an empty body: KindNotFound, code tract_not_found;
//   - any redirect, 401, 403, or 200 with the upstream's "Invalid Key" or
//     "Missing Key" HTML page: KindUnavailable, code upstream_misconfigured,
//     message KeyMessage; 200 with any other HTML page (Content-Type
//     text/html or a body starting with '<'): KindUpstream, code
//     upstream_bad_response;
//   - 404 (no such dataset, usually an unpublished year): KindUnavailable,
//     code upstream_misconfigured;
//   - 429: KindUpstream, code upstream_rate_limited; 400 and any other
//     status: KindUpstream, code upstream_error, with the body's first line
//     as the cause; 429 and 5xx carry the Retry-After header when present.
func ParseResponse(status int, h http.Header, body []byte) ([]Row, error) {
	switch {
	case status == http.StatusOK:
		if isHTML(h, body) {
			title := htmlTitle(body)
			if isKeyPage(title, body) {
				return nil, keyProblem(fmt.Errorf("HTTP 200 with an HTML page %q", title))
			}
			return nil, badResponse(fmt.Errorf("HTTP 200 with an HTML page %q", title))
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, noRows()
		}
		return Decode(body)
	case status == http.StatusNoContent:
		return nil, noRows()
	case status >= 300 && status < 400:
		return nil, keyProblem(fmt.Errorf("HTTP %d redirect to %q", status, redactKey(h.Get("Location"))))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil, keyProblem(fmt.Errorf("HTTP %d: %s", status, firstLine(body)))
	case status == http.StatusNotFound:
		return nil, providers.Wrap(fmt.Errorf("HTTP 404: %s", firstLine(body)), providers.KindUnavailable,
			providers.CodeUpstreamMisconfigured, "the census ACS dataset was not found; check the year option")
	case status == http.StatusTooManyRequests:
		e := providers.Wrap(fmt.Errorf("HTTP 429: %s", firstLine(body)), providers.KindUpstream,
			providers.CodeUpstreamRateLimited, "the census ACS API is rate limiting requests")
		e.RetryAfter, _ = upstream.RetryAfter(h.Get("Retry-After"), time.Now())
		return nil, e
	case status == http.StatusBadRequest:
		return nil, providers.Wrap(errors.New(firstLine(body)), providers.KindUpstream,
			providers.CodeUpstreamError, "the census ACS API rejected the query")
	default:
		e := providers.Wrap(fmt.Errorf("HTTP %d: %s", status, firstLine(body)), providers.KindUpstream,
			providers.CodeUpstreamError, "the census ACS API answered with an error")
		if status >= 500 {
			e.RetryAfter, _ = upstream.RetryAfter(h.Get("Retry-After"), time.Now())
		}
		return nil, e
	}
}

func noRows() *providers.Error {
	return providers.NotFound(providers.CodeTractNotFound, "the Census ACS has no figures for the census tract")
}

func keyProblem(cause error) *providers.Error {
	return providers.Wrap(cause, providers.KindUnavailable, providers.CodeUpstreamMisconfigured, KeyMessage)
}

// isHTML reports whether an answer is an HTML page rather than data: the
// upstream's key pages come with HTTP 200.
func isHTML(h http.Header, body []byte) bool {
	if strings.Contains(strings.ToLower(h.Get("Content-Type")), "html") {
		return true
	}
	return bytes.HasPrefix(bytes.TrimSpace(body), []byte("<"))
}

// isKeyPage reports whether an HTML answer is one of the upstream's key
// pages ("Invalid Key", "Missing Key"), by its title or, for a page without
// one, its text. Any other page (a maintenance notice, a proxy's error
// page) says nothing about the key.
func isKeyPage(title string, body []byte) bool {
	t := strings.ToLower(title)
	if strings.Contains(t, "invalid key") || strings.Contains(t, "missing key") {
		return true
	}
	if titleRE.Match(body) {
		return false
	}
	b := bytes.ToLower(body)
	return bytes.Contains(b, []byte("invalid key")) || bytes.Contains(b, []byte("missing key")) ||
		bytes.Contains(b, []byte("key must be included"))
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// htmlTitle returns the title of an HTML page, for logs.
func htmlTitle(body []byte) string {
	if m := titleRE.FindSubmatch(body); m != nil {
		return strings.TrimSpace(string(m[1]))
	}
	return firstLine(body)
}

// firstLine returns the first non-blank line of body, shortened, for logs.
func firstLine(body []byte) string {
	s := strings.TrimSpace(string(body))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// transportError adapts an error of upstream.Do, which failed to get an
// answer the way it does for every module (an API that could not be
// reached is upstream_unreachable, and the request URL in the cause, with
// the API key in its query string, is redacted), to what this module has
// always said of an answer longer than maxBody: upstream_bad_response, like
// any answer that cannot be read.
func transportError(err error) error {
	e := providers.As(err)
	if errors.Is(e, upstream.ErrTooLarge) {
		return badResponse(e.Err)
	}
	return e
}

var keyRE = regexp.MustCompile(`([?&]key=)[^&#]*`)

// redactKey hides the value of a key= query parameter in s.
func redactKey(s string) string { return keyRE.ReplaceAllString(s, "${1}REDACTED") }

// checkTract rejects tracts whose codes are not all digits of the right
// lengths, so nothing odd reaches the upstream's query string.
func checkTract(t providers.Tract) error {
	for _, f := range []struct {
		name, v string
		n       int
	}{{"state", t.State, 2}, {"county", t.County, 3}, {"tract", t.Tract, 6}} {
		if len(f.v) != f.n || strings.Trim(f.v, "0123456789") != "" {
			return providers.Invalid("tract", fmt.Sprintf("%s code %q is not %d digits", f.name, f.v, f.n))
		}
	}
	return nil
}
