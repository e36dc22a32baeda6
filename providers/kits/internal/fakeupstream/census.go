package fakeupstream

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
)

// CensusPlace is one address the fake Census geocoder knows. Street, City,
// State and Zip are the canonical, UPPER-CASE parts of the matched address
// ("1600 PENNSYLVANIA AVE NW", "WASHINGTON", "DC", "20502"); Aliases are other
// street spellings that match it beyond what CensusSameStreet tolerates, as
// the real geocoder's fuzzier matching would (see CensusGeocoder). StateFIPS
// (2 digits), CountyFIPS (3), Tract (6) and Block (4) are the geography
// codes; an empty code leaves that layer empty.
type CensusPlace struct {
	Street, City, State, Zip string
	Aliases                  []string
	Lat, Lng                 float64
	CountyName               string
	StateFIPS, CountyFIPS    string
	Tract, Block             string
}

// CensusArea is one county or census tract of the fake Census geocoder's
// map, for answering with the geographies of the polygons holding a point
// as the real service does (see CensusGeocoderAreas). Shape is an
// orb.Polygon or orb.MultiPolygon in longitude, latitude, as a boundary
// file holds it: a point in a hole is outside, one on any edge inside. An
// area with a Tract is a tract of the Census Tracts layer; one without is a
// county of the Counties layer, named CountyName as the geocoder names it
// ("Fairfax County", "District of Columbia"). State is the USPS code sent
// on the States layer with a county.
type CensusArea struct {
	Shape                 orb.Geometry
	State                 string
	StateFIPS, CountyFIPS string
	Tract                 string
	CountyName            string
}

// contains reports whether the area's shape holds the point, edges
// included.
func (a CensusArea) contains(lat, lng float64) bool {
	return shapeHolds(a.Shape, orb.Point{lng, lat})
}

// censusReverseRadius is how close a coordinate must be to a place for the
// fake's reverse lookup to answer with that place's geographies.
const censusReverseRadius = 5000.0

// CensusGeocoder returns the routes of the Census geocoder
// (geographies/address, geographies/onelineaddress, geographies/coordinates
// and geographies/addressbatch, below the base URL), answering the way the
// real service does, in the shapes of the Current_Current vintage recordings
// (layers "States", "Counties", "Census Tracts", "2010 Census Blocks"),
// knowing only places; and the locations searches (locations/address,
// locations/onelineaddress), which match the same way and answer the same
// matches without geographies, their input echoing no vintage, as the
// locations recordings show. Each route is its own path, so a caller counts
// the matches asked apart from the geographies.
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
func CensusGeocoder(places ...CensusPlace) []Route { return CensusGeocoderAreas(nil, places...) }

// CensusGeocoderAreas is CensusGeocoder answering geographies from a map of
// county and tract polygons instead of the places' own codes: a reverse
// lookup answers with the counties and tracts holding the point (one entry
// each, in the order given; empty layers when none does), an address match
// with those holding the place's point, and a batch row with their codes
// (no block). A place's StateFIPS, CountyFIPS, CountyName, Tract and Block
// are then unused. Without areas it is CensusGeocoder.
func CensusGeocoderAreas(areas []CensusArea, places ...CensusPlace) []Route {
	f := &censusFake{places: append([]CensusPlace(nil), places...), areas: append([]CensusArea(nil), areas...)}
	return []Route{
		{Method: http.MethodGet, Path: "/geographies/address", Serve: f.address},
		{Method: http.MethodGet, Path: "/geographies/onelineaddress", Serve: f.oneLine},
		{Method: http.MethodGet, Path: "/locations/address", Serve: f.locationsAddress},
		{Method: http.MethodGet, Path: "/locations/onelineaddress", Serve: f.locationsOneLine},
		{Method: http.MethodGet, Path: "/geographies/coordinates", Serve: f.coordinates},
		{Method: http.MethodPost, Path: "/geographies/addressbatch", Serve: f.batch},
	}
}

// CensusFailure is an answer of the Census geocoder with status and body;
// the Content-Type follows the body (JSON, HTML or plain text), as the
// service's own error answers do.
func CensusFailure(status int, body string) Reply {
	return reply(status, censusContentType(body), []byte(body))
}

func censusContentType(body string) string {
	switch s := strings.TrimSpace(body); {
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return "application/json"
	case strings.HasPrefix(s, "<"):
		return "text/html;charset=UTF-8"
	}
	return "text/plain;charset=UTF-8"
}

type censusFake struct {
	places []CensusPlace
	areas  []CensusArea
}

// geographies returns the layers of a place: from the areas holding its
// point when the fake has areas, else from its own codes.
func (f *censusFake) geographies(p CensusPlace) map[string][]any {
	if len(f.areas) == 0 {
		return censusGeographies(p)
	}
	return f.geographiesAt(p.Lat, p.Lng)
}

// geographiesAt builds the layers of the areas holding a point: each
// county's entry (the first also giving the States layer) and each tract's,
// with the keys and formats censusGeographies gives them, centroids at the
// middle of the area's bounds.
func (f *censusFake) geographiesAt(lat, lng float64) map[string][]any {
	g := censusEmptyGeographies()
	for _, a := range f.areas {
		if !a.contains(lat, lng) {
			continue
		}
		c := a.Shape.Bound().Center()
		p := CensusPlace{State: a.State, StateFIPS: a.StateFIPS, CountyFIPS: a.CountyFIPS,
			CountyName: a.CountyName, Tract: a.Tract, Lat: c.Lat(), Lng: c.Lon()}
		one := censusGeographies(p)
		if a.Tract != "" {
			g[censusTractsLayer] = append(g[censusTractsLayer], one[censusTractsLayer]...)
			continue
		}
		g[censusCountiesLayer] = append(g[censusCountiesLayer], one[censusCountiesLayer]...)
		if len(g[censusStatesLayer]) == 0 {
			g[censusStatesLayer] = one[censusStatesLayer]
		}
	}
	return g
}

// codes returns the state, county, tract and block codes of a batch row:
// the place's own, or those of the first county and tract holding its
// point when the fake has areas.
func (f *censusFake) codes(p CensusPlace) (state, county, tract, block string) {
	if len(f.areas) == 0 {
		return p.StateFIPS, p.CountyFIPS, p.Tract, p.Block
	}
	for _, a := range f.areas {
		if !a.contains(p.Lat, p.Lng) {
			continue
		}
		switch {
		case a.Tract != "" && tract == "":
			tract = a.Tract
		case a.Tract == "" && county == "":
			state, county = a.StateFIPS, a.CountyFIPS
		}
	}
	return state, county, tract, ""
}

// censusHTML is what the real service renders when format=json is missing.
const censusHTML = "<!DOCTYPE html>\n<html><head><title>Census Geocoder</title></head>" +
	"<body><h1>Geocoding Services</h1></body></html>\n"

func censusJSON(status int, v any) Reply {
	return jsonReply(status, "application/json;charset=UTF-8", v)
}

func censusBadRequest(msg string) Reply {
	return censusJSON(http.StatusBadRequest, map[string]any{"errors": []string{msg}, "status": "400"})
}

// censusCheckCommon answers the request itself when it lacks format=json or
// its benchmark/vintage; ok is false when it did.
func censusCheckCommon(get func(string) string, needVintage bool) (Reply, bool) {
	if get("format") != "json" {
		return reply(http.StatusOK, "text/html;charset=UTF-8", []byte(censusHTML)), false
	}
	if get("benchmark") == "" {
		return censusBadRequest("Benchmark must be provided"), false
	}
	if needVintage && get("vintage") == "" {
		return censusBadRequest("Vintage must be provided"), false
	}
	return Reply{}, true
}

func (f *censusFake) address(req *http.Request) Reply { return f.addressSearch(req, true) }

func (f *censusFake) locationsAddress(req *http.Request) Reply { return f.addressSearch(req, false) }

func (f *censusFake) oneLine(req *http.Request) Reply { return f.oneLineSearch(req, true) }

func (f *censusFake) locationsOneLine(req *http.Request) Reply { return f.oneLineSearch(req, false) }

// censusInput is the input block of an address search's answer: the
// address as sent, the benchmark, and for geographies the vintage.
func censusInput(q url.Values, address map[string]string, geographies bool) map[string]any {
	input := map[string]any{"address": address, "benchmark": censusBenchmark(q.Get("benchmark"))}
	if geographies {
		input["vintage"] = censusVintage(q.Get("vintage"))
	}
	return input
}

// addressSearch answers geographies/address, or locations/address when
// geographies is false.
func (f *censusFake) addressSearch(req *http.Request, geographies bool) Reply {
	q := req.URL.Query()
	if r, ok := censusCheckCommon(q.Get, geographies); !ok {
		return r
	}
	street := q.Get("street")
	if strings.TrimSpace(street) == "" {
		return censusBadRequest("Street address cannot be empty and cannot exceed 100 characters")
	}
	input := censusInput(q, map[string]string{
		"street": street, "city": q.Get("city"), "state": q.Get("state"), "zip": q.Get("zip"),
	}, geographies)
	matches := f.match(street, q.Get("state"))
	return censusJSON(http.StatusOK, f.addressResult(input, matches, geographies))
}

// oneLineSearch answers geographies/onelineaddress, or
// locations/onelineaddress when geographies is false.
func (f *censusFake) oneLineSearch(req *http.Request, geographies bool) Reply {
	q := req.URL.Query()
	if r, ok := censusCheckCommon(q.Get, geographies); !ok {
		return r
	}
	address := q.Get("address")
	if strings.TrimSpace(address) == "" {
		return censusBadRequest("Address cannot be empty and cannot exceed 100 characters")
	}
	input := censusInput(q, map[string]string{"address": address}, geographies)
	var matches []censusMatch
	words := censusWords(address)
	for _, p := range f.places {
		for i, key := range p.streets() {
			kw := censusStreetWords(key)
			// The street is the first len(kw) words, compared as a street.
			if len(kw) == 0 || len(kw) > len(words) ||
				!slices.Equal(censusStandardWords(slices.Clone(words[:len(kw)])), kw) {
				continue
			}
			if slices.Contains(words[len(kw):], strings.ToUpper(strings.TrimSpace(p.State))) {
				matches = append(matches, censusMatch{place: p, exact: i == 0})
				break
			}
		}
	}
	return censusJSON(http.StatusOK, f.addressResult(input, matches, geographies))
}

func (f *censusFake) coordinates(req *http.Request) Reply {
	q := req.URL.Query()
	if r, ok := censusCheckCommon(q.Get, true); !ok {
		return r
	}
	x, errX := strconv.ParseFloat(q.Get("x"), 64)
	y, errY := strconv.ParseFloat(q.Get("y"), 64)
	if errX != nil || errY != nil {
		return censusBadRequest("Invalid coordinates: x and y must be numbers")
	}
	geos := censusEmptyGeographies()
	if len(f.areas) > 0 {
		geos = f.geographiesAt(y, x)
	} else if p := f.nearest(y, x); p != nil {
		geos = censusGeographies(*p)
	}
	return censusJSON(http.StatusOK, map[string]any{"result": map[string]any{
		"input": map[string]any{
			"location":  map[string]float64{"x": x, "y": y},
			"vintage":   censusVintage(q.Get("vintage")),
			"benchmark": censusBenchmark(q.Get("benchmark")),
		},
		"geographies": geos,
	}})
}

// nearest returns the place nearest the point within censusReverseRadius,
// or nil.
func (f *censusFake) nearest(y, x float64) *CensusPlace {
	at := providers.Point{Lat: y, Lng: x}
	var nearest *CensusPlace
	best := math.Inf(1)
	for i := range f.places {
		p := &f.places[i]
		if d := at.DistanceMeters(providers.Point{Lat: p.Lat, Lng: p.Lng}); d <= censusReverseRadius && d < best {
			nearest, best = p, d
		}
	}
	return nearest
}

func (f *censusFake) batch(req *http.Request) Reply {
	if err := req.ParseMultipartForm(32 << 20); err != nil {
		return censusBadRequest("The request must be multipart/form-data with an addressFile")
	}
	// The form values are the only parameters of a batch; format does not apply.
	get := func(k string) string {
		if k == "format" {
			return "json"
		}
		return req.FormValue(k)
	}
	if r, ok := censusCheckCommon(get, true); !ok {
		return r
	}
	file, _, err := req.FormFile("addressFile")
	if err != nil {
		return censusBadRequest("An addressFile must be provided")
	}
	defer file.Close()
	r := csv.NewReader(file)
	r.FieldsPerRecord = -1
	var lines []string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return censusBadRequest("The addressFile could not be read: " + err.Error())
		}
		for len(rec) < 5 {
			rec = append(rec, "")
		}
		id, street, city, state, zip := rec[0], rec[1], rec[2], rec[3], rec[4]
		fields := []string{id, strings.Join([]string{street, city, state, zip}, ", ")}
		switch m := f.match(street, state); len(m) {
		case 0:
			fields = append(fields, "No_Match")
		case 1:
			p := m[0].place
			matchType := "Non_Exact"
			if m[0].exact {
				matchType = "Exact"
			}
			state, county, tract, block := f.codes(p)
			fields = append(fields, "Match", matchType, p.matchedAddress(),
				strconv.FormatFloat(p.Lng, 'f', -1, 64)+","+strconv.FormatFloat(p.Lat, 'f', -1, 64),
				p.tigerLineID(), "L", state, county, tract, block)
		default:
			fields = append(fields, "Tie")
		}
		lines = append(lines, quoteCensusCSV(fields))
	}
	var body strings.Builder
	for i := len(lines) - 1; i >= 0; i-- {
		body.WriteString(lines[i])
		body.WriteByte('\n')
	}
	rep := reply(http.StatusOK, "text/plain;charset=UTF-8", []byte(body.String()))
	rep.Header.Set("Content-Disposition", "attachment; filename=GeocodeResults.csv")
	return rep
}

// quoteCensusCSV renders one batch answer row: every field double-quoted.
func quoteCensusCSV(fields []string) string {
	quoted := make([]string, len(fields))
	for i, f := range fields {
		quoted[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
	}
	return strings.Join(quoted, ",")
}

type censusMatch struct {
	place CensusPlace
	exact bool // matched Street rather than an alias
}

// match returns the places whose street (or an alias) and state match.
func (f *censusFake) match(street, state string) []censusMatch {
	s := censusStreetWords(street)
	st := strings.ToUpper(strings.TrimSpace(state))
	if len(s) == 0 {
		return nil
	}
	var out []censusMatch
	for _, p := range f.places {
		if strings.ToUpper(strings.TrimSpace(p.State)) != st {
			continue
		}
		for i, key := range p.streets() {
			if slices.Equal(censusStreetWords(key), s) {
				out = append(out, censusMatch{place: p, exact: i == 0})
				break
			}
		}
	}
	return out
}

func (p CensusPlace) streets() []string { return append([]string{p.Street}, p.Aliases...) }

func (p CensusPlace) matchedAddress() string {
	return strings.Join([]string{p.Street, p.City, p.State, p.Zip}, ", ")
}

// tigerLineID is a stable, made-up TIGER edge id for the place.
func (p CensusPlace) tigerLineID() string {
	h := uint32(2166136261)
	for _, b := range []byte(p.matchedAddress()) {
		h = (h ^ uint32(b)) * 16777619
	}
	return strconv.FormatUint(uint64(50000000+h%150000000), 10)
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
func CensusSameStreet(a, b string) bool {
	wa, wb := censusStreetWords(a), censusStreetWords(b)
	return len(wa) > 0 && slices.Equal(wa, wb)
}

// censusWords upper-cases s and splits it into words: a comma and blanks
// separate words, an ASCII apostrophe stays inside its word, other
// punctuation and symbols are dropped ("N.W." is "NW").
func censusWords(s string) []string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\'':
			return r
		case r == ',':
			return ' '
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			return -1
		}
		return unicode.ToUpper(r)
	}, s)
	return strings.Fields(s)
}

// censusStreetWords returns the words of a street line with a spelled-out
// directional or suffix abbreviated where it stands as one.
func censusStreetWords(s string) []string { return censusStandardWords(censusWords(s)) }

// censusStandardWords abbreviates, in place, the post-directional, the
// suffix before it and the pre-directional of the street words w (after a
// house number), each only when a name is left beside it: "100 NORTH ST"
// keeps its name.
func censusStandardWords(w []string) []string {
	lo, hi := 0, len(w)
	if hi > 0 && w[0] != "" && unicode.IsDigit(rune(w[0][0])) {
		lo = 1
	}
	if hi-lo >= 2 {
		if d, ok := censusDirections[w[hi-1]]; ok {
			w[hi-1], hi = d, hi-1
		}
	}
	if hi-lo >= 2 {
		if sfx, ok := censusSuffixes[w[hi-1]]; ok {
			w[hi-1], hi = sfx, hi-1
		}
	}
	if hi-lo >= 2 {
		if d, ok := censusDirections[w[lo]]; ok {
			w[lo] = d
		}
	}
	return w
}

// censusDirections and censusSuffixes map spelled-out directionals and the
// common street suffixes to the abbreviations TIGER uses (each maps itself
// too, so an abbreviation stands as one).
var censusDirections, censusSuffixes = censusAbbreviations(
	"NORTH N", "SOUTH S", "EAST E", "WEST W", "NORTHEAST NE", "NORTHWEST NW", "SOUTHEAST SE", "SOUTHWEST SW",
), censusAbbreviations(
	"STREET ST", "AVENUE AVE", "ROAD RD", "DRIVE DR", "LANE LN", "BOULEVARD BLVD", "COURT CT",
	"PLACE PL", "PLAZA PLZ", "CIRCLE CIR", "TERRACE TER", "TRAIL TRL", "PARKWAY PKWY",
	"HIGHWAY HWY", "SQUARE SQ", "WAY WAY",
)

func censusAbbreviations(pairs ...string) map[string]string {
	m := map[string]string{}
	for _, p := range pairs {
		long, short, _ := strings.Cut(p, " ")
		m[long], m[short] = short, short
	}
	return m
}

// addressResult is the answer of an address search with matches: each
// with its geographies when geographies is set, without any (the
// locations searches) when not.
func (f *censusFake) addressResult(input map[string]any, matches []censusMatch, geographies bool) map[string]any {
	am := make([]any, 0, len(matches))
	for _, m := range matches {
		p := m.place
		match := map[string]any{
			"tigerLine":         map[string]string{"tigerLineId": p.tigerLineID(), "side": "L"},
			"matchedAddress":    p.matchedAddress(),
			"coordinates":       map[string]float64{"x": p.Lng, "y": p.Lat},
			"addressComponents": censusComponents(p),
		}
		if geographies {
			match["geographies"] = f.geographies(p)
		}
		am = append(am, match)
	}
	return map[string]any{"result": map[string]any{"input": input, "addressMatches": am}}
}

// censusComponents splits the place's street into the parsed components the
// real service returns.
func censusComponents(p CensusPlace) map[string]string {
	c := map[string]string{
		"fromAddress": "", "toAddress": "", "preQualifier": "", "preDirection": "", "preType": "",
		"streetName": "", "suffixType": "", "suffixDirection": "", "suffixQualifier": "",
		"city": p.City, "state": p.State, "zip": p.Zip,
	}
	tokens := strings.Fields(strings.ToUpper(p.Street))
	if len(tokens) > 1 {
		if n, err := strconv.Atoi(tokens[0]); err == nil {
			c["fromAddress"] = strconv.Itoa(n - n%100)
			c["toAddress"] = strconv.Itoa(n - n%100 + 98 + n%2)
			tokens = tokens[1:]
		}
	}
	directions := map[string]bool{"N": true, "S": true, "E": true, "W": true, "NE": true, "NW": true, "SE": true, "SW": true}
	suffixes := map[string]bool{"ST": true, "AVE": true, "RD": true, "DR": true, "LN": true, "BLVD": true, "CT": true,
		"PL": true, "WAY": true, "HWY": true, "PKWY": true, "CIR": true, "TER": true, "TRL": true, "SQ": true}
	if len(tokens) > 1 && directions[tokens[len(tokens)-1]] {
		c["suffixDirection"] = tokens[len(tokens)-1]
		tokens = tokens[:len(tokens)-1]
	}
	if len(tokens) > 1 && suffixes[tokens[len(tokens)-1]] {
		c["suffixType"] = tokens[len(tokens)-1]
		tokens = tokens[:len(tokens)-1]
	}
	if len(tokens) > 1 && directions[tokens[0]] {
		c["preDirection"] = tokens[0]
		tokens = tokens[1:]
	}
	c["streetName"] = strings.Join(tokens, " ")
	return c
}

var censusBenchmarks = map[string]map[string]any{
	"Public_AR_Current":    {"id": "4", "benchmarkName": "Public_AR_Current", "benchmarkDescription": "Public Address Ranges - Current Benchmark"},
	"Public_AR_ACS2022":    {"id": "8", "benchmarkName": "Public_AR_ACS2022", "benchmarkDescription": "Public Address Ranges - ACS2022 Benchmark"},
	"Public_AR_Census2020": {"id": "2020", "benchmarkName": "Public_AR_Census2020", "benchmarkDescription": "Public Address Ranges - Census 2020 Benchmark"},
}

var censusVintages = map[string]map[string]any{
	"Current_Current":    {"id": "4", "vintageName": "Current_Current", "vintageDescription": "Current Vintage - Current Benchmark"},
	"Census2020_Current": {"id": "420", "vintageName": "Census2020_Current", "vintageDescription": "Census2020 Vintage - Current Benchmark"},
	"ACS2022_Current":    {"id": "422", "vintageName": "ACS2022_Current", "vintageDescription": "ACS2022 Vintage - Current Benchmark"},
}

// censusBenchmark echoes a benchmark given by name or id as the real input
// block does.
func censusBenchmark(v string) map[string]any {
	for name, b := range censusBenchmarks {
		if v == name || v == b["id"] {
			return map[string]any{"id": b["id"], "isDefault": name == "Public_AR_Current",
				"benchmarkName": b["benchmarkName"], "benchmarkDescription": b["benchmarkDescription"]}
		}
	}
	return map[string]any{"id": v, "isDefault": false, "benchmarkName": v, "benchmarkDescription": v}
}

func censusVintage(v string) map[string]any {
	for name, b := range censusVintages {
		if v == name || v == b["id"] {
			return map[string]any{"id": b["id"], "isDefault": name == "Current_Current",
				"vintageName": b["vintageName"], "vintageDescription": b["vintageDescription"]}
		}
	}
	return map[string]any{"id": v, "isDefault": false, "vintageName": v, "vintageDescription": v}
}

// The layer names of the Current_Current vintage.
const (
	censusStatesLayer   = "States"
	censusCountiesLayer = "Counties"
	censusTractsLayer   = "Census Tracts"
	censusBlocksLayer   = "2010 Census Blocks"
)

func censusEmptyGeographies() map[string][]any {
	return map[string][]any{
		censusStatesLayer: {}, censusCountiesLayer: {}, censusTractsLayer: {}, censusBlocksLayer: {},
	}
}

// censusGeographies builds the default layers of a place, each entry with the
// keys and string formats of the real ones (zero-padded codes, signed
// zero-padded centroids). Areas and object ids are made up but stable.
func censusGeographies(p CensusPlace) map[string][]any {
	g := censusEmptyGeographies()
	lat, lon := censusLat(p.Lat), censusLon(p.Lng)
	sf, cf := p.StateFIPS, p.CountyFIPS
	seed := int64(len(p.Street)*7919 + len(p.City)*104729)
	if sf != "" {
		info := censusStateInfo(sf, p.State)
		g[censusStatesLayer] = []any{map[string]any{
			"OID": 27490331000000 + censusNum(sf), "STATE": sf, "FUNCSTAT": "A", "NAME": info.name,
			"AREAWATER": 1000000 + seed, "LSADC": "00", "CENTLON": lon, "STUSAB": p.State,
			"BASENAME": info.name, "INTPTLAT": lat, "DIVISION": info.division, "MTFCC": "G4000",
			"STATENS": fmt.Sprintf("0%07d", 1779700+censusNum(sf)), "GEOID": sf, "CENTLAT": lat,
			"INTPTLON": lon, "REGION": info.region, "AREALAND": 100000000 + seed, "OBJECTID": censusNum(sf),
		}}
	}
	if sf != "" && cf != "" {
		lsad, base := censusCountyLSAD(p.CountyName)
		g[censusCountiesLayer] = []any{map[string]any{
			"OID": 27590331000000 + censusNum(sf+cf), "STATE": sf, "FUNCSTAT": "A", "AREAWATER": 500000 + seed,
			"NAME": p.CountyName, "LSADC": lsad, "CENTLON": lon, "BASENAME": base, "INTPTLAT": lat,
			"COUNTYCC": "H1", "MTFCC": "G4020", "COUNTY": cf, "GEOID": sf + cf, "CENTLAT": lat,
			"INTPTLON": lon, "AREALAND": 50000000 + seed, "COUNTYNS": fmt.Sprintf("0%07d", 1480000+censusNum(sf+cf)%100000),
			"OBJECTID": censusNum(cf) + 100,
		}}
	}
	if sf != "" && cf != "" && p.Tract != "" {
		g[censusTractsLayer] = []any{map[string]any{
			"OID": 20790331000000 + censusNum(p.Tract), "STATE": sf, "FUNCSTAT": "S",
			"NAME": "Census Tract " + censusTractName(p.Tract), "AREAWATER": seed % 1000, "LSADC": "CT",
			"CENTLON": lon, "BASENAME": censusTractName(p.Tract), "INTPTLAT": lat, "MTFCC": "G5020",
			"COUNTY": cf, "GEOID": sf + cf + p.Tract, "CENTLAT": lat, "INTPTLON": lon,
			"AREALAND": 2000000 + seed, "OBJECTID": 20000 + censusNum(p.Tract)%10000, "TRACT": p.Tract,
		}}
	}
	if sf != "" && cf != "" && p.Tract != "" && p.Block != "" {
		g[censusBlocksLayer] = []any{map[string]any{
			"BLKGRP": p.Block[:1], "OID": 210403964000000 + censusNum(p.Tract+p.Block)%1000000, "FUNCSTAT": "S",
			"STATE": sf, "AREAWATER": 0, "NAME": "Block " + p.Block, "SUFFIX": "", "LSADC": "BK",
			"CENTLON": lon, "LWBLKTYP": "L", "BASENAME": p.Block, "BLOCK": p.Block, "INTPTLAT": lat,
			"MTFCC": "G5040", "COUNTY": cf, "GEOID": sf + cf + p.Tract + p.Block, "CENTLAT": lat,
			"INTPTLON": lon, "AREALAND": 40000 + seed, "OBJECTID": 900000 + censusNum(p.Block), "TRACT": p.Tract,
		}}
	}
	return g
}

func censusNum(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// censusLat and censusLon format centroids like the real layers:
// "+38.8971157", "-077.0365336".
func censusLat(v float64) string { return fmt.Sprintf("%+011.7f", v) }
func censusLon(v float64) string { return fmt.Sprintf("%+012.7f", v) }

// censusTractName turns a six-digit tract code into its display name:
// "006202" -> "62.02", "061500" -> "615".
func censusTractName(tract string) string {
	if len(tract) != 6 {
		return tract
	}
	whole := strings.TrimLeft(tract[:4], "0")
	if whole == "" {
		whole = "0"
	}
	if frac := tract[4:]; frac != "00" {
		return whole + "." + frac
	}
	return whole
}

// censusCountyLSAD returns the legal/statistical area code and base name of
// a county name such as "Fairfax County" or "Orleans Parish".
func censusCountyLSAD(name string) (lsad, base string) {
	for _, s := range []struct{ suffix, code string }{
		{" County", "06"}, {" Parish", "15"}, {" Borough", "04"}, {" city", "25"}, {" Census Area", "05"},
	} {
		if strings.HasSuffix(name, s.suffix) {
			return s.code, strings.TrimSuffix(name, s.suffix)
		}
	}
	return "00", name
}

type censusState struct{ name, region, division string }

// censusStates maps state FIPS codes to name, census region and division.
var censusStates = map[string]censusState{
	"01": {"Alabama", "3", "6"}, "02": {"Alaska", "4", "9"}, "04": {"Arizona", "4", "8"},
	"05": {"Arkansas", "3", "7"}, "06": {"California", "4", "9"}, "08": {"Colorado", "4", "8"},
	"09": {"Connecticut", "1", "1"}, "10": {"Delaware", "3", "5"}, "11": {"District of Columbia", "3", "5"},
	"12": {"Florida", "3", "5"}, "13": {"Georgia", "3", "5"}, "15": {"Hawaii", "4", "9"},
	"16": {"Idaho", "4", "8"}, "17": {"Illinois", "2", "3"}, "18": {"Indiana", "2", "3"},
	"19": {"Iowa", "2", "4"}, "20": {"Kansas", "2", "4"}, "21": {"Kentucky", "3", "6"},
	"22": {"Louisiana", "3", "7"}, "23": {"Maine", "1", "1"}, "24": {"Maryland", "3", "5"},
	"25": {"Massachusetts", "1", "1"}, "26": {"Michigan", "2", "3"}, "27": {"Minnesota", "2", "4"},
	"28": {"Mississippi", "3", "6"}, "29": {"Missouri", "2", "4"}, "30": {"Montana", "4", "8"},
	"31": {"Nebraska", "2", "4"}, "32": {"Nevada", "4", "8"}, "33": {"New Hampshire", "1", "1"},
	"34": {"New Jersey", "1", "2"}, "35": {"New Mexico", "4", "8"}, "36": {"New York", "1", "2"},
	"37": {"North Carolina", "3", "5"}, "38": {"North Dakota", "2", "4"}, "39": {"Ohio", "2", "3"},
	"40": {"Oklahoma", "3", "7"}, "41": {"Oregon", "4", "9"}, "42": {"Pennsylvania", "1", "2"},
	"44": {"Rhode Island", "1", "1"}, "45": {"South Carolina", "3", "5"}, "46": {"South Dakota", "2", "4"},
	"47": {"Tennessee", "3", "6"}, "48": {"Texas", "3", "7"}, "49": {"Utah", "4", "8"},
	"50": {"Vermont", "1", "1"}, "51": {"Virginia", "3", "5"}, "53": {"Washington", "4", "9"},
	"54": {"West Virginia", "3", "5"}, "55": {"Wisconsin", "2", "3"}, "56": {"Wyoming", "4", "8"},
	"72": {"Puerto Rico", "9", "0"},
}

func censusStateInfo(fips, usps string) censusState {
	if s, ok := censusStates[fips]; ok {
		return s
	}
	return censusState{name: usps, region: "9", division: "0"}
}
