package hudfmr_test

import (
	"context"
	"errors"
	"maps"
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
	"github.com/propertyd/propertyd/providers/modules/hudfmr"
)

const testToken = "hud-secret-token-41c7"

// maricopa is the entity the tests ask for unless they say otherwise.
const (
	maricopaFIPS = "04013"
	maricopaURL  = hudfmr.DefaultBaseURL + "/data/0401399999"
)

func newClient(t *testing.T, mt *httpmock.MockTransport, opts map[string]string) *hudfmr.Client {
	t.Helper()
	o := map[string]string{"token": testToken}
	maps.Copy(o, opts)
	c, err := hudfmr.New(providers.Settings{
		Client:  &http.Client{Transport: mt},
		Options: o,
		Now:     func() time.Time { return time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC) },
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
		t.Fatalf("got rents; want error %s (kind %v)", want.code, want.kind)
	}
	if e.Kind != want.kind || e.Code != want.code || e.RetryAfter != want.retryAfter {
		t.Errorf("error = %v (kind %v, code %s, retry after %v); want kind %v, code %s, retry after %v",
			err, e.Kind, e.Code, e.RetryAfter, want.kind, want.code, want.retryAfter)
	}
	if strings.Contains(err.Error(), testToken) {
		t.Errorf("error text shows the token: %v", err)
	}
}

func rents(r0, r1, r2, r3, r4 int) map[string]int {
	return map[string]int{"0": r0, "1": r1, "2": r2, "3": r3, "4": r4}
}

func checkRents(t *testing.T, got *providers.FairMarketRents, err error, want *providers.FairMarketRents) {
	t.Helper()
	if err != nil {
		t.Fatalf("FairMarketRents: %v", err)
	}
	if got.Year != want.Year || got.AreaName != want.AreaName || got.Source != "hud-fmr" ||
		!maps.Equal(got.ByBedrooms, want.ByBedrooms) {
		t.Errorf("rents = %+v; want %+v from hud-fmr", got, want)
	}
}

func TestNewValidatesOptions(t *testing.T) {
	tests := []struct {
		name    string
		s       providers.Settings
		mention string
	}{
		{"missing token", providers.Settings{}, "token"},
		{"blank token", providers.Settings{Options: map[string]string{"token": " "}}, "token"},
		{"year not a number", providers.Settings{Options: map[string]string{"token": "t", "year": "FY25"}}, `option year: "FY25" is not a whole number`},
		{"year not four digits", providers.Settings{Options: map[string]string{"token": "t", "year": "25"}}, "option year 25 is not a four-digit fiscal year"},
		{"unknown option", providers.Settings{Options: map[string]string{"token": "t", "api_key": "t"}}, "api_key"},
		{"relative base URL", providers.Settings{BaseURL: "www.huduser.gov", Options: map[string]string{"token": "t"}}, "base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := hudfmr.New(tt.s)
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
	m, ok := providers.Default.Lookup("hud-fmr")
	if !ok {
		t.Fatal("module hud-fmr is not registered")
	}
	if m.DefaultBaseURL != "https://www.huduser.gov/hudapi/public/fmr" {
		t.Errorf("DefaultBaseURL = %q", m.DefaultBaseURL)
	}
	v, err := providers.Default.Build(providers.RoleFairMarketRent, "hud-fmr",
		providers.Settings{Options: map[string]string{"token": "t"}})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if _, ok := v.(providers.FairMarketRentProvider); !ok {
		t.Errorf("Build returned %T, not a FairMarketRentProvider", v)
	}
}

func TestEntityID(t *testing.T) {
	if got := hudfmr.EntityID("51001"); got != "5100199999" {
		t.Errorf("EntityID(51001) = %q; want 5100199999 as in HUD's county list", got)
	}
}

func TestFairMarketRentsSendsDocumentedRequest(t *testing.T) {
	for _, tt := range []struct {
		name, year, wantQuery string
	}{
		{"latest year", "", ""},
		{"configured year", "2024", "year=2024"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			var got *http.Request
			mt.RegisterResponder(http.MethodGet, maricopaURL, func(req *http.Request) (*http.Response, error) {
				got = req
				return jsonResponder(200, readTestdata(t, "county_metro_2025.json"))(req)
			})
			opts := map[string]string{}
			if tt.year != "" {
				opts["year"] = tt.year
			}
			if _, err := newClient(t, mt, opts).FairMarketRents(context.Background(), maricopaFIPS); err != nil {
				t.Fatalf("FairMarketRents: %v", err)
			}
			if got.URL.Path != "/hudapi/public/fmr/data/0401399999" {
				t.Errorf("path = %q; want the county entity id 0401399999", got.URL.Path)
			}
			if got.URL.RawQuery != tt.wantQuery {
				t.Errorf("query = %q; want %q", got.URL.RawQuery, tt.wantQuery)
			}
			if a := got.Header.Get("Authorization"); a != "Bearer "+testToken {
				t.Errorf("Authorization = %q; want the bearer token", a)
			}
			if a := got.Header.Get("Accept"); a != "application/json" {
				t.Errorf("Accept = %q; HUD answers 406 unless JSON is accepted", a)
			}
			if strings.Contains(got.URL.String(), testToken) {
				t.Errorf("token leaked into the URL %s", got.URL)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("upstream calls = %d; want 1", n)
			}
		})
	}
}

func TestFairMarketRentsTestdata(t *testing.T) {
	tests := []struct {
		file   string
		status int
		header []string
		want   *providers.FairMarketRents
		err    wantErr
	}{
		{file: "county_metro_2025.json", status: 200, want: &providers.FairMarketRents{
			Year: "2025", AreaName: "Phoenix-Mesa-Chandler, AZ MSA", ByBedrooms: rents(1431, 1567, 1862, 2551, 3004)}},
		{file: "county_nonmetro_2018_strings.json", status: 200, want: &providers.FairMarketRents{
			Year: "2018", AreaName: "Garrett County, MD", ByBedrooms: rents(552, 601, 789, 1003, 1127)}},
		{file: "town_new_england_2019_strings.json", status: 200, want: &providers.FairMarketRents{
			Year: "2019", AreaName: "Brattleboro town, Windham County, VT", ByBedrooms: rents(811, 872, 1104, 1391, 1532)}},
		{file: "metro_safmr_2024_rows.json", status: 200, want: &providers.FairMarketRents{
			Year: "2024", AreaName: "Atlanta-Sandy Springs-Roswell, GA HUD Metro FMR Area", ByBedrooms: rents(1530, 1571, 1750, 2140, 2579)}},
		{file: "error_401.json", status: 401, err: wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{file: "error_404.json", status: 404, err: wantErr{providers.KindNotFound, "fmr_not_found", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, maricopaURL, jsonResponder(tt.status, readTestdata(t, tt.file), tt.header...))
			got, err := newClient(t, mt, nil).FairMarketRents(context.Background(), maricopaFIPS)
			if tt.want != nil {
				checkRents(t, got, err, tt.want)
			} else {
				checkErr(t, err, tt.err)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("upstream calls = %d; want exactly 1 (the module must not retry)", n)
			}
		})
	}
}

func TestFairMarketRentsHTTPErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		header []string
		err    wantErr
	}{
		{400, `{"error":"Invalid year"}`, nil, wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		{401, `{"error":"Unauthenticated."}`, nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{403, `{"error":"Forbidden"}`, nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{404, `{"error":"No data found using '0401399999'"}`, nil, wantErr{providers.KindNotFound, "fmr_not_found", 0}},
		{404, `<html>Not Found</html>`, nil, wantErr{providers.KindNotFound, "fmr_not_found", 0}},
		{405, ``, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{406, `{"error":"Not Acceptable"}`, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{429, `{"error":"Too Many Attempts."}`, []string{"Retry-After", "60"}, wantErr{providers.KindUpstream, "upstream_rate_limited", time.Minute}},
		{429, ``, nil, wantErr{providers.KindUpstream, "upstream_rate_limited", 0}},
		{500, `{"error":"Server Error"}`, nil, wantErr{providers.KindUpstream, "upstream_error", 0}},
		{503, `<html>maintenance</html>`, []string{"Retry-After", "Sat, 01 Mar 2025 09:05:00 GMT"}, wantErr{providers.KindUpstream, "upstream_error", 5 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, maricopaURL, jsonResponder(tt.status, tt.body, tt.header...))
			_, err := newClient(t, mt, nil).FairMarketRents(context.Background(), maricopaFIPS)
			checkErr(t, err, tt.err)
		})
	}
}

func TestNotFoundInNewEnglandSaysWhy(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, hudfmr.DefaultBaseURL+"/data/5002599999",
		jsonResponder(404, `{"error":"No data found using '5002599999'"}`))
	_, err := newClient(t, mt, nil).FairMarketRents(context.Background(), "50025")
	checkErr(t, err, wantErr{providers.KindNotFound, "fmr_not_found", 0})
	if e := providers.As(err); !strings.Contains(e.Message, "town") {
		t.Errorf("message %q does not explain that New England data is by town", e.Message)
	}
}

func TestFairMarketRentsDecodesLeniently(t *testing.T) {
	tests := []struct {
		name string
		body string
		opts map[string]string
		want *providers.FairMarketRents
	}{
		{"MSA level row not first, other case",
			`{"data":{"metro_status":1,"metro_name":"Somewhere, ST","smallarea_status":1,"year":2023,"basicdata":[{"zip_code":"99501","Efficiency":900,"One-Bedroom":901,"Two-Bedroom":902,"Three-Bedroom":903,"Four-Bedroom":904},{"zip_code":"msa level","Efficiency":800,"One-Bedroom":801,"Two-Bedroom":802,"Three-Bedroom":803,"Four-Bedroom":804}]}}`,
			nil, &providers.FairMarketRents{Year: "2023", AreaName: "Somewhere, ST", ByBedrooms: rents(800, 801, 802, 803, 804)}},
		{"float rents round, null and missing bedrooms left out",
			`{"data":{"county_name":"Lake County, OR","basicdata":{"Efficiency":640.4,"One-Bedroom":"$700.50","Two-Bedroom":null,"Three-Bedroom":"","year":2022}}}`,
			nil, &providers.FairMarketRents{Year: "2022", AreaName: "Lake County, OR", ByBedrooms: map[string]int{"0": 640, "1": 701}}},
		{"year from option when the answer has none",
			`{"data":{"county_name":"Lake County, OR","basicdata":{"Efficiency":1,"One-Bedroom":2,"Two-Bedroom":3,"Three-Bedroom":4,"Four-Bedroom":5}}}`,
			map[string]string{"year": "2021"}, &providers.FairMarketRents{Year: "2021", AreaName: "Lake County, OR", ByBedrooms: rents(1, 2, 3, 4, 5)}},
		{"top-level year wins over basicdata year",
			`{"data":{"area_name":"X Area","year":"2024","basicdata":{"Efficiency":1,"One-Bedroom":2,"Two-Bedroom":3,"Three-Bedroom":4,"Four-Bedroom":5,"year":"2023"}}}`,
			nil, &providers.FairMarketRents{Year: "2024", AreaName: "X Area", ByBedrooms: rents(1, 2, 3, 4, 5)}},
		{"non-metro county ignores stray metro name",
			`{"data":{"county_name":"Lake County, OR","metro_status":"0","metro_name":"Nowhere MSA","basicdata":{"Efficiency":1,"One-Bedroom":2,"Two-Bedroom":3,"Three-Bedroom":4,"Four-Bedroom":5}}}`,
			nil, &providers.FairMarketRents{AreaName: "Lake County, OR", ByBedrooms: rents(1, 2, 3, 4, 5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, maricopaURL, jsonResponder(200, tt.body))
			got, err := newClient(t, mt, tt.opts).FairMarketRents(context.Background(), maricopaFIPS)
			checkRents(t, got, err, tt.want)
		})
	}
}

func TestFairMarketRentsRejectsUnusableAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"not json":              `<html>oops</html>`,
		"no data":               `{"error":"something"}`,
		"data null":             `{"data":null}`,
		"data is a list":        `[{"state_code":"AZ","fips_code":"0401399999"}]`,
		"no basicdata":          `{"data":{"county_name":"Lake County, OR"}}`,
		"rows without MSA":      `{"data":{"basicdata":[{"zip_code":"99501","Efficiency":900,"One-Bedroom":901,"Two-Bedroom":902,"Three-Bedroom":903,"Four-Bedroom":904}]}}`,
		"no rent at all":        `{"data":{"basicdata":{"Efficiency":null,"year":"2024"}}}`,
		"rent is not a number":  `{"data":{"basicdata":{"Efficiency":"n/a","One-Bedroom":1}}}`,
		"negative rent":         `{"data":{"basicdata":{"Efficiency":-5,"One-Bedroom":1}}}`,
		"county name an object": `{"data":{"county_name":{},"basicdata":{"Efficiency":1}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, maricopaURL, jsonResponder(200, body))
			_, err := newClient(t, mt, nil).FairMarketRents(context.Background(), maricopaFIPS)
			checkErr(t, err, wantErr{providers.KindUpstream, "upstream_error", 0})
		})
	}
}

func TestFairMarketRentsRejectsBadFIPSWithoutCalling(t *testing.T) {
	mt := httpmock.NewMockTransport()
	c := newClient(t, mt, nil)
	for _, fips := range []string{"", "4013", "040130", "04O13", "04013/../x"} {
		_, err := c.FairMarketRents(context.Background(), fips)
		checkErr(t, err, wantErr{providers.KindInvalid, "invalid_parameter", 0})
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("upstream calls = %d; want 0 for malformed FIPS codes", n)
	}
}

func TestFairMarketRentsTransportFailures(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, maricopaURL, httpmock.NewErrorResponder(errors.New("connection reset by peer")))
	_, err := newClient(t, mt, nil).FairMarketRents(context.Background(), maricopaFIPS)
	checkErr(t, err, wantErr{providers.KindUpstream, "upstream_error", 0})

	mt = httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, maricopaURL, func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	})
	c := newClient(t, mt, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err = c.FairMarketRents(ctx, maricopaFIPS)
	checkErr(t, err, wantErr{providers.KindTimeout, "upstream_timeout", 0})

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.FairMarketRents(ctx, maricopaFIPS)
	checkErr(t, err, wantErr{providers.KindCanceled, "canceled", 0})
}

func TestFairMarketRentsAgainstFake(t *testing.T) {
	counties := map[string]providertest.HUDCounty{
		"04013": {CountyName: "Maricopa County, AZ", MetroName: "Phoenix-Mesa-Chandler, AZ MSA",
			AreaName: "Phoenix-Mesa-Chandler, AZ MSA", Year: "2025", Rents: [5]int{1431, 1567, 1862, 2551, 3004}},
		"24023": {CountyName: "Garrett County, MD", Year: "2018", Rents: [5]int{552, 601, 789, 1003, 1127}, StringValues: true},
		"13121": {CountyName: "Fulton County, GA", MetroName: "Atlanta-Sandy Springs-Roswell, GA",
			AreaName: "Atlanta-Sandy Springs-Roswell, GA HUD Metro FMR Area", Year: "2024",
			Rents:    [5]int{1530, 1571, 1750, 2140, 2579},
			ZIPRents: map[string][5]int{"30303": {1780, 1830, 2040, 2490, 3000}, "30305": {2010, 2060, 2300, 2810, 3390}}},
		"06037": {CountyName: "Los Angeles County, CA", Status: 503, RetryAfter: "30"},
	}
	tests := []struct {
		name  string
		token string
		opts  map[string]string
		fips  string
		want  *providers.FairMarketRents
		err   wantErr
	}{
		{"metro county", providertest.HUDFMRToken, nil, "04013", &providers.FairMarketRents{
			Year: "2025", AreaName: "Phoenix-Mesa-Chandler, AZ MSA", ByBedrooms: rents(1431, 1567, 1862, 2551, 3004)}, wantErr{}},
		{"non-metro county with string values", providertest.HUDFMRToken, map[string]string{"year": "2018"}, "24023", &providers.FairMarketRents{
			Year: "2018", AreaName: "Garrett County, MD", ByBedrooms: rents(552, 601, 789, 1003, 1127)}, wantErr{}},
		{"small area FMR county reports the metro-wide row", providertest.HUDFMRToken, nil, "13121", &providers.FairMarketRents{
			Year: "2024", AreaName: "Atlanta-Sandy Springs-Roswell, GA HUD Metro FMR Area", ByBedrooms: rents(1530, 1571, 1750, 2140, 2579)}, wantErr{}},
		{"unknown county", providertest.HUDFMRToken, nil, "01001", nil, wantErr{providers.KindNotFound, "fmr_not_found", 0}},
		{"unpublished year", providertest.HUDFMRToken, map[string]string{"year": "2026"}, "04013", nil, wantErr{providers.KindNotFound, "fmr_not_found", 0}},
		{"wrong token", "another-token", nil, "04013", nil, wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		{"upstream down", providertest.HUDFMRToken, nil, "06037", nil, wantErr{providers.KindUpstream, "upstream_error", 30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			providertest.RegisterHUDFMR(mt, hudfmr.DefaultBaseURL, counties)
			opts := map[string]string{"token": tt.token}
			maps.Copy(opts, tt.opts)
			got, err := newClient(t, mt, opts).FairMarketRents(context.Background(), tt.fips)
			if tt.want != nil {
				checkRents(t, got, err, tt.want)
			} else {
				checkErr(t, err, tt.err)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("upstream calls = %d; want 1", n)
			}
		})
	}
}
