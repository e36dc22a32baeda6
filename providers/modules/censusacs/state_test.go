package censusacs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
)

// TestStateDemographicsAnswersEveryTractInOneCall: the tracts of a state
// come from one request, for=tract:*&in=state:17, each decoded as a single
// tract's would be (sentinels become null); other states' tracts are not
// in the answer.
func TestStateDemographicsAnswersEveryTractInOneCall(t *testing.T) {
	mt := httpmock.NewMockTransport()
	remote := cookData()
	remote["B19013_001E"] = "-666666666"
	providertest.RegisterACS(mt, base, map[string]map[string]string{
		cook.GEOID(): cookData(), cookRemote.GEOID(): remote, travis.GEOID(): travisData(),
	})
	var urls []string
	c := newClientWith(t, &http.Client{Transport: recordURLs(mt, &urls)}, map[string]string{"year": "2022"})
	got, err := c.StateDemographics(context.Background(), "17")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[cook.GEOID()] == nil || got[cookRemote.GEOID()] == nil {
		t.Fatalf("state 17 answered tracts %v; want the two Cook County tracts", keys(got))
	}
	d := got[cook.GEOID()]
	if d.CensusTract != "081402" || d.StateFIPS != "17" || d.CountyFIPS != "031" {
		t.Errorf("tract %q state %q county %q", d.CensusTract, d.StateFIPS, d.CountyFIPS)
	}
	checkField(t, "total_population", d.TotalPopulation, i64(4187))
	checkField(t, "owner_occupied_pct", d.OwnerOccupiedPct, f64(62.9))
	checkField(t, "median_household_income of the suppressed tract", got[cookRemote.GEOID()].MedianHouseholdIncome, (*int64)(nil))
	if d.Vintage != "2022 ACS 5-year" || d.Source != censusacs.Name {
		t.Errorf("source %q vintage %q", d.Source, d.Vintage)
	}
	if len(urls) != 1 || !strings.Contains(urls[0], "&for=tract:*&in=state:17") || strings.Contains(urls[0], "county") {
		t.Fatalf("requests %q; want one asking for=tract:*&in=state:17", urls)
	}
}

// TestStateHousingMatchesHousing: a tract's housing figures from the
// state-wide answer are those of a single-tract request.
func TestStateHousingMatchesHousing(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{travis.GEOID(): travisData(), cook.GEOID(): cookData()})
	c := newClient(t, mt, map[string]string{"year": "2022"})
	all, err := c.StateHousing(context.Background(), "48")
	if err != nil {
		t.Fatal(err)
	}
	one, err := c.Housing(context.Background(), travis)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(all[travis.GEOID()])
	b, _ := json.Marshal(one)
	if len(all) != 1 || string(a) != string(b) {
		t.Fatalf("state answer (%d tracts) %s\nsingle tract %s", len(all), a, b)
	}
}

// TestStateAnswerWithoutTractsIsBad: every state the ACS covers has
// tracts, so a state-wide answer without any (204, an empty 200 body, a
// header alone) is an unreadable answer, as [] and null are, never a
// state without figures that would be remembered as such.
func TestStateAnswerWithoutTractsIsBad(t *testing.T) {
	header := `[["NAME","B01003_001E","state","county","tract"]]`
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"204", 204, ""},
		{"empty 200", 200, ""},
		{"blank 200", 200, " \n"},
		{"header alone", 200, header},
		{"empty array", 200, "[]"},
		{"null", 200, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			providertest.RegisterACSError(mt, base, tc.status, tc.body, http.Header{"Content-Type": {"application/json;charset=utf-8"}})
			c := newClient(t, mt, map[string]string{"year": "2022"})
			got, err := c.StateDemographics(context.Background(), "56")
			if got != nil {
				t.Errorf("StateDemographics answered %d tracts", len(got))
			}
			wantErr(t, err, providers.KindUpstream, "upstream_bad_response")
			_, err = c.StateHousing(context.Background(), "56")
			wantErr(t, err, providers.KindUpstream, "upstream_bad_response")
		})
	}
}

// TestStateNotCoveredHasNoTractsWithoutACall: the island areas are not in
// the ACS; asking for one is no tract at all, and no call.
func TestStateNotCoveredHasNoTractsWithoutACall(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{cook.GEOID(): cookData()})
	c := newClient(t, mt, map[string]string{"year": "2022"})
	for _, state := range []string{"60", "66", "69", "78"} {
		got, err := c.StateDemographics(context.Background(), state)
		if err != nil || len(got) != 0 {
			t.Fatalf("state %s: got %v, %v; want no tracts and no error", state, got, err)
		}
	}
	if n := providertest.ACSCalls(mt, base); n != 0 {
		t.Fatalf("states the ACS does not cover made %d calls", n)
	}
}

// TestStateErrorsAsTractErrors: a refused key or an upstream failure of a
// state-wide request says what a single tract's would; a malformed state
// never reaches the upstream.
func TestStateErrorsAsTractErrors(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACSWithKey(mt, base, "good", map[string]map[string]string{cook.GEOID(): cookData()})
	c := newClient(t, mt, map[string]string{"year": "2022", "api_key": "bad"})
	_, err := c.StateHousing(context.Background(), "17")
	wantErr(t, err, providers.KindUnavailable, "upstream_misconfigured")

	providertest.RegisterACSError(mt, base, 503, "down", http.Header{"Retry-After": {"7"}})
	_, err = c.StateDemographics(context.Background(), "17")
	wantErr(t, err, providers.KindUpstream, "upstream_error")

	before := providertest.ACSCalls(mt, base)
	for _, bad := range []string{"", "1", "017", "1'", "CA", "1*"} {
		_, err := c.StateDemographics(context.Background(), bad)
		wantErr(t, err, providers.KindInvalid, "invalid_parameter")
	}
	if n := providertest.ACSCalls(mt, base) - before; n != 0 {
		t.Fatalf("malformed states made %d upstream calls", n)
	}
}

// TestStateAnswerFromTheRecording: the recorded answer of several DC tracts
// (real values) read as a state-wide answer gives each tract its row.
func TestStateAnswerFromTheRecording(t *testing.T) {
	body, err := os.ReadFile(recordings.Dir(t, "census-acs") + "/tract_dc_annotations_2022_RECONSTRUCTED.json")
	if err != nil {
		t.Fatal(err)
	}
	mt := httpmock.NewMockTransport()
	serve(mt, 200, string(body), "Content-Type", "application/json;charset=utf-8")
	rows, err := censusacs.ParseResponse(200, http.Header{"Content-Type": {"application/json"}}, body)
	if err != nil || len(rows) != 3 {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Raw(censusacs.ColState) != "11" {
			t.Fatalf("row of state %q in a DC answer", r.Raw(censusacs.ColState))
		}
	}
	// The recording lacks the profile's variables: decoding it as the
	// demographics of the state fails as unreadable, whole.
	_, err = newClient(t, mt, map[string]string{"year": "2022"}).StateDemographics(context.Background(), "11")
	wantErr(t, err, providers.KindUpstream, "upstream_bad_response")
}

func TestCovers(t *testing.T) {
	for state, want := range map[string]bool{"01": true, "06": true, "11": true, "56": true, "72": true,
		"60": false, "66": false, "78": false, "": false, "6": false, "CA": false} {
		if got := censusacs.Covers(state); got != want {
			t.Errorf("Covers(%q) = %v, want %v", state, got, want)
		}
	}
}

func TestStateURL(t *testing.T) {
	got := censusacs.StateURL(base, "2022", []string{"B01003_001E", "B19013_001E"}, "06", "k&1")
	want := base + "/2022/acs/acs5?get=NAME,B01003_001E,B19013_001E&for=tract:*&in=state:06&key=k%261"
	if got != want {
		t.Fatalf("StateURL:\n got %s\nwant %s", got, want)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// recordURLs is a transport that notes each request's URL and passes it on.
func recordURLs(next http.RoundTripper, urls *[]string) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.Contains(r.URL.Path, "/acs/acs5") {
			*urls = append(*urls, r.URL.String())
		}
		return next.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
