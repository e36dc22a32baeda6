package hudfmr_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
)

// TestConformanceWithRecordings decodes every reference recording of the
// real HUD FMR API through the client, each served with the HTTP status it
// was recorded or documented with.
func TestConformanceWithRecordings(t *testing.T) {
	dir := recordings.Dir(t, "hud-fmr")
	expect := map[string]struct {
		status int
		want   *providers.FairMarketRents
		err    wantErr
	}{
		"fmr_data_county_non_safmr_2017_FROM_DOCS.json": {status: 200, want: &providers.FairMarketRents{
			Year: "2017", AreaName: "Wallingford town, Rutland County, VT", ByBedrooms: rents(758, 769, 948, 1186, 1386)}},
		"fmr_data_county_non_safmr_CONSTRUCTED.json": {status: 200, want: &providers.FairMarketRents{
			Year: "2025", AreaName: "Austin-Round Rock-San Marcos, TX MSA", ByBedrooms: rents(1395, 1541, 1804, 2309, 2730)}},
		"fmr_data_metro_safmr_2024_FROM_DOCS.json": {status: 200, want: &providers.FairMarketRents{
			Year: "2024", AreaName: "Washington-Arlington-Alexandria, DC-VA-MD HUD Metro FMR Area", ByBedrooms: rents(1772, 1803, 2045, 2544, 3015)}},
		"error_401_bad_token_CONSTRUCTED.json": {status: 401,
			err: wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		"error_404_no_data_CONSTRUCTED.json": {status: 404,
			err: wantErr{providers.KindNotFound, "fmr_not_found", 0}},
		// A county list is not a data answer: were the endpoint to send
		// one, the module must call it unreadable rather than guess.
		"list_counties_va_FROM_DOCS.json": {status: 200,
			err: wantErr{providers.KindUpstream, "upstream_error", 0}},
	}
	files := recordings.Files(t, dir, ".json")
	if len(files) == 0 {
		t.Fatalf("no recordings in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		exp, ok := expect[name]
		if !ok {
			t.Errorf("recording %s has no expected outcome; add one to this test", name)
			continue
		}
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, maricopaURL, jsonResponder(exp.status, string(body)))
			got, err := newClient(t, mt, nil).FairMarketRents(context.Background(), maricopaFIPS)
			if exp.want != nil {
				checkRents(t, got, err, exp.want)
			} else {
				checkErr(t, err, exp.err)
			}
		})
	}
}
