package walkscore_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/kits/providertest"
)

// TestConformanceWithRecordings decodes every reference recording of the
// real Walk Score API through the client, served both with HTTP 200 and with
// the HTTP status the upstream is reported to send with its body status: the
// outcome must not depend on which.
func TestConformanceWithRecordings(t *testing.T) {
	dir := recordings.Dir(t, "walkscore")
	expect := map[string]struct {
		status int // body status
		want   *providers.WalkScore
		err    wantErr
	}{
		"score_nyc_2017_recompacted.json": {status: 1,
			want: &providers.WalkScore{WalkScore: 100, Description: "Walker's Paradise"}},
		"score_seattle_2015_via_proxy.json": {status: 1,
			want: &providers.WalkScore{WalkScore: 96, Description: "Walker's Paradise"}},
		"score_vancouver_transit_null_2018.json": {status: 1,
			want: &providers.WalkScore{WalkScore: 61, Description: "Somewhat Walkable", BikeScore: intp(65)}},
		"score_with_transit_bike_CONSTRUCTED.json": {status: 1,
			want: &providers.WalkScore{WalkScore: 98, Description: "Walker's Paradise", TransitScore: intp(100), BikeScore: intp(75)}},
		"status_2_score_pending_CONSTRUCTED.json": {status: 2,
			err: wantErr{providers.KindUpstream, "score_pending", 0}},
		"status_30_invalid_latlon_CONSTRUCTED.json": {status: 30,
			err: wantErr{providers.KindUpstream, "upstream_rejected_input", 0}},
		"status_40_invalid_key_CONSTRUCTED.json": {status: 40,
			err: wantErr{providers.KindUnavailable, "upstream_misconfigured", 0}},
		"status_41_quota_exceeded_CONSTRUCTED.json": {status: 41,
			err: wantErr{providers.KindUpstream, "upstream_rate_limited", 0}},
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
		statuses := []int{http.StatusOK}
		if hs := providertest.WalkScoreHTTPStatus(exp.status); hs != http.StatusOK {
			statuses = append(statuses, hs)
		}
		for _, httpStatus := range statuses {
			t.Run(name+"/HTTP"+strconv.Itoa(httpStatus), func(t *testing.T) {
				mt := httpmock.NewMockTransport()
				mt.RegisterResponder(http.MethodGet, scoreURL, jsonResponder(httpStatus, string(body)))
				got, err := newClient(t, mt).WalkScore(context.Background(), portland, "")
				if exp.want != nil {
					checkScore(t, got, err, exp.want)
				} else {
					checkErr(t, err, exp.err)
				}
			})
		}
	}
}
