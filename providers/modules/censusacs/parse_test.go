package censusacs_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		part, whole *int64
		want        *float64
	}{
		{i64(231), i64(2571), f64(9.0)}, // 8.98... rounds up to a whole number
		{i64(1), i64(8), f64(12.5)},     // exact
		{i64(1), i64(16), f64(6.3)},     // 6.25: half away from zero
		{i64(1), i64(3), f64(33.3)},     // 33.33...
		{i64(2), i64(3), f64(66.7)},     // 66.66...
		{i64(1), i64(1999), f64(0.1)},   // 0.05002...
		{i64(1), i64(2001), f64(0)},     // 0.04997...
		{i64(0), i64(18), f64(0)},       // none: 0.0, not null
		{i64(18), i64(18), f64(100)},    // all
		{i64(1638), i64(2340), f64(70)}, // the README tract's renters
		{i64(5), i64(0), nil},           // zero denominator
		{i64(0), i64(0), nil},           // nothing counted
		{nil, i64(10), nil},             // unknown part
		{i64(3), nil, nil},              // unknown whole
		{i64(3000000), i64(3000001), f64(100)},
	} {
		got := censusacs.Percent(tc.part, tc.whole)
		if str(got) != str(tc.want) {
			t.Errorf("Percent(%s, %s) = %s, want %s", str(tc.part), str(tc.whole), str(got), str(tc.want))
		}
	}
}

func TestRowValues(t *testing.T) {
	s := func(v string) *string { return &v }
	row := censusacs.Row{"null": nil}
	for _, tc := range []struct {
		raw     *string
		wantInt *int64
		wantF   *float64
		bad     bool
	}{
		{raw: s("5213"), wantInt: i64(5213), wantF: f64(5213)},
		{raw: s("34.6"), wantInt: i64(35), wantF: f64(34.6)},
		{raw: s("0"), wantInt: i64(0), wantF: f64(0)},
		{raw: s(" 250001 "), wantInt: i64(250001), wantF: f64(250001)}, // top-coded: kept
		{raw: s("-666666666")},
		{raw: s("-999999999")},
		{raw: s("-888888888")},
		{raw: s("-555555555")},
		{raw: s("-333333333")},
		{raw: s("-222222222")},
		{raw: s("-100000000")}, // the threshold itself
		{raw: s("-123456789")}, // an undocumented code below the threshold
		{raw: s("-99999999"), wantInt: i64(-99999999), wantF: f64(-99999999)},
		{raw: s("")},
		{raw: nil},
		{raw: s("N"), bad: true},
		{raw: s("NaN"), bad: true},
		{raw: s("1,234"), bad: true},
	} {
		row["v"] = tc.raw
		n, errN := row.Int("v")
		f, errF := row.Float("v")
		name := str(tc.raw)
		if tc.raw != nil {
			name = *tc.raw
		}
		if tc.bad {
			if providers.CodeOf(errN) != "upstream_bad_response" || providers.CodeOf(errF) != "upstream_bad_response" {
				t.Errorf("%q: errors %v / %v, want upstream_bad_response", name, errN, errF)
			}
			continue
		}
		if errN != nil || errF != nil {
			t.Errorf("%q: errors %v / %v", name, errN, errF)
		}
		if str(n) != str(tc.wantInt) || str(f) != str(tc.wantF) {
			t.Errorf("%q: Int %s Float %s, want %s and %s", name, str(n), str(f), str(tc.wantInt), str(tc.wantF))
		}
	}
	if _, err := row.Int("B01003_001E"); providers.CodeOf(err) != "upstream_bad_response" {
		t.Errorf("a missing column gave %v, want upstream_bad_response", err)
	}
	if v, err := row.Int("null"); v != nil || err != nil {
		t.Errorf("a null gave %v, %v", v, err)
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		rows int
		ok   bool
	}{
		{"header and two rows", "[[\"NAME\",\"B01003_001E\",\"state\"],\n[\"a\",\"1\",\"17\"],\n[\"b\",null,\"17\"]]", 2, true},
		{"header only", `[["NAME","state"]]`, 0, true},
		{"numbers instead of strings", `[["B01003_001E","state"],[5213,"11"]]`, 1, true},
		{"empty array", `[]`, 0, false},
		{"empty header", `[[]]`, 0, false},
		{"short row", `[["NAME","state"],["a"]]`, 0, false},
		{"long row", `[["NAME","state"],["a","b","c"]]`, 0, false},
		{"nested value", `[["NAME"],[["a"]]]`, 0, false},
		{"boolean value", `[["NAME"],[true]]`, 0, false},
		{"null header", `[[null]]`, 0, false},
		{"trailing garbage", `[["NAME"]]]`, 0, false},
		{"truncated", `[["NAME"],["a"`, 0, false},
		{"HTML", `<html></html>`, 0, false},
	} {
		rows, err := censusacs.Decode([]byte(tc.body))
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.ok && len(rows) != tc.rows:
			t.Errorf("%s: %d rows, want %d", tc.name, len(rows), tc.rows)
		case !tc.ok:
			if providers.KindOf(err) != providers.KindUpstream || providers.CodeOf(err) != "upstream_bad_response" {
				t.Errorf("%s: got %v, want upstream_bad_response", tc.name, err)
			}
		}
	}
	rows, _ := censusacs.Decode([]byte(`[["B01003_001E","state"],[5213,"11"]]`))
	if n, _ := rows[0].Int("B01003_001E"); str(n) != "5213" {
		t.Errorf("a numeric value decoded to %s", str(n))
	}
}

func TestParseResponseClassifies(t *testing.T) {
	html := http.Header{"Content-Type": {"text/html"}}
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   string
		kind   providers.Kind
		code   string
	}{
		{"204", 204, nil, "", providers.KindNotFound, "tract_not_found"},
		{"200 empty", 200, nil, " \n", providers.KindNotFound, "tract_not_found"},
		{"302", 302, http.Header{"Location": {"https://api.census.gov/data/missing_key.html"}}, "", providers.KindUnavailable, "upstream_misconfigured"},
		{"301", 301, nil, "", providers.KindUnavailable, "upstream_misconfigured"},
		{"200 HTML", 200, html, "<html><title>Invalid Key</title></html>", providers.KindUnavailable, "upstream_misconfigured"},
		{"200 key page with leading blank", 200, nil, "\n  <!DOCTYPE html><html><head><title> Missing Key </title></head></html>", providers.KindUnavailable, "upstream_misconfigured"},
		{"200 untitled key page", 200, html, "<html><body>A valid key must be included with each data API request.</body></html>", providers.KindUnavailable, "upstream_misconfigured"},
		{"200 HTML that is not a key page", 200, nil, "\n  <!DOCTYPE html><html></html>", providers.KindUpstream, "upstream_bad_response"},
		{"200 maintenance page", 200, html, "<html><head><title>Scheduled Maintenance</title></head><body>The API is down for maintenance.</body></html>", providers.KindUpstream, "upstream_bad_response"},
		{"401", 401, nil, "", providers.KindUnavailable, "upstream_misconfigured"},
		{"404", 404, html, "<html>HTTP Status 404</html>", providers.KindUnavailable, "upstream_misconfigured"},
		{"400", 400, nil, "error: unknown/unsupported geography hierarchy", providers.KindUpstream, "upstream_error"},
		{"429", 429, nil, "", providers.KindUpstream, "upstream_rate_limited"},
		{"500 HTML", 500, html, "<html>oops</html>", providers.KindUpstream, "upstream_error"},
		{"502", 502, nil, "", providers.KindUpstream, "upstream_error"},
	} {
		_, err := censusacs.ParseResponse(tc.status, tc.header, []byte(tc.body))
		if providers.KindOf(err) != tc.kind || providers.CodeOf(err) != tc.code {
			t.Errorf("%s: got %v, want kind %d code %s", tc.name, err, tc.kind, tc.code)
		}
	}
	_, err := censusacs.ParseResponse(302, http.Header{"Location": {"https://x.test/missing_key.html?key=abc"}}, nil)
	if e := err.Error(); !strings.Contains(e, "missing_key.html") || strings.Contains(e, "abc") {
		t.Errorf("redirect error %q should name the target without the key", e)
	}
}

func TestVariableListsFitOneRequest(t *testing.T) {
	for name, vars := range map[string][]string{
		"demographics": censusacs.DemographicsVariables, "housing": censusacs.HousingVariables,
	} {
		seen := map[string]bool{}
		for _, v := range vars {
			if seen[v] {
				t.Errorf("%s asks for %s twice", name, v)
			}
			seen[v] = true
		}
		if len(vars)+1 > censusacs.MaxVariables {
			t.Errorf("%s asks for %d names with NAME, more than one request allows", name, len(vars)+1)
		}
	}
	for key, vars := range censusacs.UnitsInStructure {
		for _, v := range vars {
			if !slices.Contains(censusacs.HousingVariables, v) {
				t.Errorf("units_in_structure %s needs %s, which is not requested", key, v)
			}
		}
	}
	for key, v := range censusacs.Bedrooms {
		if !slices.Contains(censusacs.HousingVariables, v) {
			t.Errorf("bedrooms %s needs %s, which is not requested", key, v)
		}
	}
}
