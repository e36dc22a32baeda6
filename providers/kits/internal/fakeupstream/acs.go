package fakeupstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// ACSNotAvailable is the Census "not applicable / not available" sentinel
// the ACS fake answers for a variable a tract's data does not hold.
const ACSNotAvailable = "-888888888"

// ACSDataPattern is the Route pattern of the ACS 5-year data requests below
// the API's base URL, GET /{year}/acs/acs5 for any four-digit year.
const ACSDataPattern = `/[0-9]{4}/acs/acs5`

// acsMissingKeyPath is where the fake redirects a request without a key.
const acsMissingKeyPath = "/missing_key.html"

// acsMaxVariables is the upstream's limit on names per get=.
const acsMaxVariables = 50

// acsVariableRE matches ACS detailed-table variable ids: estimates (E),
// margins (M) and their annotations (EA, MA), e.g. B19013_001E, B19013A_001MA.
var acsVariableRE = regexp.MustCompile(`^[BC][0-9]{5}[A-Z]{0,2}_[0-9]{3}(E|M|EA|MA)$`)

// ACS returns the routes of a fake of the Census ACS 5-year data API that
// answers GET {base}/{year}/acs/acs5 for any four-digit year from tracts:
// tract GEOID (11 digits) → variable → raw value as the upstream writes it
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
// When key is not empty the fake demands it, as the real service does: a
// request without key= is redirected (302) to the HTML "Missing Key" page
// at {base}/missing_key.html (a route too, answered with HTTP 200), and a
// request with another key is answered with HTTP 200 and the HTML "Invalid
// Key" page, ACSInvalidKeyPage. An empty key accepts every request. The
// API's discovery document (ACSDiscovery) lists the 5-year releases up to
// ACSNewestYear, so a module following the newest release asks for the
// year the recordings were made with. The data route comes last.
func ACS(key string, tracts map[string]map[string]string) []Route {
	data := func(req *http.Request) Reply {
		q := req.URL.Query()
		if key != "" {
			switch got := q.Get("key"); {
			case got == "":
				r := reply(http.StatusFound, "", nil)
				r.Header.Set("Location", acsMissingKeyURL(req))
				return r
			case got != key:
				return acsHTML(http.StatusOK, ACSInvalidKeyPage)
			}
		}
		return acsAnswer(q.Get("get"), q.Get("for"), strings.Join(q["in"], " "), tracts)
	}
	return []Route{
		{Method: http.MethodGet, Path: acsMissingKeyPath, Serve: func(*http.Request) Reply {
			return acsHTML(http.StatusOK, acsMissingKeyPage)
		}},
		ACSDiscovery(ACSNewestYear-2, ACSNewestYear-1, ACSNewestYear),
		{Method: http.MethodGet, Pattern: ACSDataPattern, Serve: data},
	}
}

// acsMissingKeyURL is the absolute URL of the Missing Key page beside a data
// request: its base URL (the request's path without {year}/acs/acs5) and
// missing_key.html. A request a server received has no scheme or host in its
// URL; they come from the connection and the Host header.
func acsMissingKeyURL(req *http.Request) string {
	u := url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host, Path: req.URL.Path}
	if u.Host == "" {
		u.Scheme, u.Host = "http", req.Host
		if req.TLS != nil {
			u.Scheme = "https"
		}
	}
	for range 3 {
		if i := strings.LastIndexByte(u.Path, '/'); i >= 0 {
			u.Path = u.Path[:i]
		}
	}
	u.Path += acsMissingKeyPath
	return u.String()
}

// ACSError is an answer of the ACS data API failing with status and body,
// plus header (e.g. Retry-After). The Content-Type is text/plain unless
// header sets one. For the upstream's 400 texts use its own wording, e.g.
// "error: unknown variable 'B99999_001E'".
func ACSError(status int, body string, header http.Header) Reply {
	r := acsText(status, body)
	for k, vs := range header {
		r.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	return r
}

// ACSInvalidKeyPage is the HTML page the ACS fake answers, with HTTP 200,
// for a request carrying a key it does not know.
const ACSInvalidKeyPage = `<html><head><title>Invalid Key</title></head>
<body><h1>Invalid Key</h1><p>The key sent with this request is not a valid data API key.
Check it, or request one <a href="key_signup.html">here</a>.</p></body></html>
`

const acsMissingKeyPage = `<html><head><title>Missing Key</title></head>
<body><h1>Missing Key</h1><p>A key must be included with each data API request.
Request one <a href="key_signup.html">here</a>.</p></body></html>
`

func acsHTML(status int, page string) Reply {
	return reply(status, "text/html;charset=utf-8", []byte(page))
}

func acsText(status int, msg string) Reply {
	return reply(status, "text/plain;charset=utf-8", []byte(msg))
}

// acsAnswer builds the fake's answer to one query.
func acsAnswer(get, forGeo, in string, tracts map[string]map[string]string) Reply {
	names := strings.Split(get, ",")
	if get == "" {
		return acsText(http.StatusBadRequest, "error: missing 'get' parameter")
	}
	if len(names) > acsMaxVariables {
		return acsText(http.StatusBadRequest, "error: 'get' is limited to 50 variables")
	}
	for _, n := range names {
		if n != "NAME" && n != "GEO_ID" && !acsVariableRE.MatchString(n) {
			return acsText(http.StatusBadRequest, fmt.Sprintf("error: unknown variable '%s'", n))
		}
	}
	tract, ok := strings.CutPrefix(forGeo, "tract:")
	geo := map[string]string{}
	for _, part := range strings.Fields(in) {
		k, v, found := strings.Cut(part, ":")
		if !found || v == "" || (k != "state" && k != "county") {
			ok = false
		}
		geo[k] = v
	}
	if geo["state"] == "" || tract == "" {
		ok = false
	}
	if !ok {
		return acsText(http.StatusBadRequest, "error: unknown/unsupported geography hierarchy")
	}

	geoids := make([]string, 0, len(tracts))
	for id := range tracts {
		geoids = append(geoids, id)
	}
	sort.Strings(geoids)
	var rows []string
	header := append(append([]string(nil), names...), "state", "county", "tract")
	rows = append(rows, acsJSON(header))
	for _, id := range geoids {
		if len(id) != 11 {
			continue
		}
		st, cty, tr := id[:2], id[2:5], id[5:]
		if st != geo["state"] || (geo["county"] != "" && geo["county"] != "*" && cty != geo["county"]) ||
			(tract != "*" && tr != tract) {
			continue
		}
		data := tracts[id]
		row := make([]string, 0, len(header))
		for _, n := range names {
			v, has := data[n]
			switch {
			case has:
			case n == "NAME":
				v = "Census Tract " + acsTractNumber(tr)
			case n == "GEO_ID":
				v = "1400000US" + id
			default:
				v = ACSNotAvailable
			}
			row = append(row, v)
		}
		rows = append(rows, acsJSON(append(row, st, cty, tr)))
	}
	if len(rows) == 1 {
		return reply(http.StatusNoContent, "", nil)
	}
	return reply(http.StatusOK, "application/json;charset=utf-8", []byte("["+strings.Join(rows, ",\n")+"]"))
}

func acsJSON(row []string) string {
	b, err := json.Marshal(row)
	if err != nil {
		panic(err) // a []string always marshals
	}
	return string(b)
}

// acsTractNumber writes a six-digit tract code the way tract names do:
// "007703" is 77.03, "980000" is 9800.
func acsTractNumber(code string) string {
	whole := strings.TrimLeft(code[:4], "0")
	if whole == "" {
		whole = "0"
	}
	if code[4:] == "00" {
		return whole
	}
	return whole + "." + code[4:]
}
