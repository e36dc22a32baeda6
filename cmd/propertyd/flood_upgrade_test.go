package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
	"github.com/propertyd/propertyd/store"
)

// oldFloodValue is a flood section as the version before panel_number and
// description stored it. Its panel is not the one the fake NFHL answers, so
// a response holding it was read from the store.
const oldFloodValue = `{"zone":"AE","zone_subtype":"FLOODWAY","risk_level":"high","special_flood_hazard_area":true,` +
	`"base_flood_elevation_feet":112.5,"firm_panel":"51760C0099Z","firm_panel_effective_date":"2009-07-16","source":"fema-nfhl"}`

// TestFloodStoredByAnOlderVersionReadsInTheNewShape: after an upgrade the
// database still holds flood values in the old shape, fresh for up to 30
// days and served stale past that. Both forms of the section must read
// them with panel_number and description, never firm_panel.
func TestFloodStoredByAnOlderVersionReadsInTheNewShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expiry time.Duration // of the stored value, from now
		status string        // meta.sections.flood.status
	}{
		{"fresh", 24 * time.Hour, "ok"},
		{"stale while the upstream fails", -time.Hour, "stale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.db")
			ctx := context.Background()
			db, err := store.Open(ctx, path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			err = db.PutSection(ctx, providers.SectionRecord{
				Section: providers.SectionFlood, Key: providers.Point{Lat: 37.5600, Lng: -77.4720}.Key(),
				Data: []byte(oldFloodValue), Source: femanfhl.Name,
				FetchedAt: now.Add(-40 * 24 * time.Hour), ExpiresAt: now.Add(tc.expiry),
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			mt := upstreams()
			providertest.RegisterFEMAFailure(mt, femanfhl.DefaultBaseURL, providertest.FEMAZonesLayer, providertest.FEMAFailure{Status: 500})
			m := startMain(t, testConfig(t, path), mt)

			q := url.Values{"street": {"2200 W Broad St"}, "city": {"Richmond"}, "state": {"VA"}, "include": {"flood"}}
			status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
			if status != 200 {
				t.Fatalf("lookup: %d %v", status, body)
			}
			d := body["data"].(map[string]any)
			if got := body["meta"].(map[string]any)["sections"].(map[string]any)["flood"].(map[string]any)["status"]; got != tc.status {
				t.Errorf("meta.sections.flood.status = %v, want %s", got, tc.status)
			}
			checkUpgradedFlood(t, "include=flood", d["flood"], "zone_code", "flood_risk_level")

			status, body, _ = getJSON(t, m, fmt.Sprintf("/v1/properties/%d/flood", int64(d["id"].(float64))))
			if status != 200 {
				t.Fatalf("flood: %d %v", status, body)
			}
			checkUpgradedFlood(t, "/flood", body["data"], "zone", "risk_level")
		})
	}
}

// checkUpgradedFlood checks a flood section read from oldFloodValue.
func checkUpgradedFlood(t *testing.T, form string, v any, zone, risk string) {
	t.Helper()
	f, _ := v.(map[string]any)
	want := map[string]any{
		zone: "AE", risk: "high", "zone_subtype": "FLOODWAY", "description": "1% annual chance flood",
		"panel_number": "51760C0099Z", "panel_effective_date": "2009-07-16", "base_flood_elevation_feet": 112.5,
	}
	for k, w := range want {
		if f[k] != w {
			t.Errorf("%s: %s = %v, want %v (a value stored by the older version, read after the upgrade): %v", form, k, f[k], w, f)
		}
	}
	for k := range f {
		if strings.HasPrefix(k, "firm_") {
			t.Errorf("%s: the old member %s is still served: %v", form, k, f)
		}
	}
}
