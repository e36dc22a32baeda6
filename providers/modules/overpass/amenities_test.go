package overpass_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/amenity"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

// pioneer is the point the Portland testdata is laid out around.
var pioneer = providers.Point{Lat: 45.5152, Lng: -122.6784}

const postKey = "POST " + overpass.DefaultBaseURL

func newClient(t *testing.T, mt *httpmock.MockTransport, opts map[string]string) *overpass.Client {
	t.Helper()
	c, err := overpass.New(providers.Settings{Client: &http.Client{Transport: mt}, Options: opts,
		Now: func() time.Time { return time.Date(2025, 2, 11, 9, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serveFile answers every interpreter request with the testdata file.
func serveFile(t *testing.T, mt *httpmock.MockTransport, status int, name string, h http.Header) {
	t.Helper()
	r := httpmock.NewBytesResponder(status, testdata(t, name))
	if h != nil {
		r = r.HeaderSet(h)
	}
	mt.RegisterResponder(http.MethodPost, overpass.DefaultBaseURL, r)
}

func TestAmenitiesDecodesNodesWaysAndRelations(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serveFile(t, mt, http.StatusOK, "around_portland.json", nil)
	got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 1000)
	if err != nil {
		t.Fatalf("Amenities: %v", err)
	}
	a := func(name, typ string, miles, lat, lng float64) providers.Amenity {
		return providers.Amenity{Name: name, Type: typ, DistanceMiles: miles, Latitude: lat, Longitude: lng}
	}
	want := &providers.Amenities{
		RadiusMeters: 1000,
		Categories: map[string][]providers.Amenity{
			"schools":   {a("Alder Elementary", "school", 0.46, 45.52, -122.685)},
			"hospitals": {a("Riverside Medical Center", "hospital", 0.6, 45.509, -122.687)},
			"grocery": {
				a("Corner Stop", "convenience", 0.1, 45.5158, -122.6802),
				a("Cedar Market", "supermarket", 0.19, 45.5171, -122.6812), // node kept, building way dropped
			},
			"parks": {a("Harbor Commons", "park", 0.26, 45.513, -122.674)}, // playground with "center": {} skipped
			"transit": {
				a("SW 6th & Yamhill", "bus_stop", 0.04, 45.5155, -122.6778), // its second platform dropped
				a("Pioneer Square South", "tram_stop", 0.24, 45.5187, -122.679),
			},
			"restaurants": {
				a("Rosewood Coffee", "cafe", 0.06, 45.516, -122.679), // listed twice upstream
				a("Burger Barn", "fast_food", 0.11, 45.514, -122.68),
				a("Restaurant", "restaurant", 0.15, 45.5165, -122.676),
			},
			"banks": {a("Summit Bank", "bank", 0.06, 45.5147, -122.6795)}, // the ATM is not a bank
		},
		TotalCount:  11,
		Source:      "overpass",
		Attribution: amenity.Attribution,
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("user would see\n%s", gj)
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("upstream calls = %d, want 1", n)
	}
}

// TestAmenitiesListTheNearestTwentyOfACategoryByDefault: around a point
// with 25 bus stops and a railway station beyond them, the transit list is
// the 20 nearest bus stops and then the station; max_results 0 lists all.
func TestAmenitiesListTheNearestTwentyOfACategoryByDefault(t *testing.T) {
	var elements []providertest.OSMElement
	for i := range 25 {
		elements = append(elements, providertest.OSMElement{Type: "node", ID: int64(100 + i),
			Lat: pioneer.Lat + float64(i+1)*0.0005, Lng: pioneer.Lng, Tags: map[string]string{"highway": "bus_stop", "name": fmt.Sprintf("Stop %02d", i+1)}})
	}
	elements = append(elements, providertest.OSMElement{Type: "node", ID: 99, Lat: pioneer.Lat - 0.015, Lng: pioneer.Lng,
		Tags: map[string]string{"railway": "station", "name": "Union Station"}})
	for _, tc := range []struct {
		opts  map[string]string
		count int
	}{{nil, 21}, {map[string]string{"max_results": "0"}, 26}} {
		mt := httpmock.NewMockTransport()
		providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, elements...)
		got, err := newClient(t, mt, tc.opts).Amenities(context.Background(), pioneer, overpass.DefaultRadius)
		if err != nil {
			t.Fatal(err)
		}
		transit := got.Categories["transit"]
		if len(transit) != tc.count || got.TotalCount != tc.count {
			t.Fatalf("options %v: transit lists %d places (total_count %d), want %d", tc.opts, len(transit), got.TotalCount, tc.count)
		}
		if tc.opts == nil && (transit[19].Name != "Stop 20" || transit[20].Name != "Union Station") {
			t.Errorf("by default transit ends %q, %q; want the 20th bus stop, then the station beyond the others", transit[19].Name, transit[20].Name)
		}
	}
}

func TestAmenitiesEmptyResultHasEveryCategoryAsEmptyArray(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serveFile(t, mt, http.StatusOK, "empty.json", nil)
	got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, overpass.DefaultRadius)
	if err != nil {
		t.Fatalf("Amenities: %v", err)
	}
	b, _ := json.Marshal(got)
	want := `{"radius_meters":2000,"categories":{"banks":[],"grocery":[],"hospitals":[],"parks":[],"restaurants":[],"schools":[],"transit":[]},"total_count":0,"source":"overpass","attribution":"` + amenity.Attribution + `"}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
}

func TestAmenitiesInformationalRemarkIsSuccess(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serveFile(t, mt, http.StatusOK, "remark_informational.json", nil)
	got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 1000)
	if err != nil {
		t.Fatalf("a runtime remark failed the call: %v", err)
	}
	if got.TotalCount != 1 || got.Categories["grocery"][0].Name != "Cedar Market" {
		t.Errorf("got %+v, want Cedar Market only", got)
	}
}

func TestAmenitiesFailures(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		file       string
		body       string
		header     http.Header
		kind       providers.Kind
		code       string
		retryAfter time.Duration
	}{
		{name: "runtime error remark with partial elements", status: 200, file: "remark_out_of_memory_partial.json",
			kind: providers.KindUpstream, code: "upstream_incomplete"},
		{name: "429 page with Retry-After seconds", status: 429, file: "rate_limited.html",
			header: http.Header{"Retry-After": {"30"}}, kind: providers.KindUpstream, code: "upstream_rate_limited", retryAfter: 30 * time.Second},
		{name: "429 page with Retry-After date", status: 429, file: "rate_limited.html",
			header: http.Header{"Retry-After": {"Tue, 11 Feb 2025 09:02:00 GMT"}}, kind: providers.KindUpstream, code: "upstream_rate_limited", retryAfter: 2 * time.Minute},
		{name: "429 page without Retry-After", status: 429, file: "rate_limited.html",
			kind: providers.KindUpstream, code: "upstream_rate_limited"},
		{name: "rate-limit page sent with 200 by a mirror", status: 200, file: "rate_limited.html",
			kind: providers.KindUpstream, code: "upstream_rate_limited"},
		{name: "504 too busy page", status: 504, file: "too_busy.html", header: http.Header{"Retry-After": {"15"}},
			kind: providers.KindUpstream, code: "upstream_error", retryAfter: 15 * time.Second},
		{name: "too-busy page sent with 200 by a mirror", status: 200, file: "too_busy.html",
			kind: providers.KindUpstream, code: "upstream_error"},
		{name: "400 parse error page", status: 400, file: "parse_error.html",
			kind: providers.KindUpstream, code: "upstream_error"},
		{name: "404 from a wrong base URL", status: 404, body: "<html><body>Not Found</body></html>",
			kind: providers.KindUnavailable, code: "upstream_misconfigured"},
		{name: "truncated JSON", status: 200, body: `{"version": 0.6, "elements": [ {"type": "node"`,
			kind: providers.KindUpstream, code: "upstream_error"},
		{name: "JSON without elements", status: 200, body: `{"version": 0.6, "generator": "Overpass API"}`,
			kind: providers.KindUpstream, code: "upstream_error"},
		{name: "empty body", status: 200, body: "",
			kind: providers.KindUpstream, code: "upstream_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			body := []byte(tt.body)
			if tt.file != "" {
				body = testdata(t, tt.file)
			}
			r := httpmock.NewBytesResponder(tt.status, body)
			if tt.header != nil {
				r = r.HeaderSet(tt.header)
			}
			mt.RegisterResponder(http.MethodPost, overpass.DefaultBaseURL, r)
			got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 1000)
			if err == nil {
				t.Fatalf("user got a success (%d items) from a failed upstream answer", got.TotalCount)
			}
			e := providers.As(err)
			if e.Kind != tt.kind || e.Code != tt.code || e.RetryAfter != tt.retryAfter {
				t.Errorf("error = kind %d code %q retry %v, want kind %d code %q retry %v (%v)",
					e.Kind, e.Code, e.RetryAfter, tt.kind, tt.code, tt.retryAfter, err)
			}
		})
	}
}

func TestAmenitiesParseErrorCauseKeepsUpstreamMessage(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serveFile(t, mt, http.StatusBadRequest, "parse_error.html", nil)
	_, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 1000)
	if err == nil || !strings.Contains(err.Error(), "line 3: parse error: ']' expected - ';' found.") {
		t.Errorf("error %v does not carry the upstream's parse error for the logs", err)
	}
	if e := providers.As(err); strings.Contains(e.Message, "parse error") {
		t.Errorf("message shown to clients leaks the query error: %q", e.Message)
	}
}

func TestAmenitiesSendsOneQueryWithAroundAndCenters(t *testing.T) {
	mt := httpmock.NewMockTransport()
	var form, ua, ctype string
	mt.RegisterResponder(http.MethodPost, overpass.DefaultBaseURL, func(req *http.Request) (*http.Response, error) {
		if err := req.ParseForm(); err != nil {
			return nil, err
		}
		form, ua, ctype = req.PostForm.Get("data"), req.Header.Get("User-Agent"), req.Header.Get("Content-Type")
		return httpmock.NewBytesResponse(200, testdata(t, "empty.json")), nil
	})
	if _, err := newClient(t, mt, map[string]string{"timeout_seconds": "40"}).
		Amenities(context.Background(), pioneer, 1500); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[out:json][timeout:40];\n(\n",
		`nwr(around:1500,45.5152,-122.6784)["amenity"~"^(school|kindergarten|college|university)$"];`,
		`nwr(around:1500,45.5152,-122.6784)["highway"="bus_stop"];`,
		`nwr(around:1500,45.5152,-122.6784)["shop"~"^(supermarket|grocery|greengrocer|convenience)$"];`,
		`nwr(around:1500,45.5152,-122.6784)["amenity"="bank"];`,
		");\nout center tags;\n",
	} {
		if !strings.Contains(form, want) {
			t.Errorf("query lacks %q:\n%s", want, form)
		}
	}
	if got, want := strings.Count(form, "nwr(around:"), len(amenity.Rules); got != want {
		t.Errorf("query has %d statements, want one per rule (%d)", got, want)
	}
	if ua != overpass.DefaultUserAgent {
		t.Errorf("User-Agent = %q, want %q", ua, overpass.DefaultUserAgent)
	}
	if ctype != "application/x-www-form-urlencoded" {
		t.Errorf("Content-Type = %q", ctype)
	}
	if n := mt.GetCallCountInfo()[postKey]; n != 1 {
		t.Errorf("POST calls = %d, want 1", n)
	}
}

func TestAmenitiesRadiusBounds(t *testing.T) {
	for _, tt := range []struct {
		radius int
		ok     bool
	}{{0, false}, {499, false}, {500, true}, {2000, true}, {5000, true}, {5001, false}, {-1, false}} {
		mt := httpmock.NewMockTransport()
		providertest.RegisterOverpass(mt, overpass.DefaultBaseURL)
		_, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, tt.radius)
		if tt.ok {
			if err != nil {
				t.Errorf("radius %d: %v", tt.radius, err)
			}
			continue
		}
		e := providers.As(err)
		if err == nil || e.Kind != providers.KindInvalid || len(e.Params) != 1 || e.Params[0].Parameter != "radius" {
			t.Errorf("radius %d: err = %v, want KindInvalid naming radius", tt.radius, err)
		}
		if n := mt.GetTotalCallCount(); n != 0 {
			t.Errorf("radius %d: %d upstream calls for an invalid radius", tt.radius, n)
		}
	}
	if got := [3]int{overpass.MinRadius, overpass.MaxRadius, overpass.DefaultRadius}; got != [3]int{500, 5000, 2000} {
		t.Errorf("radius constants = %v", got)
	}
}

func TestAmenitiesRejectsBadPoint(t *testing.T) {
	mt := httpmock.NewMockTransport()
	_, err := newClient(t, mt, nil).Amenities(context.Background(), providers.Point{Lat: 91, Lng: 0}, 1000)
	if providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("err = %v, want KindInvalid", err)
	}
}

func TestAmenitiesSortsByDistanceThenName(t *testing.T) {
	mt := httpmock.NewMockTransport()
	// Three restaurants 0.01 degree of latitude north (0.69 mi), one nearer.
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL,
		providertest.OSMElement{ID: 1, Lat: 45.5252, Lng: -122.6784, Tags: map[string]string{"amenity": "restaurant", "name": "Zinnia"}},
		providertest.OSMElement{ID: 2, Lat: 45.5252, Lng: -122.6785, Tags: map[string]string{"amenity": "restaurant", "name": "Aster"}},
		providertest.OSMElement{Type: "way", ID: 3, Lat: 45.5202, Lng: -122.6784, Tags: map[string]string{"amenity": "pub", "name": "Mallow"}},
		providertest.OSMElement{ID: 4, Lat: 45.5252, Lng: -122.6783, Tags: map[string]string{"amenity": "cafe", "name": "Basil"}},
	)
	got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 2000)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var miles []float64
	for _, a := range got.Categories["restaurants"] {
		names = append(names, a.Name)
		miles = append(miles, a.DistanceMiles)
	}
	if want := []string{"Mallow", "Aster", "Basil", "Zinnia"}; !reflect.DeepEqual(names, want) {
		t.Errorf("order = %v, want %v", names, want)
	}
	if want := []float64{0.35, 0.69, 0.69, 0.69}; !reflect.DeepEqual(miles, want) {
		t.Errorf("distances = %v, want %v", miles, want)
	}
}

func TestAmenitiesDistanceRounding(t *testing.T) {
	// Haversine on the mean Earth radius: 0.001 degree of latitude is
	// 111.195 m, 0.0691 mi.
	tests := []struct {
		dLat, dLng float64
		miles      float64
	}{
		{0, 0, 0},
		{0.001, 0, 0.07},
		{0.0036, 0, 0.25},
		{0.0145, 0, 1.0},
		{0, 0.01, 0.48}, // a degree of longitude is shorter at 45.5 N
		{-0.0181, 0, 1.25},
	}
	for _, tt := range tests {
		mt := httpmock.NewMockTransport()
		providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, providertest.OSMElement{
			ID: 7, Lat: pioneer.Lat + tt.dLat, Lng: pioneer.Lng + tt.dLng, Tags: map[string]string{"amenity": "bank", "name": "B"}})
		got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 5000)
		if err != nil {
			t.Fatal(err)
		}
		if b := got.Categories["banks"]; len(b) != 1 || b[0].DistanceMiles != tt.miles {
			t.Errorf("offset (%v,%v): banks = %+v, want distance %v mi", tt.dLat, tt.dLng, b, tt.miles)
		}
	}
}

func TestAmenitiesFakeFiltersByRadiusAndTags(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL,
		providertest.OSMElement{ID: 1, Lat: 45.5162, Lng: -122.6784, Tags: map[string]string{"amenity": "school", "name": "Near School"}},
		providertest.OSMElement{ID: 2, Lat: 45.5352, Lng: -122.6784, Tags: map[string]string{"amenity": "school", "name": "Far School"}}, // 2.2 km
		providertest.OSMElement{ID: 3, Lat: 45.5153, Lng: -122.6784, Tags: map[string]string{"amenity": "bench"}},
		providertest.OSMElement{Type: "relation", ID: 4, Lat: 45.5172, Lng: -122.6784, Tags: map[string]string{"leisure": "park", "name": "Loop Park"}},
		providertest.OSMElement{Type: "way", ID: 5, Lat: 45.5142, Lng: -122.6784, Tags: map[string]string{"railway": "station", "public_transport": "station", "name": "Union"}},
	)
	got, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount != 3 {
		t.Errorf("total = %d, want 3 (school, park, station)", got.TotalCount)
	}
	if s := got.Categories["schools"]; len(s) != 1 || s[0].Name != "Near School" {
		t.Errorf("schools = %+v, want only Near School", s)
	}
	if p := got.Categories["parks"]; len(p) != 1 || p[0].Latitude != 45.5172 {
		t.Errorf("parks = %+v, want the relation at its center", p)
	}
	if tr := got.Categories["transit"]; len(tr) != 1 || tr[0].Type != "station" {
		t.Errorf("transit = %+v, want one station", tr)
	}
}

func TestAmenitiesMaxResultsKeepsNearestPerCategory(t *testing.T) {
	mt := httpmock.NewMockTransport()
	var els []providertest.OSMElement
	for i := range 5 {
		els = append(els, providertest.OSMElement{ID: int64(10 + i), Lat: pioneer.Lat + 0.001*float64(5-i), Lng: pioneer.Lng,
			Tags: map[string]string{"highway": "bus_stop"}})
	}
	els = append(els, providertest.OSMElement{ID: 99, Lat: pioneer.Lat, Lng: pioneer.Lng + 0.001, Tags: map[string]string{"amenity": "bank"}})
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, els...)
	got, err := newClient(t, mt, map[string]string{"max_results": "2"}).Amenities(context.Background(), pioneer, 2000)
	if err != nil {
		t.Fatal(err)
	}
	tr := got.Categories["transit"]
	if len(tr) != 2 || tr[0].DistanceMiles != 0.07 || tr[1].DistanceMiles != 0.14 {
		t.Errorf("transit = %+v, want the two nearest stops", tr)
	}
	if tr[0].Name != "Bus stop" {
		t.Errorf("unnamed stop shown as %q, want %q", tr[0].Name, "Bus stop")
	}
	if got.TotalCount != 3 {
		t.Errorf("total = %d, want 3 (2 stops + 1 bank)", got.TotalCount)
	}
}

func TestAmenitiesFakeKnobs(t *testing.T) {
	near := providertest.OSMElement{ID: 1, Lat: 45.5155, Lng: -122.6784, Tags: map[string]string{"amenity": "bank", "name": "B"}}
	tests := []struct {
		name     string
		register func(mt *httpmock.MockTransport)
		code     string
		retry    time.Duration
	}{
		{"timeout remark with partial elements", func(mt *httpmock.MockTransport) {
			providertest.RegisterOverpassRemark(mt, overpass.DefaultBaseURL, providertest.OverpassTimeoutRemark, near)
		}, "upstream_incomplete", 0},
		{"memory remark", func(mt *httpmock.MockTransport) {
			providertest.RegisterOverpassRemark(mt, overpass.DefaultBaseURL, providertest.OverpassMemoryRemark)
		}, "upstream_incomplete", 0},
		{"rate limited", func(mt *httpmock.MockTransport) {
			providertest.RegisterOverpassRateLimited(mt, overpass.DefaultBaseURL, 20*time.Second)
		}, "upstream_rate_limited", 20 * time.Second},
		{"too busy", func(mt *httpmock.MockTransport) {
			providertest.RegisterOverpassTooBusy(mt, overpass.DefaultBaseURL)
		}, "upstream_error", 0},
		{"parse error", func(mt *httpmock.MockTransport) {
			providertest.RegisterOverpassHTMLError(mt, overpass.DefaultBaseURL, 400, "line 2: parse error: ';' expected - 'out' found.", 0)
		}, "upstream_error", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			tt.register(mt)
			_, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 1000)
			e := providers.As(err)
			if err == nil || e.Kind != providers.KindUpstream || e.Code != tt.code || e.RetryAfter != tt.retry {
				t.Errorf("err = %v (retry %v), want KindUpstream %s retry %v", err, e.RetryAfter, tt.code, tt.retry)
			}
		})
	}
}

func TestAmenitiesContextErrors(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL)
	c := newClient(t, mt, nil)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Amenities(ctx, pioneer, 1000); providers.KindOf(err) != providers.KindCanceled {
		t.Errorf("canceled: err = %v, want KindCanceled", err)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := c.Amenities(ctx, pioneer, 1000); providers.KindOf(err) != providers.KindTimeout || providers.CodeOf(err) != "upstream_timeout" {
		t.Errorf("deadline: err = %v, want KindTimeout upstream_timeout", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d upstream calls for requests already given up", n)
	}
}

func TestAmenitiesDeadlineWhileWaiting(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPost, overpass.DefaultBaseURL,
		httpmock.NewBytesResponder(200, testdata(t, "empty.json")).Delay(5*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := newClient(t, mt, nil).Amenities(ctx, pioneer, 1000)
	if providers.KindOf(err) != providers.KindTimeout || providers.CodeOf(err) != "upstream_timeout" {
		t.Errorf("err = %v, want KindTimeout upstream_timeout", err)
	}
}

func TestAmenitiesUnreachable(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPost, overpass.DefaultBaseURL, httpmock.NewErrorResponder(errors.New("connection refused")))
	_, err := newClient(t, mt, nil).Amenities(context.Background(), pioneer, 1000)
	if providers.KindOf(err) != providers.KindUpstream {
		t.Errorf("err = %v, want KindUpstream", err)
	}
}

func TestNewValidatesSettings(t *testing.T) {
	tests := []struct {
		name string
		s    providers.Settings
	}{
		{"unknown option", providers.Settings{Options: map[string]string{"radius": "9"}}},
		{"timeout not a number", providers.Settings{Options: map[string]string{"timeout_seconds": "soon"}}},
		{"timeout too long", providers.Settings{Options: map[string]string{"timeout_seconds": "181"}}},
		{"negative max_results", providers.Settings{Options: map[string]string{"max_results": "-1"}}},
		{"relative base URL", providers.Settings{BaseURL: "/api/interpreter"}},
	}
	for _, tt := range tests {
		if _, err := overpass.New(tt.s); providers.KindOf(err) != providers.KindInvalid {
			t.Errorf("%s: err = %v, want KindInvalid", tt.name, err)
		}
	}
	c, err := overpass.New(providers.Settings{})
	if err != nil || c.TimeoutSeconds() != overpass.DefaultTimeoutSeconds {
		t.Errorf("defaults: %v, timeout %d", err, c.TimeoutSeconds())
	}
}

func TestModuleIsRegistered(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterOverpass(mt, "https://overpass.example.org/api/interpreter",
		providertest.OSMElement{ID: 1, Lat: 45.5155, Lng: -122.6784, Tags: map[string]string{"amenity": "bank", "name": "B"}})
	v, err := providers.Default.Build(providers.RoleAmenities, "overpass", providers.Settings{
		BaseURL: "https://overpass.example.org/api/interpreter", Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.(providers.AmenitiesProvider)
	if !ok {
		t.Fatalf("module built a %T, not an AmenitiesProvider", v)
	}
	got, err := p.Amenities(context.Background(), pioneer, 1000)
	if err != nil || got.TotalCount != 1 {
		t.Errorf("got %+v, %v; want one bank from the configured base URL", got, err)
	}
	if m, _ := providers.Default.Lookup("overpass"); m.DefaultBaseURL != "https://overpass-api.de/api/interpreter" {
		t.Errorf("DefaultBaseURL = %q", m.DefaultBaseURL)
	}
}
