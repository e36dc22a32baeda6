package censusacs_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
)

const base = censusacs.DefaultBaseURL

var (
	cook       = providers.Tract{State: "17", County: "031", Tract: "081402"}
	cookRemote = providers.Tract{State: "17", County: "031", Tract: "980100"}
	travis     = providers.Tract{State: "48", County: "453", Tract: "001307"}
)

// cookData is the fake's data for the Cook County tract: the figures of
// testdata/demographics_cook_081402.json.
func cookData() map[string]string {
	return map[string]string{
		"B01003_001E": "4187", "B19013_001E": "87412", "B25077_001E": "356900", "B25064_001E": "1325",
		"B25002_001E": "1893", "B25002_002E": "1761", "B25002_003E": "132",
		"B25003_001E": "1761", "B25003_002E": "1108", "B25003_003E": "653",
		"B01002_001E": "38.9", "B25010_001E": "2.37",
	}
}

// travisData is the fake's data for the Travis County tract: the figures of
// testdata/housing_travis_001307.json.
func travisData() map[string]string {
	return map[string]string{
		"B25002_001E": "2480", "B25002_002E": "2297", "B25035_001E": "1984", "B25018_001E": "4.6",
		"B25024_001E": "2480", "B25024_002E": "1116", "B25024_003E": "148", "B25024_004E": "62",
		"B25024_005E": "91", "B25024_006E": "310", "B25024_007E": "402", "B25024_008E": "206",
		"B25024_009E": "129", "B25024_010E": "16",
		"B25041_001E": "2480", "B25041_002E": "57", "B25041_003E": "614", "B25041_004E": "702",
		"B25041_005E": "841", "B25041_006E": "219", "B25041_007E": "47",
		"B25064_001E": "1541", "B25077_001E": "-666666666",
	}
}

func newClient(t *testing.T, mt *httpmock.MockTransport, opts map[string]string) *censusacs.Client {
	t.Helper()
	return newClientWith(t, &http.Client{Transport: mt}, opts)
}

func newClientWith(t *testing.T, hc *http.Client, opts map[string]string) *censusacs.Client {
	t.Helper()
	c, err := censusacs.New(providers.Settings{Client: hc, Options: opts})
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

// serve answers every ACS data request with status, body and header.
func serve(mt *httpmock.MockTransport, status int, body string, kv ...string) {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	providertest.RegisterACSError(mt, base, status, body, h)
}

func wantErr(t *testing.T, err error, kind providers.Kind, code string) *providers.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want kind %d code %s", kind, code)
	}
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *providers.Error", err, err)
	}
	if pe.Kind != kind || pe.Code != code {
		t.Fatalf("got error kind %d code %q (%v), want kind %d code %q", pe.Kind, pe.Code, err, kind, code)
	}
	return pe
}

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

// str shows a *int64 or *float64 as a user would see it in JSON.
func str(p any) string {
	switch v := p.(type) {
	case *int64:
		if v != nil {
			return fmt.Sprint(*v)
		}
	case *float64:
		if v != nil {
			return fmt.Sprint(*v)
		}
	default:
		return fmt.Sprint(v)
	}
	return "null"
}

func checkField(t *testing.T, name string, got, want any) {
	t.Helper()
	if str(got) != str(want) {
		t.Errorf("%s = %s, want %s", name, str(got), str(want))
	}
}

func TestModulesAreRegisteredForTheirRoles(t *testing.T) {
	s := providers.Settings{Client: &http.Client{Transport: httpmock.NewMockTransport()}}
	d, err := providers.Default.Build(providers.RoleDemographics, censusacs.Name, s)
	if err != nil {
		t.Fatalf("building %s: %v", censusacs.Name, err)
	}
	if _, ok := d.(providers.DemographicsProvider); !ok {
		t.Errorf("%s builds a %T, not a DemographicsProvider", censusacs.Name, d)
	}
	h, err := providers.Default.Build(providers.RoleHousing, censusacs.HousingName, s)
	if err != nil {
		t.Fatalf("building %s: %v", censusacs.HousingName, err)
	}
	if _, ok := h.(providers.HousingProvider); !ok {
		t.Errorf("%s builds a %T, not a HousingProvider", censusacs.HousingName, h)
	}
	if _, err := providers.Default.Build(providers.RoleHousing, censusacs.Name, s); err == nil {
		t.Errorf("%s was accepted for the housing role", censusacs.Name)
	}
	if _, err := providers.Default.Build(providers.RoleDemographics, censusacs.HousingName, s); err == nil {
		t.Errorf("%s was accepted for the demographics role", censusacs.HousingName)
	}
	m, _ := providers.Default.Lookup(censusacs.Name)
	if m.DefaultBaseURL != "https://api.census.gov/data" {
		t.Errorf("default base URL %q", m.DefaultBaseURL)
	}
}

func TestNewValidatesOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		baseURL string
		opts    map[string]string
		ok      bool
	}{
		{"defaults", "", nil, true},
		{"year and key", "", map[string]string{"year": "2023", "api_key": "k"}, true},
		{"first 5-year vintage", "", map[string]string{"year": "2009"}, true},
		{"unknown option", "", map[string]string{"vintage": "2022"}, false},
		{"two-digit year", "", map[string]string{"year": "22"}, false},
		{"year before the 5-year series", "", map[string]string{"year": "2005"}, false},
		{"the newest release", "", map[string]string{"year": "latest"}, true},
		{"year neither latest nor a number", "", map[string]string{"year": "newest"}, false},
		{"relative base URL", "api.census.gov/data", nil, false},
		{"ftp base URL", "ftp://api.census.gov/data", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := censusacs.New(providers.Settings{BaseURL: tc.baseURL, Options: tc.opts})
			if tc.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tc.ok {
				wantErr(t, err, providers.KindInvalid, "invalid_config")
			}
		})
	}
}

func TestDefaultYearAndVintage(t *testing.T) {
	c := newClient(t, httpmock.NewMockTransport(), nil)
	if c.Year() != "2022" || c.Vintage() != "2022 ACS 5-year" {
		t.Errorf("year %q vintage %q, want 2022 and \"2022 ACS 5-year\"", c.Year(), c.Vintage())
	}
}

func TestNewLeavesTheCallersClientAlone(t *testing.T) {
	hc := &http.Client{Transport: httpmock.NewMockTransport()}
	if _, err := censusacs.New(providers.Settings{Client: hc}); err != nil {
		t.Fatal(err)
	}
	if hc.CheckRedirect != nil {
		t.Error("New changed the caller's http.Client CheckRedirect")
	}
}

func TestDemographicsOfANormalTract(t *testing.T) {
	wantFields := func(t *testing.T, d *providers.Demographics) {
		t.Helper()
		if d.CensusTract != "081402" || d.StateFIPS != "17" || d.CountyFIPS != "031" {
			t.Errorf("tract %q state %q county %q", d.CensusTract, d.StateFIPS, d.CountyFIPS)
		}
		checkField(t, "total_population", d.TotalPopulation, i64(4187))
		checkField(t, "median_household_income", d.MedianHouseholdIncome, i64(87412))
		checkField(t, "median_home_value", d.MedianHomeValue, i64(356900))
		checkField(t, "median_gross_rent", d.MedianGrossRent, i64(1325))
		checkField(t, "vacancy_rate", d.VacancyRate, f64(7.0))               // 132 / 1893
		checkField(t, "owner_occupied_pct", d.OwnerOccupiedPct, f64(62.9))   // 1108 / 1761
		checkField(t, "renter_occupied_pct", d.RenterOccupiedPct, f64(37.1)) // 653 / 1761
		checkField(t, "median_age", d.MedianAge, f64(38.9))
		checkField(t, "average_household_size", d.AverageHouseholdSize, f64(2.37))
		if d.Source != "census-acs" || d.Vintage != "2022 ACS 5-year" {
			t.Errorf("source %q vintage %q", d.Source, d.Vintage)
		}
	}
	t.Run("recorded body", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		serve(mt, 200, readTestdata(t, "demographics_cook_081402.json"), "Content-Type", "application/json;charset=utf-8")
		d, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
		if err != nil {
			t.Fatal(err)
		}
		wantFields(t, d)
	})
	t.Run("fake", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACS(mt, base, map[string]map[string]string{
			cook.GEOID(): cookData(), travis.GEOID(): travisData(),
		})
		d, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
		if err != nil {
			t.Fatal(err)
		}
		wantFields(t, d)
		if n := providertest.ACSCalls(mt, base); n != 1 {
			t.Errorf("%d upstream calls, want 1", n)
		}
	})
}

func TestDemographicsReadsColumnsByName(t *testing.T) {
	// The same figures as the Cook County tract, columns in another order
	// and the geography first: values must still land in the right fields.
	body := `[["tract","county","state","B25010_001E","B01002_001E","B25003_003E","B25003_002E","B25003_001E","B25002_003E","B25002_002E","B25002_001E","B25064_001E","B25077_001E","B19013_001E","B01003_001E","NAME"],
["081402","031","17","2.37","38.9","653","1108","1761","132","1761","1893","1325","356900","87412","4187","Census Tract 814.02; Cook County; Illinois"]]`
	mt := httpmock.NewMockTransport()
	serve(mt, 200, body, "Content-Type", "application/json")
	d, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
	if err != nil {
		t.Fatal(err)
	}
	checkField(t, "total_population", d.TotalPopulation, i64(4187))
	checkField(t, "median_home_value", d.MedianHomeValue, i64(356900))
	checkField(t, "owner_occupied_pct", d.OwnerOccupiedPct, f64(62.9))
	checkField(t, "average_household_size", d.AverageHouseholdSize, f64(2.37))
}

func TestSuppressedValuesBecomeNull(t *testing.T) {
	check := func(t *testing.T, d *providers.Demographics) {
		t.Helper()
		checkField(t, "total_population", d.TotalPopulation, i64(12))
		for name, v := range map[string]any{
			"median_household_income": d.MedianHouseholdIncome, // -666666666
			"median_home_value":       d.MedianHomeValue,       // -888888888
			"median_gross_rent":       d.MedianGrossRent,       // -999999999
			"vacancy_rate":            d.VacancyRate,           // 0 housing units
			"owner_occupied_pct":      d.OwnerOccupiedPct,      // 0 occupied units
			"renter_occupied_pct":     d.RenterOccupiedPct,
			"median_age":              d.MedianAge,
			"average_household_size":  d.AverageHouseholdSize,
		} {
			checkField(t, name, v, (*int64)(nil))
		}
	}
	t.Run("recorded body", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		serve(mt, 200, readTestdata(t, "demographics_suppressed_980100.json"), "Content-Type", "application/json")
		d, err := newClient(t, mt, nil).Demographics(context.Background(), cookRemote)
		if err != nil {
			t.Fatal(err)
		}
		check(t, d)
	})
	t.Run("fake", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACS(mt, base, map[string]map[string]string{cookRemote.GEOID(): {
			"B01003_001E": "12", "B19013_001E": "-666666666", "B25077_001E": "-888888888",
			"B25064_001E": "-999999999", "B25002_001E": "0", "B25002_002E": "0", "B25002_003E": "0",
			"B25003_001E": "0", "B25003_002E": "0", "B25003_003E": "0",
			"B01002_001E": "-555555555", "B25010_001E": "-222222222",
		}})
		d, err := newClient(t, mt, nil).Demographics(context.Background(), cookRemote)
		if err != nil {
			t.Fatal(err)
		}
		check(t, d)
	})
}

func TestHousing(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{travis.GEOID(): travisData()})
	h, err := newClient(t, mt, map[string]string{"year": "2021"}).Housing(context.Background(), travis)
	if err != nil {
		t.Fatal(err)
	}
	checkField(t, "total_housing_units", h.TotalHousingUnits, i64(2480))
	checkField(t, "occupied_units", h.OccupiedUnits, i64(2297))
	checkField(t, "median_year_built", h.MedianYearBuilt, i64(1984))
	checkField(t, "median_rooms", h.MedianRooms, f64(4.6))
	checkField(t, "median_gross_rent", h.MedianGrossRent, i64(1541))
	checkField(t, "median_home_value", h.MedianHomeValue, (*int64)(nil))
	wantUnits := map[string]*float64{
		"single_family_detached": f64(45.0), // 1116 / 2480
		"single_family_attached": f64(6.0),  // 148
		"units_2_4":              f64(6.2),  // 62 + 91
		"units_5_19":             f64(28.7), // 310 + 402
		"units_20_plus":          f64(13.5), // 206 + 129
		"mobile_home":            f64(0.6),  // 16
	}
	wantBeds := map[string]*float64{
		"0": f64(2.3), "1": f64(24.8), "2": f64(28.3), "3": f64(33.9), "4": f64(8.8), "5_plus": f64(1.9),
	}
	for _, m := range []struct {
		name      string
		got, want map[string]*float64
	}{{"units_in_structure_pct", h.UnitsInStructure, wantUnits}, {"bedrooms_pct", h.Bedrooms, wantBeds}} {
		if len(m.got) != len(m.want) {
			t.Errorf("%s has keys %v, want %d keys", m.name, m.got, len(m.want))
		}
		for k, w := range m.want {
			checkField(t, m.name+"["+k+"]", m.got[k], w)
		}
	}
	if h.Source != "census-acs-housing" || h.Vintage != "2021 ACS 5-year" {
		t.Errorf("source %q vintage %q", h.Source, h.Vintage)
	}
}

func TestHousingSharesWithUnknownCounts(t *testing.T) {
	data := travisData()
	data["B25024_009E"] = "-999999999" // 50+ units suppressed: units_20_plus unknown
	data["B25041_001E"] = "0"          // no housing units counted: no bedroom share
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{travis.GEOID(): data})
	h, err := newClient(t, mt, nil).Housing(context.Background(), travis)
	if err != nil {
		t.Fatal(err)
	}
	checkField(t, "units_20_plus", h.UnitsInStructure["units_20_plus"], (*float64)(nil))
	checkField(t, "units_5_19", h.UnitsInStructure["units_5_19"], f64(28.7))
	for _, k := range []string{"0", "1", "2", "3", "4", "5_plus"} {
		v, ok := h.Bedrooms[k]
		if !ok {
			t.Errorf("bedrooms_pct lacks key %q", k)
		}
		checkField(t, "bedrooms_pct["+k+"]", v, (*float64)(nil))
	}
}

func TestUnknownTractIsNotFound(t *testing.T) {
	t.Run("fake", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACS(mt, base, map[string]map[string]string{cook.GEOID(): cookData()})
		_, err := newClient(t, mt, nil).Housing(context.Background(), travis)
		pe := wantErr(t, err, providers.KindNotFound, "tract_not_found")
		if !strings.Contains(pe.Message, travis.GEOID()) {
			t.Errorf("message %q does not name the tract", pe.Message)
		}
		if n := providertest.ACSCalls(mt, base); n != 1 {
			t.Errorf("%d upstream calls, want 1", n)
		}
	})
	t.Run("header only", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		serve(mt, 200, `[["NAME","B01003_001E","state","county","tract"]]`, "Content-Type", "application/json")
		_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
		wantErr(t, err, providers.KindNotFound, "tract_not_found")
	})
	t.Run("another tract's row", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		serve(mt, 200, readTestdata(t, "demographics_cook_081402.json"), "Content-Type", "application/json")
		_, err := newClient(t, mt, nil).Demographics(context.Background(), cookRemote)
		wantErr(t, err, providers.KindNotFound, "tract_not_found")
	})
}

func TestRefusedKeyIsAMisconfiguration(t *testing.T) {
	check := func(t *testing.T, err error) {
		t.Helper()
		pe := wantErr(t, err, providers.KindUnavailable, "upstream_misconfigured")
		if pe.Message != "census ACS API key is missing or invalid" {
			t.Errorf("message %q", pe.Message)
		}
		if strings.Contains(err.Error(), "invalid character") {
			t.Errorf("error reads like a JSON parse error: %v", err)
		}
	}
	t.Run("invalid key: 200 HTML page", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACSWithKey(mt, base, "right-key", map[string]map[string]string{cook.GEOID(): cookData()})
		_, err := newClient(t, mt, map[string]string{"api_key": "wrong-key"}).Demographics(context.Background(), cook)
		check(t, err)
	})
	t.Run("missing key: 302 to an HTML page", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACSWithKey(mt, base, "right-key", map[string]map[string]string{cook.GEOID(): cookData()})
		_, err := newClient(t, mt, nil).Housing(context.Background(), cook)
		check(t, err)
		if n := mt.GetTotalCallCount() - providertest.ACSDiscoveryCalls(mt, base); n != 1 {
			t.Errorf("%d data requests, want 1: the redirect to the key page must not be followed", n)
		}
	})
	t.Run("right key", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACSWithKey(mt, base, "right-key", map[string]map[string]string{cook.GEOID(): cookData()})
		if _, err := newClient(t, mt, map[string]string{"api_key": "right-key"}).Demographics(context.Background(), cook); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct{ name, contentType string }{
		{"HTML page announced as text/html", "text/html;charset=utf-8"},
		{"HTML page announced as JSON", "application/json"},
		{"HTML page without content type", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			serve(mt, 200, readTestdata(t, "invalid_key.html"), "Content-Type", tc.contentType)
			_, err := newClient(t, mt, map[string]string{"api_key": "k"}).Demographics(context.Background(), cook)
			check(t, err)
		})
	}
	t.Run("302 with the caller's client following redirects", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACSWithKey(mt, base, "right-key", nil)
		followed := 0
		hc := &http.Client{Transport: mt, CheckRedirect: func(*http.Request, []*http.Request) error {
			followed++
			return nil
		}}
		c, err := censusacs.New(providers.Settings{Client: hc})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Demographics(context.Background(), cook)
		check(t, err)
		if followed != 0 {
			t.Errorf("the redirect went through the caller's CheckRedirect %d times", followed)
		}
	})
}

func TestBadRequestKeepsTheUpstreamText(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serve(mt, 400, readTestdata(t, "error_400_unknown_variable.txt"), "Content-Type", "text/plain")
	_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
	wantErr(t, err, providers.KindUpstream, "upstream_error")
	if !strings.Contains(err.Error(), "error: unknown variable 'B25999_001E'") {
		t.Errorf("error %q lost the upstream's text", err)
	}
}

func TestServerErrorsCarryRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		code       string
		want       time.Duration
	}{
		{"500 with seconds", 500, "120", "upstream_error", 2 * time.Minute},
		{"503 without header", 503, "", "upstream_error", 0},
		{"503 with a date", 503, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), "upstream_error", time.Hour},
		{"429 with seconds", 429, "7", "upstream_rate_limited", 7 * time.Second},
		{"429 with garbage", 429, "soon", "upstream_rate_limited", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			serve(mt, tc.status, "There was an error while running your query.", "Retry-After", tc.retryAfter)
			_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
			pe := wantErr(t, err, providers.KindUpstream, tc.code)
			if d := pe.RetryAfter - tc.want; d < -2*time.Second || d > 0 {
				t.Errorf("RetryAfter %v, want %v", pe.RetryAfter, tc.want)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("%d upstream calls, want 1 (the module must not retry)", n)
			}
		})
	}
}

func TestOtherStatuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		ctype  string
		kind   providers.Kind
		code   string
	}{
		{"404 servlet page for an unpublished year", 404, "<html><body>HTTP Status 404</body></html>", "text/html", providers.KindUnavailable, "upstream_misconfigured"},
		{"403", 403, "Forbidden", "text/plain", providers.KindUnavailable, "upstream_misconfigured"},
		{"garbage JSON", 200, `[["NAME","state"],["x"`, "application/json", providers.KindUpstream, "upstream_bad_response"},
		{"object instead of table", 200, `{"error":"nope"}`, "application/json", providers.KindUpstream, "upstream_bad_response"},
		{"a value that is not a number", 200, strings.Replace(readTestdataString("demographics_cook_081402.json"), `"4187"`, `"many"`, 1), "application/json", providers.KindUpstream, "upstream_bad_response"},
		{"418", 418, "teapot", "text/plain", providers.KindUpstream, "upstream_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			serve(mt, tc.status, tc.body, "Content-Type", tc.ctype)
			_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
			wantErr(t, err, tc.kind, tc.code)
		})
	}
}

func readTestdataString(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestMissingColumnIsAnUpstreamError(t *testing.T) {
	body := `[["NAME","B01003_001E","state","county","tract"],["Census Tract 814.02","4187","17","031","081402"]]`
	mt := httpmock.NewMockTransport()
	serve(mt, 200, body, "Content-Type", "application/json")
	_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
	wantErr(t, err, providers.KindUpstream, "upstream_bad_response")
}

func TestContextEnds(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterRegexpResponder(http.MethodGet, censusRoute(),
		httpmock.NewStringResponder(200, readTestdataString("demographics_cook_081402.json")).Delay(5*time.Second))
	c := newClient(t, mt, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Demographics(ctx, cook)
	wantErr(t, err, providers.KindTimeout, "upstream_timeout")
	if time.Since(start) > 2*time.Second {
		t.Errorf("the call outlived its deadline: %v", time.Since(start))
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err = c.Housing(ctx, cook)
	wantErr(t, err, providers.KindCanceled, "canceled")
}

// TestTransportErrorsHideTheKey: an API that could not be reached is
// upstream_unreachable, one that broke off its answer upstream_error, as
// for every module; neither error shows the API key or the tract of the
// request's query string, and both keep their cause.
func TestTransportErrorsHideTheKey(t *testing.T) {
	for _, tt := range []struct {
		cause error
		kind  providers.Kind
		code  string
	}{
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, providers.KindUnreachable, "upstream_unreachable"},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, providers.KindUpstream, "upstream_error"},
	} {
		mt := httpmock.NewMockTransport()
		mt.RegisterRegexpResponder(http.MethodGet, censusRoute(), httpmock.NewErrorResponder(tt.cause))
		_, err := newClient(t, mt, map[string]string{"api_key": "s3cr3t-key"}).Demographics(context.Background(), cook)
		wantErr(t, err, tt.kind, tt.code)
		if strings.Contains(err.Error(), "s3cr3t-key") || strings.Contains(err.Error(), cook.Tract) {
			t.Errorf("error %q shows the request's query", err)
		}
		if !errors.Is(err, tt.cause.(*net.OpError).Err) {
			t.Errorf("error %q lost its cause", err)
		}
	}
}

func TestDecoratorErrorsKeepTheirMeaning(t *testing.T) {
	open := &providers.Error{Kind: providers.KindUnavailable, Code: "upstream_unavailable", Message: "breaker open", RetryAfter: time.Minute}
	mt := httpmock.NewMockTransport()
	mt.RegisterRegexpResponder(http.MethodGet, censusRoute(), httpmock.NewErrorResponder(open))
	_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
	pe := wantErr(t, err, providers.KindUnavailable, "upstream_unavailable")
	if pe.RetryAfter != time.Minute {
		t.Errorf("RetryAfter %v, want 1m", pe.RetryAfter)
	}
}

func TestInvalidTractNeverReachesTheUpstream(t *testing.T) {
	for _, tr := range []providers.Tract{
		{State: "17", County: "031", Tract: "8140"},
		{State: "IL", County: "031", Tract: "081402"},
		{State: "17", County: "31", Tract: "081402"},
		{State: "17", County: "031", Tract: "0814&2"},
		{},
	} {
		mt := httpmock.NewMockTransport()
		providertest.RegisterACS(mt, base, nil)
		_, err := newClient(t, mt, nil).Demographics(context.Background(), tr)
		wantErr(t, err, providers.KindInvalid, "invalid_parameter")
		if n := mt.GetTotalCallCount(); n != 0 {
			t.Errorf("tract %+v: %d upstream calls, want 0", tr, n)
		}
	}
}

func censusRoute() *regexp.Regexp { return regexp.MustCompile(`^https://api\.census\.gov/data/`) }

func TestRequestURL(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]string
		call func(*censusacs.Client) error
		vars []string
		want string // path and query after the base URL

		wantFor, wantIn string // decoded
	}{
		{
			name: "demographics, default year, no key",
			call: func(c *censusacs.Client) error { _, err := c.Demographics(context.Background(), cook); return err },
			vars: censusacs.DemographicsVariables,
			want: "/2022/acs/acs5?get=NAME," + strings.Join(censusacs.DemographicsVariables, ",") +
				"&for=tract:081402&in=state:17%20county:031",
			wantFor: "tract:081402",
			wantIn:  "state:17 county:031",
		},
		{
			name: "housing, year and key",
			opts: map[string]string{"year": "2019", "api_key": "abc+/=123"},
			call: func(c *censusacs.Client) error { _, err := c.Housing(context.Background(), travis); return err },
			vars: censusacs.HousingVariables,
			want: "/2019/acs/acs5?get=NAME," + strings.Join(censusacs.HousingVariables, ",") +
				"&for=tract:001307&in=state:48%20county:453&key=abc%2B%2F%3D123",
			wantFor: "tract:001307",
			wantIn:  "state:48 county:453",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			var got []string
			mt.RegisterRegexpResponder(http.MethodGet, censusRoute(), func(req *http.Request) (*http.Response, error) {
				got = append(got, req.URL.String())
				return httpmock.NewStringResponse(http.StatusNoContent, ""), nil
			})
			err := tc.call(newClient(t, mt, tc.opts))
			wantErr(t, err, providers.KindNotFound, "tract_not_found")
			if len(got) != 1 || got[0] != base+tc.want {
				t.Fatalf("requested %q\nwant        %q", got, base+tc.want)
			}
			q, err := url.ParseQuery(strings.SplitN(got[0], "?", 2)[1])
			if err != nil {
				t.Fatal(err)
			}
			if q.Get("in") != tc.wantIn || q.Get("for") != tc.wantFor {
				t.Errorf("for=%q in=%q, want for=%q in=%q", q.Get("for"), q.Get("in"), tc.wantFor, tc.wantIn)
			}
			if _, hasKey := q["key"]; hasKey != (tc.opts["api_key"] != "") {
				t.Errorf("key parameter present: %v, want %v", hasKey, tc.opts["api_key"] != "")
			}
			if k := q.Get("key"); tc.opts["api_key"] != "" && k != tc.opts["api_key"] {
				t.Errorf("key=%q, want %q", k, tc.opts["api_key"])
			}
			if n := len(strings.Split(q.Get("get"), ",")); n > censusacs.MaxVariables || n != len(tc.vars)+1 {
				t.Errorf("get= holds %d names", n)
			}
		})
	}
}

func TestRequestURLFunction(t *testing.T) {
	got := censusacs.RequestURL("https://example.test/data/", "2023", []string{"B01003_001E", "B19013_001E"},
		providers.Tract{State: "06", County: "075", Tract: "061500"}, "")
	want := "https://example.test/data/2023/acs/acs5?get=NAME,B01003_001E,B19013_001E&for=tract:061500&in=state:06%20county:075"
	if got != want {
		t.Errorf("RequestURL = %q\nwant          %q", got, want)
	}
}
