package walkscore_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/walkscore"
)

const (
	testKey  = "ws-test-key-8d1f"
	scoreURL = walkscore.DefaultBaseURL + "/score"
)

var portland = providers.Point{Lat: 45.5186, Lng: -122.6787}

func intp(v int) *int { return &v }

func newClient(t *testing.T, mt *httpmock.MockTransport) *walkscore.Client {
	t.Helper()
	c, err := walkscore.New(providers.Settings{
		Client:  &http.Client{Transport: mt},
		Options: map[string]string{"api_key": testKey},
		Now:     func() time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonResponder(status int, body string, header ...string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		return resp, nil
	}
}

func TestNewValidatesOptions(t *testing.T) {
	tests := []struct {
		name    string
		s       providers.Settings
		mention string
	}{
		{"missing api_key", providers.Settings{}, "api_key"},
		{"blank api_key", providers.Settings{Options: map[string]string{"api_key": "  "}}, "api_key"},
		{"unknown option", providers.Settings{Options: map[string]string{"api_key": "k", "apikey": "k"}}, "apikey"},
		{"relative base URL", providers.Settings{BaseURL: "api.walkscore.com", Options: map[string]string{"api_key": "k"}}, "base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := walkscore.New(tt.s)
			if err == nil {
				t.Fatal("New succeeded; a misconfigured module would start and fail on every request")
			}
			if providers.KindOf(err) != providers.KindInvalid || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New error = %v (kind %v); want KindInvalid naming %q", err, providers.KindOf(err), tt.mention)
			}
		})
	}
}

func TestRegisteredModule(t *testing.T) {
	m, ok := providers.Default.Lookup("walkscore-api")
	if !ok {
		t.Fatal("module walkscore-api is not registered")
	}
	if m.DefaultBaseURL != "https://api.walkscore.com" {
		t.Errorf("DefaultBaseURL = %q", m.DefaultBaseURL)
	}
	v, err := providers.Default.Build(providers.RoleWalkScore, "walkscore-api",
		providers.Settings{Options: map[string]string{"api_key": "k"}})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if _, ok := v.(providers.WalkScoreProvider); !ok {
		t.Errorf("Build returned %T, not a WalkScoreProvider", v)
	}
	if _, err := providers.Default.Build(providers.RoleWalkScore, "walkscore-api", providers.Settings{}); err == nil ||
		!strings.Contains(err.Error(), "api_key") {
		t.Errorf("Build without api_key: err = %v; want a message naming api_key", err)
	}
}

func TestWalkScoreSendsDocumentedRequest(t *testing.T) {
	for _, tt := range []struct {
		name, address, wantAddress string
	}{
		{"with address", "700 SW Broadway,  Portland, OR 97205", "700 SW Broadway, Portland, OR 97205"},
		{"without address", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			var got *http.Request
			mt.RegisterResponder(http.MethodGet, scoreURL, func(req *http.Request) (*http.Response, error) {
				got = req
				return jsonResponder(200, readTestdata(t, "score_portland_transit_bike.json"))(req)
			})
			if _, err := newClient(t, mt).WalkScore(context.Background(), portland, tt.address); err != nil {
				t.Fatalf("WalkScore: %v", err)
			}
			q := got.URL.Query()
			want := map[string]string{
				"format": "json", "lat": "45.5186", "lon": "-122.6787",
				"transit": "1", "bike": "1", "wsapikey": testKey,
			}
			for k, v := range want {
				if q.Get(k) != v {
					t.Errorf("query %s = %q; want %q (full query %s)", k, q.Get(k), v, got.URL.RawQuery)
				}
			}
			if _, sent := q["address"]; sent != (tt.wantAddress != "") || q.Get("address") != tt.wantAddress {
				t.Errorf("address = %q (sent %v); want %q", q.Get("address"), sent, tt.wantAddress)
			}
			if a := got.Header.Get("Accept"); a != "application/json" {
				t.Errorf("Accept = %q", a)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("upstream calls = %d; want 1", n)
			}
		})
	}
}

// wantErr is the error a user would see: kind, code and Retry-After.
type wantErr struct {
	kind       providers.Kind
	code       string
	retryAfter time.Duration
}

func checkErr(t *testing.T, err error, want wantErr) {
	t.Helper()
	e := providers.As(err)
	if e == nil {
		t.Fatalf("got a score; want error %s (kind %v)", want.code, want.kind)
	}
	if e.Kind != want.kind || e.Code != want.code || e.RetryAfter != want.retryAfter {
		t.Errorf("error = %v (kind %v, code %s, retry after %v); want kind %v, code %s, retry after %v",
			err, e.Kind, e.Code, e.RetryAfter, want.kind, want.code, want.retryAfter)
	}
}

func checkScore(t *testing.T, got *providers.WalkScore, err error, want *providers.WalkScore) {
	t.Helper()
	if err != nil {
		t.Fatalf("WalkScore: %v", err)
	}
	if got.WalkScore != want.WalkScore || got.Description != want.Description ||
		got.Method != "walkscore-api" || got.Source != "walkscore-api" || got.Breakdown != nil {
		t.Errorf("score = %+v; want %+v from walkscore-api without breakdown", got, want)
	}
	if !sameInt(got.TransitScore, want.TransitScore) || !sameInt(got.BikeScore, want.BikeScore) {
		t.Errorf("transit, bike = %s, %s; want %s, %s",
			show(got.TransitScore), show(got.BikeScore), show(want.TransitScore), show(want.BikeScore))
	}
}

func sameInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(p *int) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(*p)
}

func TestWalkScoreTestdata(t *testing.T) {
	tests := []struct {
		file   string
		status int
		header []string
		want   *providers.WalkScore
		err    wantErr
	}{
		{file: "score_portland_transit_bike.json", status: 200,
			want: &providers.WalkScore{WalkScore: 88, Description: "Very Walkable", TransitScore: intp(81), BikeScore: intp(93)}},
		{file: "score_rural_transit_null.json", status: 200,
			want: &providers.WalkScore{WalkScore: 12, Description: "Car-Dependent", BikeScore: intp(27)}},
		{file: "score_austin_compact.json", status: 200,
			want: &providers.WalkScore{WalkScore: 73, Description: "Very Walkable"}},
		{file: "status_2.json", status: 200, header: []string{"Retry-After", "30"},
			err: wantErr{providers.KindUpstream, "score_pending", 30 * time.Second}},
		{file: "status_2.json", status: 200,
			err: wantErr{providers.KindUpstream, "score_pending", 0}},
		{file: "status_30.json", status: 404,
			err: wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		{file: "status_30.json", status: 200,
			err: wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		{file: "status_31.json", status: 500, header: []string{"Retry-After", "Wed, 01 May 2024 12:02:00 GMT"},
			err: wantErr{providers.KindUpstream, "upstream_error", 2 * time.Minute}},
		{file: "status_40.json", status: 200,
			err: wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{file: "status_41.json", status: 200,
			err: wantErr{providers.KindUpstream, "upstream_rate_limited", 0}},
		{file: "status_41.json", status: 429, header: []string{"Retry-After", "3600"},
			err: wantErr{providers.KindUpstream, "upstream_rate_limited", time.Hour}},
		{file: "status_42.json", status: 403,
			err: wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+strconv.Itoa(tt.status), func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, scoreURL, jsonResponder(tt.status, readTestdata(t, tt.file), tt.header...))
			got, err := newClient(t, mt).WalkScore(context.Background(), portland, "700 SW Broadway, Portland, OR")
			if tt.want != nil {
				checkScore(t, got, err, tt.want)
			} else {
				checkErr(t, err, tt.err)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("upstream calls = %d; want exactly 1 (the module must not retry)", n)
			}
		})
	}
}

func TestWalkScoreWithoutBodyStatusFallsBackOnHTTPStatus(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		header []string
		err    wantErr
	}{
		{"403 html", 403, "<html>Forbidden</html>", nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{"404 html", 404, "<html>Not Found</html>", nil, wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		{"429 with Retry-After", 429, "Too Many Requests", []string{"Retry-After", "120"},
			wantErr{providers.KindUpstream, "upstream_rate_limited", 2 * time.Minute}},
		{"502 with Retry-After", 502, "Bad Gateway", []string{"Retry-After", "7"},
			wantErr{providers.KindUpstream, "upstream_error", 7 * time.Second}},
		{"503 json without status", 503, `{"error":"down"}`, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{"418", 418, "teapot", nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{"200 xml", 200, `<?xml version="1.0"?><result/>`, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{"200 json without status", 200, `{"walkscore": 50}`, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{"200 empty", 200, "", nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{"unknown status", 200, `{"status": 99}`, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, scoreURL, jsonResponder(tt.status, tt.body, tt.header...))
			_, err := newClient(t, mt).WalkScore(context.Background(), portland, "")
			checkErr(t, err, tt.err)
		})
	}
}

func TestWalkScoreDecodesLeniently(t *testing.T) {
	tests := []struct {
		name string
		body string
		want *providers.WalkScore
	}{
		{"float and string numbers", `{"status": "1", "walkscore": 57.0, "description": "Somewhat Walkable", "transit": {"score": "44", "description": "Some Transit", "summary": "3 nearby routes"}, "bike": {"score": 61.0, "description": "Bikeable"}}`,
			&providers.WalkScore{WalkScore: 57, Description: "Somewhat Walkable", TransitScore: intp(44), BikeScore: intp(61)}},
		{"description missing is derived", `{"status": 1, "walkscore": 91}`,
			&providers.WalkScore{WalkScore: 91, Description: "Walker's Paradise"}},
		{"description null is derived", `{"status": 1, "walkscore": 49, "description": null}`,
			&providers.WalkScore{WalkScore: 49, Description: "Car-Dependent"}},
		{"transit and bike null", `{"status": 1, "walkscore": 70, "description": "Very Walkable", "transit": null, "bike": null}`,
			&providers.WalkScore{WalkScore: 70, Description: "Very Walkable"}},
		{"bike score null", `{"status": 1, "walkscore": 50, "description": "Somewhat Walkable", "bike": {"score": null, "description": null}}`,
			&providers.WalkScore{WalkScore: 50, Description: "Somewhat Walkable"}},
		{"unknown fields ignored", `{"status": 1, "walkscore": 0, "description": "Car-Dependent", "snapped_lat": "x", "extra": [1,2]}`,
			&providers.WalkScore{WalkScore: 0, Description: "Car-Dependent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, scoreURL, jsonResponder(200, tt.body))
			got, err := newClient(t, mt).WalkScore(context.Background(), portland, "")
			checkScore(t, got, err, tt.want)
		})
	}
}

func TestWalkScoreRejectsUnusableScores(t *testing.T) {
	for name, body := range map[string]string{
		"walkscore missing":      `{"status": 1, "description": "Very Walkable"}`,
		"walkscore null":         `{"status": 1, "walkscore": null}`,
		"walkscore out of range": `{"status": 1, "walkscore": 130}`,
		"walkscore not a number": `{"status": 1, "walkscore": "high"}`,
		"truncated":              `{"status": 1, "walkscore": 8`,
	} {
		t.Run(name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, scoreURL, jsonResponder(200, body))
			_, err := newClient(t, mt).WalkScore(context.Background(), portland, "")
			checkErr(t, err, wantErr{providers.KindUpstream, "upstream_error", 0})
		})
	}
}

func TestWalkScoreRejectsBadCoordinatesWithoutCalling(t *testing.T) {
	mt := httpmock.NewMockTransport()
	c := newClient(t, mt)
	for _, p := range []providers.Point{{Lat: 91, Lng: 0}, {Lat: 0, Lng: -181}} {
		_, err := c.WalkScore(context.Background(), p, "")
		checkErr(t, err, wantErr{providers.KindInvalid, "invalid_parameter", 0})
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("upstream calls = %d; want 0 for coordinates out of range", n)
	}
}

func TestWalkScoreNeverShowsKeyInErrors(t *testing.T) {
	for name, register := range map[string]func(*httpmock.MockTransport){
		"transport error": func(mt *httpmock.MockTransport) {
			mt.RegisterResponder(http.MethodGet, scoreURL, httpmock.NewErrorResponder(errors.New("connection reset by peer")))
		},
		"no responder": func(*httpmock.MockTransport) {},
	} {
		t.Run(name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			register(mt)
			_, err := newClient(t, mt).WalkScore(context.Background(), portland, "")
			checkErr(t, err, wantErr{providers.KindUpstream, "upstream_error", 0})
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "lat=") {
				t.Errorf("error text shows the request's query: %v", err)
			}
			if !strings.Contains(err.Error(), "/score?<redacted>") {
				t.Errorf("error text %q does not quote the redacted URL; the test would not catch a leak", err)
			}
		})
	}
}

func TestWalkScoreContext(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, scoreURL, func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	})
	c := newClient(t, mt)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.WalkScore(ctx, portland, "")
	checkErr(t, err, wantErr{providers.KindTimeout, "upstream_timeout", 0})
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("timeout error shows the API key: %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.WalkScore(ctx, portland, "")
	checkErr(t, err, wantErr{providers.KindCanceled, "canceled", 0})
}

func TestWalkScoreAgainstFake(t *testing.T) {
	place := providertest.WalkScorePlace{Point: portland, WalkScore: 88, TransitScore: intp(81), BikeScore: intp(93)}
	noTransit := providertest.WalkScorePlace{Point: providers.Point{Lat: 43.8891, Lng: -72.4934}, WalkScore: 12}
	tests := []struct {
		name  string
		fake  providertest.WalkScoreFake
		point providers.Point
		want  *providers.WalkScore
		err   wantErr
	}{
		{"known place", providertest.WalkScoreFake{Key: testKey, Places: []providertest.WalkScorePlace{place}}, portland,
			&providers.WalkScore{WalkScore: 88, Description: "Very Walkable", TransitScore: intp(81), BikeScore: intp(93)}, wantErr{}},
		{"null transit, no bike", providertest.WalkScoreFake{Places: []providertest.WalkScorePlace{noTransit}}, noTransit.Point,
			&providers.WalkScore{WalkScore: 12, Description: "Car-Dependent"}, wantErr{}},
		{"unknown place", providertest.WalkScoreFake{Places: []providertest.WalkScorePlace{place}}, providers.Point{Lat: 1, Lng: 1},
			nil, wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		{"wrong key", providertest.WalkScoreFake{Key: "another-key", Places: []providertest.WalkScorePlace{place}}, portland,
			nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{"pending", providertest.WalkScoreFake{Status: providertest.WalkScorePending, RetryAfter: "60"}, portland,
			nil, wantErr{providers.KindUpstream, "score_pending", time.Minute}},
		{"invalid coordinates", providertest.WalkScoreFake{Status: providertest.WalkScoreInvalidLatLon}, portland,
			nil, wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		{"internal error", providertest.WalkScoreFake{Status: providertest.WalkScoreInternal}, portland,
			nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{"invalid key status", providertest.WalkScoreFake{Status: providertest.WalkScoreInvalidKey}, portland,
			nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{"quota", providertest.WalkScoreFake{Status: providertest.WalkScoreQuota}, portland,
			nil, wantErr{providers.KindUpstream, "upstream_rate_limited", 0}},
		{"blocked IP", providertest.WalkScoreFake{Status: providertest.WalkScoreBlockedIP}, portland,
			nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			providertest.RegisterWalkScore(mt, walkscore.DefaultBaseURL, tt.fake)
			got, err := newClient(t, mt).WalkScore(context.Background(), tt.point, "700 SW Broadway, Portland, OR 97205")
			if tt.want != nil {
				checkScore(t, got, err, tt.want)
			} else {
				checkErr(t, err, tt.err)
			}
			if n := mt.GetCallCountInfo()["GET "+scoreURL]; n != 1 {
				t.Errorf("calls to %s = %d; want 1", scoreURL, n)
			}
		})
	}
}
