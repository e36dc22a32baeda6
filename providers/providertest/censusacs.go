package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/jarcoal/httpmock"
)

// ACSNotAvailable is the Census "not applicable / not available" sentinel
// the ACS fake answers for a variable a tract's data does not hold.
const ACSNotAvailable = "-888888888"

// acsMaxVariables is the upstream's limit on names per get=.
const acsMaxVariables = 50

// acsVariableRE matches ACS detailed-table variable ids: estimates (E),
// margins (M) and their annotations (EA, MA), e.g. B19013_001E, B19013A_001MA.
var acsVariableRE = regexp.MustCompile(`^[BC][0-9]{5}[A-Z]{0,2}_[0-9]{3}(E|M|EA|MA)$`)

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
// empty key accepts every request.
//
// It also registers the API's discovery document (RegisterACSDiscovery)
// listing the 5-year releases up to ACSNewestYear, so a module following
// the newest release asks for the year the recordings were made with.
func RegisterACSWithKey(mt *httpmock.MockTransport, baseURL, key string, tracts map[string]map[string]string) {
	base := strings.TrimRight(baseURL, "/")
	RegisterACSDiscovery(mt, base, ACSNewestYear-2, ACSNewestYear-1, ACSNewestYear)
	mt.RegisterResponder(http.MethodGet, base+"/missing_key.html",
		acsHTMLResponder(http.StatusOK, acsMissingKeyPage))
	mt.RegisterRegexpResponder(http.MethodGet, acsRoute(base), func(req *http.Request) (*http.Response, error) {
		q := req.URL.Query()
		if key != "" {
			switch got := q.Get("key"); {
			case got == "":
				resp := httpmock.NewStringResponse(http.StatusFound, "")
				resp.Header.Set("Location", base+"/missing_key.html")
				return resp, nil
			case got != key:
				return acsHTMLResponder(http.StatusOK, ACSInvalidKeyPage)(req)
			}
		}
		return acsAnswer(q.Get("get"), q.Get("for"), strings.Join(q["in"], " "), tracts), nil
	})
}

// RegisterACSError makes every data request of the ACS fake at baseURL fail
// with status and body, plus header (e.g. Retry-After), replacing any fake
// registered before. The Content-Type is text/plain unless header sets one.
// For the upstream's 400 texts use its own wording, e.g.
// "error: unknown variable 'B99999_001E'".
func RegisterACSError(mt *httpmock.MockTransport, baseURL string, status int, body string, header http.Header) {
	base := strings.TrimRight(baseURL, "/")
	mt.RegisterRegexpResponder(http.MethodGet, acsRoute(base), func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "text/plain;charset=utf-8")
		for k, vs := range header {
			resp.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
		return resp, nil
	})
}

// ACSCalls returns how many data requests the ACS fake at baseURL answered,
// not counting requests for the Missing Key page.
func ACSCalls(mt *httpmock.MockTransport, baseURL string) int {
	return mt.GetCallCountInfo()["GET =~"+acsRoute(strings.TrimRight(baseURL, "/")).String()]
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

func acsRoute(base string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `/[0-9]{4}/acs/acs5(\?.*)?$`)
}

func acsHTMLResponder(status int, page string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, page)
		resp.Header.Set("Content-Type", "text/html;charset=utf-8")
		return resp, nil
	}
}

func acsText(status int, msg string) *http.Response {
	resp := httpmock.NewStringResponse(status, msg)
	resp.Header.Set("Content-Type", "text/plain;charset=utf-8")
	return resp
}

// acsAnswer builds the fake's answer to one query.
func acsAnswer(get, forGeo, in string, tracts map[string]map[string]string) *http.Response {
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
		return httpmock.NewStringResponse(http.StatusNoContent, "")
	}
	resp := httpmock.NewStringResponse(http.StatusOK, "["+strings.Join(rows, ",\n")+"]")
	resp.Header.Set("Content-Type", "application/json;charset=utf-8")
	return resp
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
