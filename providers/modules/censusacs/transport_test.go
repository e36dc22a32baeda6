package censusacs_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
)

// TestAnswerTooLargeIsUnreadable: no ACS answer for one tract is anywhere
// near a megabyte, so a longer one is an answer the module cannot read,
// whatever it holds, and is not read to its end.
func TestAnswerTooLargeIsUnreadable(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serve(mt, 200, "[["+strings.Repeat(`"NAME",`, 200_000)+`"tract"]]`, "Content-Type", "application/json")
	_, err := newClient(t, mt, nil).Demographics(context.Background(), cook)
	e := wantErr(t, err, providers.KindUpstream, "upstream_bad_response")
	if e.Message != "the census ACS API sent an answer that could not be read" {
		t.Errorf("message %q", e.Message)
	}
}

// TestClientTimeoutIsAnUpstreamTimeout: the configured client's own
// timeout is the upstream not answering in time, not an unreachable one,
// and the API key stays out of the error.
func TestClientTimeoutIsAnUpstreamTimeout(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterRegexpResponder(http.MethodGet, censusRoute(),
		httpmock.NewStringResponder(200, readTestdataString("demographics_cook_081402.json")).Delay(time.Minute))
	c := newClientWith(t, &http.Client{Transport: mt, Timeout: 30 * time.Millisecond}, map[string]string{"api_key": "s3cr3t-key"})
	_, err := c.Demographics(context.Background(), cook)
	wantErr(t, err, providers.KindTimeout, "upstream_timeout")
	if strings.Contains(err.Error(), "s3cr3t-key") {
		t.Errorf("error %q shows the API key", err)
	}
}
