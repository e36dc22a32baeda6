package censusacs_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
)

// TestACSFakeSpeaksTheUpstreamFormat checks the fake other packages test
// against: its answers must look like the real service's.
func TestACSFakeSpeaksTheUpstreamFormat(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACSWithKey(mt, base, "k1", map[string]map[string]string{
		cook.GEOID():       {"B01003_001E": "4187", "B19013_001E": "-666666666"},
		cookRemote.GEOID(): {"B01003_001E": "12", "NAME": "Census Tract 9801; Cook County; Illinois"},
		travis.GEOID():     {"B01003_001E": "5120"},
	})
	hc := &http.Client{Transport: mt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(query string) (int, http.Header, string) {
		t.Helper()
		resp, err := hc.Get(base + "/2023/acs/acs5?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	for _, tc := range []struct {
		name, query string
		status      int
		body        string
		ctype       string
	}{
		{
			"one tract", "get=NAME,B19013_001E,B01003_001E,B25077_001E&for=tract:081402&in=state:17%20county:031&key=k1",
			200, "[[\"NAME\",\"B19013_001E\",\"B01003_001E\",\"B25077_001E\",\"state\",\"county\",\"tract\"],\n" +
				"[\"Census Tract 814.02\",\"-666666666\",\"4187\",\"-888888888\",\"17\",\"031\",\"081402\"]]",
			"application/json",
		},
		{
			"all tracts of a county, repeated in=", "get=B01003_001E,NAME&for=tract:*&in=state:17&in=county:031&key=k1",
			200, "[[\"B01003_001E\",\"NAME\",\"state\",\"county\",\"tract\"],\n" +
				"[\"4187\",\"Census Tract 814.02\",\"17\",\"031\",\"081402\"],\n" +
				"[\"12\",\"Census Tract 9801; Cook County; Illinois\",\"17\",\"031\",\"980100\"]]",
			"application/json",
		},
		{
			"state only, plus sign for the space", "get=GEO_ID&for=tract:001307&in=state:48&key=k1",
			200, "[[\"GEO_ID\",\"state\",\"county\",\"tract\"],\n[\"1400000US48453001307\",\"48\",\"453\",\"001307\"]]",
			"application/json",
		},
		{"unknown tract", "get=NAME&for=tract:999999&in=state:17+county:031&key=k1", 204, "", ""},
		{"unknown variable", "get=NAME,group(B19013)&for=tract:081402&in=state:17+county:031&key=k1",
			400, "error: unknown variable 'group(B19013)'", "text/plain"},
		{"bad hierarchy", "get=NAME&for=county:031&in=state:17&key=k1",
			400, "error: unknown/unsupported geography hierarchy", "text/plain"},
		{"tract without state", "get=NAME&for=tract:081402&key=k1",
			400, "error: unknown/unsupported geography hierarchy", "text/plain"},
		{"51 names", "get=NAME" + strings.Repeat(",B01003_001E", 50) + "&for=tract:081402&in=state:17+county:031&key=k1",
			400, "error: 'get' is limited to 50 variables", "text/plain"},
		{"wrong key", "get=NAME&for=tract:081402&in=state:17+county:031&key=k2",
			200, providertest.ACSInvalidKeyPage, "text/html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, h, body := get(tc.query)
			if status != tc.status || body != tc.body || !strings.HasPrefix(h.Get("Content-Type"), tc.ctype) {
				t.Errorf("got %d %q\n%s\nwant %d %q\n%s", status, h.Get("Content-Type"), body, tc.status, tc.ctype, tc.body)
			}
		})
	}
	t.Run("missing key", func(t *testing.T) {
		status, h, _ := get("get=NAME&for=tract:081402&in=state:17+county:031")
		if status != http.StatusFound || h.Get("Location") != base+"/missing_key.html" {
			t.Fatalf("got %d to %q, want a 302 to the Missing Key page", status, h.Get("Location"))
		}
		resp, err := hc.Get(h.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), "<title>Missing Key</title>") {
			t.Errorf("the Missing Key page answered %d %q", resp.StatusCode, b)
		}
	})
	if n := providertest.ACSCalls(mt, base); n != 10 {
		t.Errorf("ACSCalls = %d, want 10 data requests", n)
	}
}
