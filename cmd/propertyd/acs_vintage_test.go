package main

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/store"
)

// TestDemographicsOfAnOlderACSReleaseAreRefreshed: the database holds the
// demographics of a tract from the 2022 release, fresh for months. Once the
// module learns that the API serves 2023, the 2022 value is served stale
// while it is refreshed, then the 2023 value is served, and meta says so.
func TestDemographicsOfAnOlderACSReleaseAreRefreshed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	err = db.PutSection(ctx, providers.SectionRecord{
		Section: providers.SectionDemographics, Key: "51760041000",
		Data:   []byte(`{"census_tract":"041000","state_fips":"51","county_fips":"760","total_population":1111,"source":"census-acs","vintage":"2022 ACS 5-year"}`),
		Source: censusacs.Name, Vintage: "2022 ACS 5-year",
		FetchedAt: now.Add(-30 * 24 * time.Hour), ExpiresAt: now.Add(300 * 24 * time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	mt := upstreams()
	providertest.RegisterACSDiscovery(mt, censusacs.DefaultBaseURL, 2021, 2022, 2023)
	m := startMain(t, testConfig(t, path), mt)

	q := url.Values{"street": {"2200 W Broad St"}, "city": {"Richmond"}, "state": {"VA"}, "include": {"demographics"}}
	get := func() (meta map[string]any, population any) {
		t.Helper()
		status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
		if status != 200 {
			t.Fatalf("lookup: %d %v", status, body)
		}
		d, _ := body["data"].(map[string]any)["demographics"].(map[string]any)
		return body["meta"].(map[string]any)["sections"].(map[string]any)["demographics"].(map[string]any), d["total_population"]
	}
	sawStale := false
	deadline := time.Now().Add(10 * time.Second)
	for {
		meta, pop := get()
		switch {
		case meta["vintage"] == "2022 ACS 5-year" && pop == float64(1111) && (meta["status"] == "ok" || meta["status"] == "stale"):
			// Before the module learned of 2023 the value is fresh; after,
			// it is stale (with its age) until the refresh stores 2023.
			if meta["status"] == "stale" {
				sawStale = true
				if meta["age_seconds"] == nil || meta["cache"] != "hit" {
					t.Fatalf("stale 2022 value: meta %v; want cache hit and age_seconds", meta)
				}
			}
		case meta["vintage"] == "2023 ACS 5-year" && pop == float64(3875) && meta["status"] == "ok":
			if !sawStale {
				t.Fatal("the 2023 value replaced the 2022 one without the 2022 one being served stale first")
			}
			// Each ACS module discovers on its own; housing's loads Virginia
			// beside the demographics, so it may have asked too.
			if n := providertest.ACSDiscoveryCalls(mt, censusacs.DefaultBaseURL); n < 1 || n > 2 {
				t.Fatalf("discovery asked %d times, want once per ACS module", n)
			}
			return
		default:
			t.Fatalf("demographics meta %v, population %v: neither the stored 2022 value nor the 2023 one", meta, pop)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 2022 value was never replaced (last meta %v)", meta)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
