package fakeupstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// OSMElement is one OpenStreetMap object known to the fake Overpass API.
// Type is "node", "way" or "relation" (empty means node). Lat and Lng are a
// node's position, or the center the server computes for a way or relation.
// Tags may be nil (the answer then has no "tags" member, as upstream).
type OSMElement struct {
	Type string
	ID   int64
	Lat  float64
	Lng  float64
	Tags map[string]string
}

// OverpassTimeoutRemark is the remark the real server puts in an HTTP 200
// answer when the query ran out of time; its elements are partial.
const OverpassTimeoutRemark = `runtime error: Query timed out in "query" at line 3 after 25 seconds.`

// OverpassMemoryRemark is the remark of an HTTP 200 answer whose query ran
// out of memory on the server.
const OverpassMemoryRemark = `runtime error: Query ran out of memory in "query" at line 1. It would need at least 521 MB of RAM to continue.`

// Overpass returns the routes of the Overpass interpreter (its base URL
// itself, POST with form data= and GET with ?data=), answering Overpass QL
// queries like the real server: with the elements that lie within a
// statement's around radius and match its tag filter, as [out:json] with
// nodes at lat/lon and ways and relations with a center when the query says
// "out center". It understands statements of the form
//
//	nwr(around:R,LAT,LON)["key"="value"];   (also ~"regex", node/way/rel/nw/nr/wr)
//
// and answers a query it cannot read, or one without [out:json], with the
// upstream's HTTP 400 parse-error page.
func Overpass(elements ...OSMElement) []Route {
	els := append([]OSMElement(nil), elements...)
	serve := func(req *http.Request) Reply {
		q, err := overpassQueryText(req)
		if err != nil {
			return overpassPage(http.StatusBadRequest, "line 1: parse error: "+err.Error(), 0)
		}
		stmts, withCenter, err := parseOverpassQuery(q)
		if err != nil {
			return overpassPage(http.StatusBadRequest, err.Error(), 0)
		}
		var hits []OSMElement
		seen := map[string]bool{}
		for _, s := range stmts {
			for _, e := range els {
				key := overpassType(e) + "/" + strconv.FormatInt(e.ID, 10)
				if !seen[key] && s.matches(e) {
					seen[key] = true
					hits = append(hits, e)
				}
			}
		}
		return overpassJSON(hits, "", withCenter)
	}
	return []Route{
		{Method: http.MethodPost, Path: "", Serve: serve},
		{Method: http.MethodGet, Path: "", Serve: serve},
	}
}

// OverpassRemark is the HTTP 200 answer with the partial elements (as they
// are, not filtered) and remark that the real server sends when a query
// fails at run time (see OverpassTimeoutRemark).
func OverpassRemark(remark string, partial ...OSMElement) Reply {
	return overpassJSON(partial, remark, true)
}

// OverpassRateLimitedMessage is what the upstream's "rate_limited" HTML
// page says after "Error:".
const OverpassRateLimitedMessage = "runtime error: open64: 0 Success /osm3s_osm_base Dispatcher_Client::request_read_and_idx::rate_limited. Please check /api/status for the quota of your IP address."

// OverpassRateLimited is the upstream's HTTP 429 "rate_limited" HTML page; a
// retryAfter above zero adds a Retry-After header in whole seconds (the
// public instance sends none).
func OverpassRateLimited(retryAfter time.Duration) Reply {
	return OverpassErrorPage(http.StatusTooManyRequests, OverpassRateLimitedMessage, retryAfter)
}

// OverpassTooBusy is the upstream's HTTP 504 "server is probably too busy"
// HTML page.
func OverpassTooBusy() Reply {
	return OverpassErrorPage(http.StatusGatewayTimeout,
		"runtime error: open64: 0 Success /osm3s_osm_base Dispatcher_Client::request_read_and_idx::timeout. The server is probably too busy to handle your request.",
		0)
}

// OverpassErrorPage is the upstream's "OSM3S Response" HTML page with
// status, carrying message after "Error:", e.g. status 400 with "line 2:
// parse error: ';' expected - 'out' found.". Status 200 mimics the mirrors
// that send error pages with a success code. A retryAfter above zero adds a
// Retry-After header.
func OverpassErrorPage(status int, message string, retryAfter time.Duration) Reply {
	return overpassPage(status, message, retryAfter)
}

// overpassStatement is one "nwr(around:...)[filter]" statement of a query.
type overpassStatement struct {
	types  string // "nwr", "node", ...
	radius float64
	center providers.Point
	key    string
	op     string // "=" or "~"
	value  string
	re     *regexp.Regexp
}

func (s overpassStatement) matches(e OSMElement) bool {
	t := overpassType(e)
	switch s.types {
	case "node", "way":
		if t != s.types {
			return false
		}
	case "rel", "relation":
		if t != "relation" {
			return false
		}
	case "nw", "nr", "wr":
		if !strings.Contains(s.types, t[:1]) {
			return false
		}
	}
	v, ok := e.Tags[s.key]
	if !ok {
		return false
	}
	if s.op == "=" && v != s.value || s.op == "~" && !s.re.MatchString(v) {
		return false
	}
	return s.center.DistanceMeters(providers.Point{Lat: e.Lat, Lng: e.Lng}) <= s.radius
}

var overpassStmt = regexp.MustCompile(
	`(nwr|node|way|rel|relation|nw|nr|wr)\(around:([0-9.]+),\s*(-?[0-9.]+),\s*(-?[0-9.]+)\)\["([^"]+)"(=|~)"((?:[^"\\]|\\.)*)"\];`)

// parseOverpassQuery reads the statements of q and whether it asks for
// centers; an error reads like the upstream's parse errors.
func parseOverpassQuery(q string) ([]overpassStatement, bool, error) {
	if !strings.Contains(q, "[out:json]") {
		return nil, false, fmt.Errorf("line 1: the fake Overpass API answers only [out:json] queries")
	}
	ms := overpassStmt.FindAllStringSubmatch(q, -1)
	if len(ms) == 0 {
		return nil, false, fmt.Errorf("line 2: parse error: no around statement found")
	}
	var out []overpassStatement
	for _, m := range ms {
		r, err1 := strconv.ParseFloat(m[2], 64)
		lat, err2 := strconv.ParseFloat(m[3], 64)
		lng, err3 := strconv.ParseFloat(m[4], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, false, fmt.Errorf("line 2: parse error: bad around in %q", m[0])
		}
		s := overpassStatement{types: m[1], radius: r, center: providers.Point{Lat: lat, Lng: lng},
			key: m[5], op: m[6], value: strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[7])}
		if s.op == "~" {
			re, err := regexp.Compile(s.value)
			if err != nil {
				return nil, false, fmt.Errorf("line 2: parse error: bad regular expression %q", s.value)
			}
			s.re = re
		}
		out = append(out, s)
	}
	return out, strings.Contains(q, "out center"), nil
}

// overpassQueryText returns the data= query of a POST form or a GET.
func overpassQueryText(req *http.Request) (string, error) {
	if req.Method == http.MethodGet {
		if q := req.URL.Query().Get("data"); q != "" {
			return q, nil
		}
		return "", fmt.Errorf("no data parameter")
	}
	if req.Body == nil {
		return "", fmt.Errorf("empty request")
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return "", err
	}
	form, err := url.ParseQuery(string(b))
	if err != nil || form.Get("data") == "" {
		return "", fmt.Errorf("no data form field")
	}
	return form.Get("data"), nil
}

func overpassType(e OSMElement) string {
	if e.Type == "" {
		return "node"
	}
	return e.Type
}

// overpassJSON writes an answer in the server's own layout, blank lines
// after "elements": [ included.
func overpassJSON(els []OSMElement, remark string, withCenter bool) Reply {
	var b strings.Builder
	b.WriteString(`{
  "version": 0.6,
  "generator": "Overpass API 0.7.62.1 084b4234",
  "osm3s": {
    "timestamp_osm_base": "2025-03-02T10:11:12Z",
    "copyright": "The data included in this document is from www.openstreetmap.org. The data is made available under ODbL."
  },
  "elements": [

`)
	for i, e := range els {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(overpassElementJSON(e, withCenter))
	}
	b.WriteString("\n\n  ]")
	if remark != "" {
		r, _ := json.Marshal(remark)
		b.WriteString(",\n\"remark\": ")
		b.Write(r)
	}
	b.WriteString("\n}\n")
	return reply(http.StatusOK, "application/json", []byte(b.String()))
}

func overpassElementJSON(e OSMElement, withCenter bool) []byte {
	type center struct {
		Lat float64 `json:"lat"`
		Lon float64 `json:"lon"`
	}
	doc := struct {
		Type   string            `json:"type"`
		ID     int64             `json:"id"`
		Lat    *float64          `json:"lat,omitempty"`
		Lon    *float64          `json:"lon,omitempty"`
		Center *center           `json:"center,omitempty"`
		Tags   map[string]string `json:"tags,omitempty"`
	}{Type: overpassType(e), ID: e.ID, Tags: e.Tags}
	if doc.Type == "node" {
		doc.Lat, doc.Lon = &e.Lat, &e.Lng
	} else if withCenter {
		doc.Center = &center{Lat: e.Lat, Lon: e.Lng}
	}
	out, _ := json.MarshalIndent(doc, "", "  ")
	return out
}

// overpassPage returns the upstream's "OSM3S Response" HTML error page.
func overpassPage(status int, message string, retryAfter time.Duration) Reply {
	body := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
<head>
  <meta http-equiv="content-type" content="text/html; charset=utf-8" lang="en"/>
  <title>OSM3S Response</title>
</head>
<body>

<p>The data included in this document is from www.openstreetmap.org. The data is made available under ODbL.</p>
<p><strong style="color:#FF0000">Error</strong>: ` + overpassHTMLEscape(message) + ` </p>

</body>
</html>
`
	r := reply(status, "text/html; charset=utf-8", []byte(body))
	if retryAfter > 0 {
		r.Header.Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	}
	return r
}

func overpassHTMLEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
