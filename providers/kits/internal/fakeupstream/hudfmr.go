package fakeupstream

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// HUDCounty is one county the fake HUD FMR API knows, keyed by its
// five-digit FIPS code in the map given to HUDFMR.
type HUDCounty struct {
	CountyName string // e.g. "Travis County, TX"
	TownName   string // New England town, usually empty
	// MetroName is the metro area; empty makes the county non-metro
	// (metro_status "0").
	MetroName string
	// AreaName is the FMR area; empty leaves area_name out, as the oldest
	// answers do.
	AreaName string
	// Year is the fiscal year the fake publishes for the county; empty means
	// "2025". A request for another year is answered 404.
	Year string
	// Rents are Efficiency through Four-Bedroom.
	Rents [5]int
	// ZIPRents, when not nil, makes the county a Small Area FMR area:
	// basicdata is an array whose first row (zip_code "MSA level") holds
	// Rents, followed by one row per ZIP code in ascending order.
	ZIPRents map[string][5]int
	// StringValues writes rents as strings such as "758.0", as the oldest
	// answers do, instead of integers.
	StringValues bool
	// Status, when not 0, answers every request for the county with that
	// HTTP status and an {"error": "..."} body; RetryAfter, when not empty,
	// is sent as its Retry-After header.
	Status     int
	RetryAfter string
}

// HUDFMRPattern is the Route pattern of the HUD USER FMR API's data
// requests below its base URL, GET /data/<entityid>.
const HUDFMRPattern = `/data/[^/?]*`

// HUDFMR returns the route of the HUD USER FMR API, GET {base}/data/<entityid>,
// answering like the real service for counties (keyed by five-digit FIPS
// code; the entity id is the code followed by 99999) to requests carrying
// the bearer token token. It answers 401 {"error":"Unauthenticated."} for a
// missing or other token, 406 when Accept does not allow application/json,
// 404 {"error":"No data found using '<entityid>'"} for an unknown entity or
// an unpublished year, and otherwise {"data": {...}} with basicdata as one
// object, or as ZIP rows for a Small Area FMR county.
func HUDFMR(token string, counties map[string]HUDCounty) []Route {
	serve := func(req *http.Request) Reply {
		if req.Header.Get("Authorization") != "Bearer "+token {
			return HUDError(http.StatusUnauthorized, "Unauthenticated.")
		}
		if a := req.Header.Get("Accept"); a != "" && !strings.Contains(a, "application/json") && !strings.Contains(a, "*/*") {
			return HUDError(http.StatusNotAcceptable, "Not Acceptable")
		}
		entity := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
		noData := func(value string) Reply {
			return HUDError(http.StatusNotFound, "No data found using '"+value+"'")
		}
		if len(entity) != 10 || !strings.HasSuffix(entity, "99999") {
			return noData(entity)
		}
		county, ok := counties[entity[:5]]
		if !ok {
			return noData(entity)
		}
		if county.Status != 0 {
			r := HUDError(county.Status, http.StatusText(county.Status))
			if county.RetryAfter != "" {
				r.Header.Set("Retry-After", county.RetryAfter)
			}
			return r
		}
		year := county.Year
		if year == "" {
			year = "2025"
		}
		if y := req.URL.Query().Get("year"); y != "" && y != year {
			return noData(entity)
		}
		return jsonReply(http.StatusOK, "application/json", map[string]any{"data": hudFMRAreaBody(county, year)})
	}
	return []Route{{Method: http.MethodGet, Pattern: HUDFMRPattern, Serve: serve}}
}

// HUDError is the API's error answer: status with an {"error": message}
// document.
func HUDError(status int, message string) Reply {
	body, _ := json.Marshal(map[string]string{"error": message})
	return reply(status, "application/json", body)
}

// hudFMRArea is the "data" object, fields in the upstream's order.
type hudFMRArea struct {
	CountyName      string  `json:"county_name"`
	CountiesMSA     string  `json:"counties_msa"`
	TownName        string  `json:"town_name"`
	MetroStatus     string  `json:"metro_status"`
	MetroName       string  `json:"metro_name"`
	AreaName        *string `json:"area_name,omitempty"`
	SmallAreaStatus string  `json:"smallarea_status"`
	Year            string  `json:"year,omitempty"`
	BasicData       any     `json:"basicdata"`
}

// hudFMRRents is one basicdata object or row.
type hudFMRRents struct {
	ZIPCode      string `json:"zip_code,omitempty"`
	Efficiency   any    `json:"Efficiency"`
	OneBedroom   any    `json:"One-Bedroom"`
	TwoBedroom   any    `json:"Two-Bedroom"`
	ThreeBedroom any    `json:"Three-Bedroom"`
	FourBedroom  any    `json:"Four-Bedroom"`
	Year         string `json:"year,omitempty"`
}

func hudFMRAreaBody(c HUDCounty, year string) hudFMRArea {
	rents := func(zip string, r [5]int) hudFMRRents {
		v := make([]any, 5)
		for i, dollars := range r {
			if c.StringValues {
				v[i] = strconv.Itoa(dollars) + ".0"
			} else {
				v[i] = dollars
			}
		}
		return hudFMRRents{ZIPCode: zip, Efficiency: v[0], OneBedroom: v[1], TwoBedroom: v[2], ThreeBedroom: v[3], FourBedroom: v[4]}
	}
	a := hudFMRArea{
		CountyName:      c.CountyName,
		TownName:        c.TownName,
		MetroStatus:     "0",
		MetroName:       c.MetroName,
		SmallAreaStatus: "0",
	}
	if c.MetroName != "" {
		a.MetroStatus = "1"
	}
	if c.AreaName != "" {
		a.AreaName = &c.AreaName
	}
	if c.ZIPRents == nil {
		r := rents("", c.Rents)
		r.Year = year
		a.BasicData = r
		return a
	}
	// A Small Area FMR answer describes the metro: the year moves to the top
	// level and basicdata becomes rows, the metro-wide one first.
	a.SmallAreaStatus = "1"
	a.Year = year
	a.CountiesMSA = c.CountyName
	a.CountyName = ""
	zips := make([]string, 0, len(c.ZIPRents))
	for z := range c.ZIPRents {
		zips = append(zips, z)
	}
	sort.Strings(zips)
	rows := []hudFMRRents{rents("MSA level", c.Rents)}
	for _, z := range zips {
		rows = append(rows, rents(z, c.ZIPRents[z]))
	}
	a.BasicData = rows
	return a
}
