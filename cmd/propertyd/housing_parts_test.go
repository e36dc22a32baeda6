package main

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/hudfmr"
)

// TestHousingSaysItsRentsFailed: with hud-fmr configured and HUD failing,
// housing is answered with the ACS figures, status partial, the failure's
// code and fair_market_rents named in failed_parts, and is not charged,
// in include= as on its own endpoint; once HUD answers, housing is ok with
// the rents, at full cost.
func TestHousingSaysItsRentsFailed(t *testing.T) {
	mt := upstreams()
	hud := regexp.MustCompile(`^` + regexp.QuoteMeta(hudfmr.DefaultBaseURL) + `/data/`)
	mt.RegisterRegexpResponder(http.MethodGet, hud, httpmock.NewStringResponder(http.StatusServiceUnavailable, `<html><body>Service Unavailable</body></html>`))
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	fmr := cfg.Providers["fair_market_rent"]
	fmr.Disabled = false
	fmr.Options = map[string]string{"token": providertest.HUDFMRToken}
	cfg.applyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	m := startMain(t, cfg, mt)

	q := url.Values{"street": {"2200 W Broad St"}, "city": {"Richmond"}, "state": {"VA"}, "include": {"housing"}}
	status, body, hdr := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	if status != 200 {
		t.Fatalf("lookup: %d %v", status, body)
	}
	housing, _ := body["data"].(map[string]any)["housing"].(map[string]any)
	if housing == nil || housing["total_housing_units"] == nil || housing["fair_market_rents"] != nil {
		t.Fatalf("housing with HUD down = %v, want the ACS figures without fair_market_rents", housing)
	}
	meta := sectionMeta(body, "housing")
	if meta["status"] != "partial" || meta["error"] != "upstream_error" || fmt.Sprint(meta["failed_parts"]) != "[fair_market_rents]" {
		t.Fatalf("housing meta with HUD down = %v, want status partial, error upstream_error, failed_parts [fair_market_rents]", meta)
	}
	if got := hdr.Get("X-Request-Cost"); got != "1" {
		t.Errorf("X-Request-Cost = %s with HUD down, want 1: the lookup, not the housing it could not give whole", got)
	}
	if got := hdr.Get("X-RateLimit-Remaining"); got != "149" {
		t.Errorf("X-RateLimit-Remaining = %s after the first request, want 149 of 150: the housing was given back", got)
	}

	id := fmt.Sprint(body["data"].(map[string]any)["id"])
	status, body, hdr = getJSON(t, m, "/v1/properties/"+id+"/housing")
	if status != 200 {
		t.Fatalf("GET .../housing: %d %v", status, body)
	}
	sec := body["meta"].(map[string]any)["section"].(map[string]any)
	if sec["status"] != "partial" || sec["error"] != "upstream_error" || fmt.Sprint(sec["failed_parts"]) != "[fair_market_rents]" {
		t.Fatalf("GET .../housing meta with HUD down = %v, want partial naming fair_market_rents", sec)
	}
	if got := hdr.Get("X-Request-Cost"); got != "1" {
		t.Errorf("GET .../housing X-Request-Cost = %s with HUD down, want 1 (2 less the section)", got)
	}

	// HUD answers again: housing is whole, and paid for.
	providertest.RegisterHUDFMR(mt, hudfmr.DefaultBaseURL, map[string]providertest.HUDCounty{
		"51760": {CountyName: "Richmond city, VA", MetroName: "Richmond, VA MSA", AreaName: "Richmond, VA MSA",
			Rents: [5]int{1180, 1260, 1430, 1820, 2190}},
	})
	mt.RegisterRegexpResponder(http.MethodGet, hud, nil) // drop the failing responder
	status, body, hdr = getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	meta = sectionMeta(body, "housing")
	housing, _ = body["data"].(map[string]any)["housing"].(map[string]any)
	if status != 200 || meta["status"] != "ok" || meta["error"] != nil || meta["failed_parts"] != nil || housing["fair_market_rents"] == nil {
		t.Fatalf("housing once HUD answers: %d meta %v data %v, want ok with the rents", status, meta, housing)
	}
	if got := hdr.Get("X-Request-Cost"); got != "2" {
		t.Errorf("X-Request-Cost = %s with housing whole, want 2", got)
	}
}
