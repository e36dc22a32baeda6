package fakeupstream

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// WalkScorePlace is one place the fake Walk Score API scores.
type WalkScorePlace struct {
	// Point is matched against the request's lat and lon by Point.Key
	// (five decimals).
	Point providers.Point
	// Address only shapes the ws_link of the answer; it is not matched.
	Address string
	// WalkScore is the 0-100 score; Description defaults to its band.
	WalkScore   int
	Description string
	// TransitScore nil answers a transit object whose score, description
	// and summary are all null, as Walk Score does where it has no transit
	// data. TransitSummary defaults to a route count.
	TransitScore   *int
	TransitSummary string
	// BikeScore nil leaves the bike object out.
	BikeScore *int
}

// WalkScoreFake configures WalkScore. The zero value scores nothing and
// accepts any non-empty key.
type WalkScoreFake struct {
	// Key is the wsapikey the fake accepts; any other key, or none, is
	// answered with status 40. Empty accepts any non-empty key.
	Key string
	// Places are the places the fake knows. A point not among them is
	// answered like an invalid coordinate (status 30 with HTTP 404), so a
	// test never gets a score it did not set up.
	Places []WalkScorePlace
	// Status, when neither 0 nor 1, answers every request (with a valid key)
	// with that status code and the HTTP status Walk Score is reported to
	// send with it: see WalkScoreHTTPStatus.
	Status int
	// RetryAfter, when not empty, is sent as the Retry-After header of every
	// answer that is not a score.
	RetryAfter string
}

// The status codes of the Walk Score API, for WalkScoreFake.Status.
const (
	WalkScoreOK            = 1
	WalkScorePending       = 2
	WalkScoreInvalidLatLon = 30
	WalkScoreInternal      = 31
	WalkScoreInvalidKey    = 40
	WalkScoreQuota         = 41
	WalkScoreBlockedIP     = 42
)

// WalkScoreHTTPStatus returns the HTTP status Walk Score is reported to send
// with a body status: 404 for 30, 500 for 31, 403 for 42, else 200.
func WalkScoreHTTPStatus(status int) int {
	switch status {
	case WalkScoreInvalidLatLon:
		return http.StatusNotFound
	case WalkScoreInternal:
		return http.StatusInternalServerError
	case WalkScoreBlockedIP:
		return http.StatusForbidden
	}
	return http.StatusOK
}

// WalkScore returns the route of the Walk Score API, GET {base}/score,
// answering like the real service: a JSON body whose "status" says the
// outcome, with a score body (4-space indented, branding links, snapped
// coordinates, and the transit and bike objects only when transit=1 and
// bike=1 are asked for) for a known place. A request without format=json is
// answered HTTP 400 with a plain-text explanation, since the real service
// would answer XML, which no propertyd client reads.
func WalkScore(f WalkScoreFake) []Route {
	places := make(map[string]WalkScorePlace, len(f.Places))
	for _, p := range f.Places {
		places[p.Point.Key()] = p
	}
	serve := func(req *http.Request) Reply {
		q := req.URL.Query()
		if q.Get("format") != "json" {
			return reply(http.StatusBadRequest, "",
				[]byte("fake Walk Score API: format=json is required (the real service answers XML without it)"))
		}
		status := func(code int) Reply {
			r := reply(WalkScoreHTTPStatus(code), "application/json", []byte(fmt.Sprintf(`{"status": %d}`, code)))
			if f.RetryAfter != "" {
				r.Header.Set("Retry-After", f.RetryAfter)
			}
			return r
		}
		key := q.Get("wsapikey")
		if key == "" || (f.Key != "" && key != f.Key) {
			return status(WalkScoreInvalidKey)
		}
		if f.Status != 0 && f.Status != WalkScoreOK {
			return status(f.Status)
		}
		lat, err1 := strconv.ParseFloat(q.Get("lat"), 64)
		lon, err2 := strconv.ParseFloat(q.Get("lon"), 64)
		if err1 != nil || err2 != nil || math.Abs(lat) > 90 || math.Abs(lon) > 180 {
			return status(WalkScoreInvalidLatLon)
		}
		place, ok := places[providers.Point{Lat: lat, Lng: lon}.Key()]
		if !ok {
			return status(WalkScoreInvalidLatLon)
		}
		body, err := json.MarshalIndent(walkScoreAPIBody(place, q.Get("address"), lat, lon,
			q.Get("transit") == "1", q.Get("bike") == "1"), "", "    ")
		if err != nil {
			return reply(http.StatusInternalServerError, "text/plain; charset=utf-8",
				[]byte("fakeupstream: encoding the score: "+err.Error()))
		}
		return reply(http.StatusOK, "application/json", body)
	}
	return []Route{{Method: http.MethodGet, Path: "/score", Serve: serve}}
}

// walkScoreAPIDoc is the score body, fields in the upstream's order.
type walkScoreAPIDoc struct {
	Status       int                  `json:"status"`
	WalkScore    int                  `json:"walkscore"`
	Description  string               `json:"description"`
	Updated      string               `json:"updated"`
	LogoURL      string               `json:"logo_url"`
	MoreInfoIcon string               `json:"more_info_icon"`
	MoreInfoLink string               `json:"more_info_link"`
	WSLink       string               `json:"ws_link"`
	HelpLink     string               `json:"help_link"`
	SnappedLat   float64              `json:"snapped_lat"`
	SnappedLon   float64              `json:"snapped_lon"`
	Transit      *walkScoreAPITransit `json:"transit,omitempty"`
	Bike         *walkScoreAPIBike    `json:"bike,omitempty"`
}

type walkScoreAPITransit struct {
	Score       *int    `json:"score"`
	Description *string `json:"description"`
	Summary     *string `json:"summary"`
}

type walkScoreAPIBike struct {
	Score       int    `json:"score"`
	Description string `json:"description"`
}

func walkScoreAPIBody(p WalkScorePlace, address string, lat, lon float64, transit, bike bool) walkScoreAPIDoc {
	const help = "https://www.redfin.com/how-walk-score-works"
	slug := strings.Join(strings.Fields(strings.NewReplacer(",", " ", "#", " ").Replace(address)), "-")
	if slug == "" {
		slug = "loc"
	}
	doc := walkScoreAPIDoc{
		Status:       WalkScoreOK,
		WalkScore:    p.WalkScore,
		Description:  p.Description,
		Updated:      "2024-05-01 12:00:00.000000",
		LogoURL:      "https://cdn.walk.sc/images/api-logo.png",
		MoreInfoIcon: "https://cdn.walk.sc/images/api-more-info.gif",
		MoreInfoLink: help,
		WSLink: fmt.Sprintf("https://www.walkscore.com/score/%s/lat=%s/lng=%s/?utm_source=example.com&utm_medium=ws_api&utm_campaign=ws_api",
			slug, strconv.FormatFloat(lat, 'f', -1, 64), strconv.FormatFloat(lon, 'f', -1, 64)),
		HelpLink:   help,
		SnappedLat: walkScoreAPISnap(lat),
		SnappedLon: walkScoreAPISnap(lon),
	}
	if doc.Description == "" {
		doc.Description = walkScoreAPIWalkBand(p.WalkScore)
	}
	if transit {
		doc.Transit = &walkScoreAPITransit{}
		if p.TransitScore != nil {
			score, desc, summary := *p.TransitScore, walkScoreAPITransitBand(*p.TransitScore), p.TransitSummary
			if summary == "" {
				summary = fmt.Sprintf("%d nearby routes: %d bus, 0 rail, 0 other", *p.TransitScore/5, *p.TransitScore/5)
			}
			doc.Transit = &walkScoreAPITransit{Score: &score, Description: &desc, Summary: &summary}
		}
	}
	if bike && p.BikeScore != nil {
		doc.Bike = &walkScoreAPIBike{Score: *p.BikeScore, Description: walkScoreAPIBikeBand(*p.BikeScore)}
	}
	return doc
}

// walkScoreAPISnap snaps a coordinate to a 0.0015 degree grid, about the
// 500 ft grid Walk Score reports in snapped_lat and snapped_lon.
func walkScoreAPISnap(v float64) float64 {
	return math.Round(math.Round(v/0.0015)*0.0015*1e4) / 1e4
}

func walkScoreAPIWalkBand(s int) string {
	switch {
	case s >= 90:
		return "Walker's Paradise"
	case s >= 70:
		return "Very Walkable"
	case s >= 50:
		return "Somewhat Walkable"
	}
	return "Car-Dependent"
}

func walkScoreAPITransitBand(s int) string {
	switch {
	case s >= 90:
		return "Rider's Paradise"
	case s >= 70:
		return "Excellent Transit"
	case s >= 50:
		return "Good Transit"
	case s >= 25:
		return "Some Transit"
	}
	return "Minimal Transit"
}

func walkScoreAPIBikeBand(s int) string {
	switch {
	case s >= 90:
		return "Biker's Paradise"
	case s >= 70:
		return "Very Bikeable"
	case s >= 50:
		return "Bikeable"
	}
	return "Somewhat Bikeable"
}
