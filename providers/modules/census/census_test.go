package census_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

func TestModuleIsRegisteredForBothRoles(t *testing.T) {
	m, ok := providers.Default.Lookup("census")
	if !ok {
		t.Fatal("module census is not registered")
	}
	if m.DefaultBaseURL != "https://geocoding.geo.census.gov/geocoder" {
		t.Errorf("DefaultBaseURL = %q", m.DefaultBaseURL)
	}
	for _, role := range []providers.Role{providers.RoleGeocoder, providers.RoleReverseGeocoder} {
		v, err := providers.Default.Build(role, "census", providers.Settings{})
		if err != nil {
			t.Fatalf("Build(%s): %v", role, err)
		}
		if _, ok := v.(*census.Client); !ok {
			t.Errorf("Build(%s) returned %T, want *census.Client", role, v)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		s    providers.Settings
	}{
		{"unknown option", providers.Settings{Options: map[string]string{"benchmrk": "4"}}},
		{"layers is not an option", providers.Settings{Options: map[string]string{"layers": "all"}}},
		{"relative base URL", providers.Settings{BaseURL: "geocoding.geo.census.gov/geocoder"}},
		{"base URL without host", providers.Settings{BaseURL: "https://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := census.New(tt.s)
			if c != nil {
				t.Errorf("got a client, want none")
			}
			wantError(t, err, providers.KindInvalid, "invalid_config")
		})
	}
}

func TestGeocodeReturnsCanonicalLocation(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol, seattleLibrary)
	got, err := c.Geocode(context.Background(), providers.Address{
		Street: "200 East Colfax Avenue", City: "Denver", State: "co", Zip: "80202",
	})
	if err != nil {
		t.Fatalf("Geocode: %v", err)
	}
	want := providers.Location{Precision: providers.PrecisionCensus,
		MatchedAddress: "200 E COLFAX AVE, DENVER, CO, 80203",
		Street:         "200 E COLFAX AVE",
		City:           "DENVER",
		State:          "CO",
		Zip:            "80203",
		Point:          providers.Point{Lat: 39.73923, Lng: -104.98486},
		County:         "Denver County",
		FIPSCode:       "08031",
		CensusTract:    "003300",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Geocode =\n%+v\nwant\n%+v", got, want)
	}
	wantCalls(t, mt, 1)
}

func TestGeocodeSendsParameters(t *testing.T) {
	tests := []struct {
		name      string
		opts      map[string]string
		addr      providers.Address
		want      url.Values
		wantUnset []string
	}{
		{
			name: "defaults and full address",
			addr: providers.Address{Street: "1000 4th Ave", City: "Seattle", State: "WA", Zip: "98104"},
			want: url.Values{"street": {"1000 4th Ave"}, "city": {"Seattle"}, "state": {"WA"}, "zip": {"98104"},
				"benchmark": {"Public_AR_Current"}, "vintage": {"Current_Current"}, "format": {"json"}},
		},
		{
			name: "configured benchmark and vintage, no city or zip",
			opts: map[string]string{"benchmark": "Public_AR_Census2020", "vintage": "Census2020_Census2020"},
			addr: providers.Address{Street: "1000 4th Ave", State: "WA"},
			want: url.Values{"street": {"1000 4th Ave"}, "state": {"WA"},
				"benchmark": {"Public_AR_Census2020"}, "vintage": {"Census2020_Census2020"}, "format": {"json"}},
			wantUnset: []string{"city", "zip"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *http.Request
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, census.DefaultBaseURL+"/geographies/address",
				func(req *http.Request) (*http.Response, error) {
					got = req
					return httpmock.NewBytesResponse(http.StatusOK, testdata(t, "no_match.json")), nil
				})
			c := newClient(t, mt, tt.opts)
			_, _ = c.Geocode(context.Background(), tt.addr)
			if got == nil {
				t.Fatalf("no request reached geographies/address: %v", mt.GetCallCountInfo())
			}
			q := got.URL.Query()
			for k, v := range tt.want {
				if q.Get(k) != v[0] {
					t.Errorf("query %s = %q, want %q (query %s)", k, q.Get(k), v[0], got.URL.RawQuery)
				}
			}
			for _, k := range tt.wantUnset {
				if q.Has(k) {
					t.Errorf("query has %s=%q, want it left out", k, q.Get(k))
				}
			}
		})
	}
}

// TestGeocodeMatchAsksTheLocationsSearches: GeocodeMatch sends the
// address, in fields or in one line, to the locations searches with the
// benchmark and no vintage, and answers the match without geographies;
// the geographies searches are not asked.
func TestGeocodeMatchAsksTheLocationsSearches(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol)
	var asked []url.Values
	for _, route := range []string{"/locations/address", "/locations/onelineaddress"} {
		mt.RegisterResponder(http.MethodGet, census.DefaultBaseURL+route, func(req *http.Request) (*http.Response, error) {
			asked = append(asked, req.URL.Query())
			return httpmock.NewBytesResponse(http.StatusOK, []byte(`{"result":{"input":{},"addressMatches":[{"matchedAddress":"200 E COLFAX AVE, DENVER, CO, 80203",`+
				`"coordinates":{"x":-104.98486,"y":39.73923},"tigerLine":{"tigerLineId":"1","side":"L"},"addressComponents":{"city":"DENVER","state":"CO","zip":"80203"}}]}}`)), nil
		})
	}
	want := providers.Location{Precision: providers.PrecisionCensus, MatchedAddress: "200 E COLFAX AVE, DENVER, CO, 80203", Street: "200 E COLFAX AVE",
		City: "DENVER", State: "CO", Zip: "80203", Point: providers.Point{Lat: 39.73923, Lng: -104.98486}}
	for _, a := range []providers.Address{
		{Street: "200 East Colfax Avenue", City: "Denver", State: "CO"},
		{Line: "200 East Colfax Avenue, Denver, CO"},
	} {
		got, err := c.GeocodeMatch(context.Background(), a)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("GeocodeMatch(%+v) = %+v, %v; want %+v", a, got, err, want)
		}
	}
	if len(asked) != 2 || asked[0].Get("street") != "200 East Colfax Avenue" || asked[1].Get("address") != "200 East Colfax Avenue, Denver, CO" {
		t.Fatalf("asked %v, want the address once at each locations search", asked)
	}
	for _, q := range asked {
		if q.Get("benchmark") != "Public_AR_Current" || q.Get("format") != "json" || q.Has("vintage") {
			t.Errorf("query %v: want benchmark and format=json, and no vintage", q)
		}
	}
	info := mt.GetCallCountInfo()
	for route, n := range info {
		if strings.Contains(route, "/geographies/") && n != 0 {
			t.Errorf("%s called %d times, want 0", route, n)
		}
	}
}

// TestGeocodeMatchFromTheFake: the fake's locations searches match as its
// geographies searches do; no match is address_not_found.
func TestGeocodeMatchFromTheFake(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol, seattleLibrary)
	got, err := c.GeocodeMatch(context.Background(), providers.Address{Line: "1000 4th Avenue, Seattle, WA"})
	if err != nil || got.MatchedAddress != "1000 4TH AVE, SEATTLE, WA, 98104" || got.FIPSCode != "" || got.CensusTract != "" || got.County != "" {
		t.Errorf("GeocodeMatch = %+v, %v; want the library's match without geographies", got, err)
	}
	_, err = c.GeocodeMatch(context.Background(), providers.Address{Street: "1 Nowhere Rd", State: "CO"})
	wantError(t, err, providers.KindNotFound, "address_not_found")
	if n := mt.GetCallCountInfo()["GET "+census.DefaultBaseURL+"/locations/onelineaddress"]; n != 1 {
		t.Errorf("locations/onelineaddress called %d times, want 1 (%v)", n, mt.GetCallCountInfo())
	}
}

// TestGeocodeSendsTheStreetIntact: the service sends the client's own text,
// so every character a street or city may hold must reach the upstream as
// typed, percent-encoded: an apostrophe TIGER matches on, '&' and '#' that
// would otherwise end the parameter or the query, '+' that would become a
// blank, non-ASCII letters.
func TestGeocodeSendsTheStreetIntact(t *testing.T) {
	tests := []struct {
		addr providers.Address
		raw  string // the query exactly as the upstream receives it
	}{
		{providers.Address{Street: "42 O'Brien Ct", City: "Boston", State: "MA"},
			"benchmark=Public_AR_Current&city=Boston&format=json&state=MA&street=42+O%27Brien+Ct&vintage=Current_Current"},
		{providers.Address{Street: "5 Rock & Roll Ln #4", City: "Coeur d'Alene", State: "ID", Zip: "83814"},
			"benchmark=Public_AR_Current&city=Coeur+d%27Alene&format=json&state=ID&street=5+Rock+%26+Roll+Ln+%234&vintage=Current_Current&zip=83814"},
		{providers.Address{Street: "12 Calle Ñandú", City: "Cataño", State: "PR"},
			"benchmark=Public_AR_Current&city=Cata%C3%B1o&format=json&state=PR&street=12+Calle+%C3%91and%C3%BA&vintage=Current_Current"},
		{providers.Address{Street: "1/2 A+B=C? 100% \"Main\" St;", State: "IL"},
			"benchmark=Public_AR_Current&format=json&state=IL&street=1%2F2+A%2BB%3DC%3F+100%25+%22Main%22+St%3B&vintage=Current_Current"},
	}
	for _, tt := range tests {
		var raw string
		mt := httpmock.NewMockTransport()
		mt.RegisterResponder(http.MethodGet, census.DefaultBaseURL+"/geographies/address",
			func(req *http.Request) (*http.Response, error) {
				raw = req.URL.RawQuery
				return httpmock.NewBytesResponse(http.StatusOK, testdata(t, "no_match.json")), nil
			})
		_, _ = newClient(t, mt, nil).Geocode(context.Background(), tt.addr)
		if raw != tt.raw {
			t.Errorf("Geocode(%+v) sent the query\n%s\nwant\n%s", tt.addr, raw, tt.raw)
			continue
		}
		q, err := url.ParseQuery(raw)
		if err != nil || q.Get("street") != tt.addr.Street || q.Get("city") != tt.addr.City {
			t.Errorf("the upstream decodes street %q city %q (%v), want %q and %q", q.Get("street"), q.Get("city"), err, tt.addr.Street, tt.addr.City)
		}
	}
}

func TestGeocodeNoMatch(t *testing.T) {
	t.Run("fake", func(t *testing.T) {
		c, mt := fakeClient(t, coloradoCapitol)
		_, err := c.Geocode(context.Background(), providers.Address{Street: "201 E Colfax Ave", State: "CO"})
		wantError(t, err, providers.KindNotFound, "address_not_found")
		wantCalls(t, mt, 1)
	})
	t.Run("right street, other state", func(t *testing.T) {
		c, _ := fakeClient(t, coloradoCapitol)
		_, err := c.Geocode(context.Background(), providers.Address{Street: "200 E Colfax Ave", State: "WA"})
		wantError(t, err, providers.KindNotFound, "address_not_found")
	})
	t.Run("recorded body", func(t *testing.T) {
		c, _ := answering(t, jsonFile(t, "no_match.json"))
		_, err := c.Geocode(context.Background(), providers.Address{Street: "77 Nowhere Lane", State: "OR"})
		if !errors.Is(err, providers.ErrNoMatch) {
			t.Errorf("Geocode error = %v, want providers.ErrNoMatch", err)
		}
	})
}

func TestGeocodeRejectsEmptyStreetWithoutCallingUpstream(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol)
	_, err := c.Geocode(context.Background(), providers.Address{Street: "  ", City: "Denver", State: "CO"})
	wantError(t, err, providers.KindInvalid, "invalid_parameter")
	wantCalls(t, mt, 0)
}

func TestGeocodeReturnsEveryMatchFirstFirst(t *testing.T) {
	c, _ := answering(t, jsonFile(t, "geographies_address_two_matches.json"))
	got, err := c.Geocode(context.Background(), providers.Address{Street: "2200 Market Street NE", City: "Salem", State: "OR"})
	if err != nil {
		t.Fatalf("Geocode: %v", err)
	}
	want := providers.Location{Precision: providers.PrecisionCensus,
		MatchedAddress: "2200 Market St NE, SALEM, OR, 97301", // as the upstream wrote it
		Street:         "2200 MARKET ST NE",
		City:           "SALEM",
		State:          "OR",
		Zip:            "97301",
		Point:          providers.Point{Lat: 44.95240911000005, Lng: -123.01291735599998},
		County:         "Marion County",
		FIPSCode:       "41047",
		CensusTract:    "001100",
		Others: []providers.Location{{Precision: providers.PrecisionCensus,
			MatchedAddress: "2200 Market St NE, SALEM, OR, 97305", Street: "2200 MARKET ST NE", City: "SALEM",
			State: "OR", Zip: "97305", Point: providers.Point{Lat: 44.95302977400004, Lng: -123.01077412899997},
			County: "Marion County", FIPSCode: "41047", CensusTract: "001100",
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Geocode =\n%+v\nwant the first match with the second in Others\n%+v", got, want)
	}
}

func TestGeocodeTwoPlacesOnOneStreetFromFake(t *testing.T) {
	other := coloradoCapitol
	other.Zip, other.Tract, other.Lat = "80218", "003400", 39.7401
	c, _ := fakeClient(t, coloradoCapitol, other)
	got, err := c.Geocode(context.Background(), providers.Address{Street: "200 E COLFAX AVE", State: "CO"})
	if err != nil {
		t.Fatalf("Geocode: %v", err)
	}
	if got.Zip != "80203" || got.CensusTract != "003300" {
		t.Errorf("Geocode took zip %s tract %s, want the first match (80203, 003300)", got.Zip, got.CensusTract)
	}
}

func TestGeocodeSkipsLayerErrorObjects(t *testing.T) {
	c, _ := answering(t, jsonFile(t, "geographies_layers_with_errors.json"))
	got, err := c.Geocode(context.Background(), providers.Address{Street: "3500 E 17th Ave", City: "Denver", State: "CO"})
	if err != nil {
		t.Fatalf("Geocode: %v", err)
	}
	if got.County != "Denver County" || got.FIPSCode != "08031" || got.CensusTract != "003701" {
		t.Errorf("geographies = %q %q %q, want Denver County 08031 003701", got.County, got.FIPSCode, got.CensusTract)
	}
	if got.Street != "3500 E 17TH AVE" || got.Zip != "80206" {
		t.Errorf("address parts = %q %q", got.Street, got.Zip)
	}
}

func TestUpstreamFailures(t *testing.T) {
	now := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name           string
		status         int
		body           string
		header         http.Header
		wantCode       string
		wantRetryAfter time.Duration
		wantCause      string // part of the logged cause, never of the message
	}{
		{name: "errors body with 400", status: 400, body: string(testdata(t, "error_bad_params.json")),
			wantCode: "upstream_error", wantCause: "Invalid benchmark/vintage combination"},
		{name: "errors body with 200", status: 200, body: string(testdata(t, "error_bad_params.json")),
			wantCode: "upstream_error", wantCause: "Invalid benchmark/vintage combination"},
		{name: "HTML page with 200", status: 200, body: string(testdata(t, "maintenance.html")),
			wantCode: "upstream_error", wantCause: "scheduled maintenance"},
		{name: "garbage with 200", status: 200, body: "\x00\x01 not json", wantCode: "upstream_error"},
		{name: "JSON without result", status: 200, body: `{"result":null}`, wantCode: "upstream_error"},
		{name: "HTML 404", status: 404, body: "<html>Not Found</html>", wantCode: "upstream_error"},
		{name: "500 with Retry-After seconds", status: 500, body: "Internal Server Error",
			header: http.Header{"Retry-After": {"120"}}, wantCode: "upstream_error", wantRetryAfter: 2 * time.Minute},
		{name: "503 with Retry-After date", status: 503, body: string(testdata(t, "maintenance.html")),
			header:   http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}},
			wantCode: "upstream_error", wantRetryAfter: 90 * time.Second},
		{name: "502 without Retry-After", status: 502, body: "Bad Gateway", wantCode: "upstream_error"},
		{name: "429", status: 429, body: "Too Many Requests",
			header: http.Header{"Retry-After": {"30"}}, wantCode: "upstream_rate_limited", wantRetryAfter: 30 * time.Second},
	}
	calls := map[string]func(c *census.Client) error{
		"Geocode": func(c *census.Client) error {
			_, err := c.Geocode(context.Background(), providers.Address{Street: "200 E Colfax Ave", State: "CO"})
			return err
		},
		"Reverse": func(c *census.Client) error {
			_, err := c.Reverse(context.Background(), providers.Point{Lat: 39.7, Lng: -104.9})
			return err
		},
		"GeocodeBatch": func(c *census.Client) error {
			_, err := c.GeocodeBatch(context.Background(), []census.BatchRow{{ID: "1", Address: providers.Address{Street: "200 E Colfax Ave"}}})
			return err
		},
	}
	for _, tt := range tests {
		for method, call := range calls {
			t.Run(method+"/"+tt.name, func(t *testing.T) {
				mt := httpmock.NewMockTransport()
				r := httpmock.NewStringResponder(tt.status, tt.body)
				if tt.header != nil {
					r = r.HeaderSet(tt.header)
				}
				providertest.CensusRespondWith(mt, census.DefaultBaseURL, r)
				c, err := census.New(providers.Settings{
					Client: &http.Client{Transport: mt},
					Now:    func() time.Time { return now },
				})
				if err != nil {
					t.Fatal(err)
				}
				e := wantError(t, call(c), providers.KindUpstream, tt.wantCode)
				if e.RetryAfter != tt.wantRetryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tt.wantRetryAfter)
				}
				if tt.wantCause != "" {
					if e.Err == nil || !strings.Contains(e.Err.Error(), tt.wantCause) {
						t.Errorf("cause = %v, want it to contain %q", e.Err, tt.wantCause)
					}
					if strings.Contains(e.Message, tt.wantCause) {
						t.Errorf("message %q shows the upstream's text to clients", e.Message)
					}
				}
				wantCalls(t, mt, 1)
			})
		}
	}
}

func TestCensusFailWithAnswersEveryRoute(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, coloradoCapitol)
	providertest.CensusFailWith(mt, census.DefaultBaseURL, http.StatusBadRequest, string(testdata(t, "error_bad_params.json")))
	c := newClient(t, mt, nil)
	_, err := c.Geocode(context.Background(), providers.Address{Street: "200 E Colfax Ave", State: "CO"})
	wantError(t, err, providers.KindUpstream, "upstream_error")
	_, err = c.Reverse(context.Background(), providers.Point{Lat: coloradoCapitol.Lat, Lng: coloradoCapitol.Lng})
	wantError(t, err, providers.KindUpstream, "upstream_error")
	_, err = c.GeocodeBatch(context.Background(), []census.BatchRow{{ID: "1", Address: providers.Address{Street: "200 E Colfax Ave", State: "CO"}}})
	wantError(t, err, providers.KindUpstream, "upstream_error")
	wantCalls(t, mt, 3)
}

func TestContextAndTransportFailures(t *testing.T) {
	// blocking never answers; the request ends only through its context.
	blocking := func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		client   func(mt *httpmock.MockTransport) *http.Client
		r        httpmock.Responder
		wantKind providers.Kind
		wantCode string
	}{
		{
			name: "deadline while waiting",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 20*time.Millisecond)
			},
			r:        blocking,
			wantKind: providers.KindTimeout, wantCode: "upstream_timeout",
		},
		{
			name: "deadline already passed",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			},
			r:        httpmock.NewStringResponder(200, "{}"),
			wantKind: providers.KindTimeout, wantCode: "upstream_timeout",
		},
		{
			name: "caller went away",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			r:        blocking,
			wantKind: providers.KindCanceled, wantCode: "canceled",
		},
		{
			name: "http client timeout",
			ctx:  func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			client: func(mt *httpmock.MockTransport) *http.Client {
				return &http.Client{Transport: mt, Timeout: 20 * time.Millisecond}
			},
			r:        blocking,
			wantKind: providers.KindTimeout, wantCode: "upstream_timeout",
		},
		{
			name:     "connection failure",
			ctx:      func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			r:        httpmock.ConnectionFailure,
			wantKind: providers.KindUpstream, wantCode: "upstream_error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			providertest.CensusRespondWith(mt, census.DefaultBaseURL, tt.r)
			hc := &http.Client{Transport: mt}
			if tt.client != nil {
				hc = tt.client(mt)
			}
			c, err := census.New(providers.Settings{Client: hc})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err = c.Geocode(ctx, providers.Address{Street: "200 E Colfax Ave", State: "CO"})
			wantError(t, err, tt.wantKind, tt.wantCode)
			_, err = c.Reverse(ctx, providers.Point{Lat: 39.7, Lng: -104.9})
			wantError(t, err, tt.wantKind, tt.wantCode)
			_, err = c.GeocodeBatch(ctx, []census.BatchRow{{ID: "1", Address: providers.Address{Street: "x"}}})
			wantError(t, err, tt.wantKind, tt.wantCode)
		})
	}
}

func TestReverseReturnsGeographiesOfThePoint(t *testing.T) {
	c, mt := fakeClient(t, coloradoCapitol, seattleLibrary)
	at := providers.Point{Lat: 47.6081, Lng: -122.3340} // about 180 m from the library
	got, err := c.Reverse(context.Background(), at)
	if err != nil {
		t.Fatalf("Reverse: %v", err)
	}
	want := providers.Location{Point: at, State: "WA", County: "King County", FIPSCode: "53033", CensusTract: "008100"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Reverse =\n%+v\nwant\n%+v", got, want)
	}
	wantCalls(t, mt, 1)
}

func TestReverseSendsLongitudeAsX(t *testing.T) {
	var got url.Values
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, census.DefaultBaseURL+"/geographies/coordinates",
		func(req *http.Request) (*http.Response, error) {
			got = req.URL.Query()
			return httpmock.NewBytesResponse(http.StatusOK, testdata(t, "geographies_coordinates.json")), nil
		})
	c := newClient(t, mt, map[string]string{"vintage": "ACS2022_Current"})
	loc, err := c.Reverse(context.Background(), providers.Point{Lat: 40.7608, Lng: -111.891})
	if err != nil {
		t.Fatalf("Reverse: %v", err)
	}
	want := url.Values{"x": {"-111.891"}, "y": {"40.7608"}, "benchmark": {"Public_AR_Current"},
		"vintage": {"ACS2022_Current"}, "format": {"json"}}
	for k, v := range want {
		if got.Get(k) != v[0] {
			t.Errorf("query %s = %q, want %q", k, got.Get(k), v[0])
		}
	}
	if loc.County != "Salt Lake County" || loc.FIPSCode != "49035" || loc.CensusTract != "114000" {
		t.Errorf("Reverse = %+v", loc)
	}
	if loc.MatchedAddress != "" || loc.Street != "" {
		t.Errorf("Reverse returned an address: %+v", loc)
	}
}

func TestReverseOutsideAnyCounty(t *testing.T) {
	t.Run("fake, far from every place", func(t *testing.T) {
		c, mt := fakeClient(t, coloradoCapitol)
		_, err := c.Reverse(context.Background(), providers.Point{Lat: 39.80, Lng: -104.98}) // ~7 km north
		wantError(t, err, providers.KindNotFound, "location_not_found")
		wantCalls(t, mt, 1)
	})
	t.Run("recorded empty layers", func(t *testing.T) {
		c, _ := answering(t, jsonFile(t, "geographies_coordinates_at_sea.json"))
		_, err := c.Reverse(context.Background(), providers.Point{Lat: 41.1, Lng: -70.5})
		wantError(t, err, providers.KindNotFound, "location_not_found")
	})
}

func TestReverseRejectsInvalidPoints(t *testing.T) {
	for _, p := range []providers.Point{{Lat: 91, Lng: 0}, {Lat: 0, Lng: -181}} {
		c, mt := fakeClient(t, coloradoCapitol)
		_, err := c.Reverse(context.Background(), p)
		wantError(t, err, providers.KindInvalid, "invalid_parameter")
		wantCalls(t, mt, 0)
	}
}
