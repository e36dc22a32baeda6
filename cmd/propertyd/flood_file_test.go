package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// startBesideFloodMap starts an instance on database whose geocoder knows
// three addresses of Washington on the NFHL fixture's panel (one in its
// floodway, one in its AO, one in no hazard area) and one in Richmond,
// off the map, which the fake NFHL answers; it returns the instance and a
// count of the calls made to FEMA.
func startBesideFloodMap(t *testing.T, database string) (*Main, func() int) {
	t.Helper()
	dc := func(street string, lat, lng float64) providertest.CensusPlace {
		return providertest.CensusPlace{Street: street, City: "WASHINGTON", State: "DC", Zip: "20024", Lat: lat, Lng: lng,
			CountyName: "District of Columbia", StateFIPS: "11", CountyFIPS: "001", Tract: "010200", Block: "1000"}
	}
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL,
		dc("900 OHIO DR SW", 38.874, -77.038),
		dc("200 MARYLAND AVE SW", 38.886, -77.016),
		dc("1500 S CAPITOL ST SE", 38.855, -77.01),
		providertest.CensusPlace{Street: "2200 W BROAD ST", City: "RICHMOND", State: "VA", Zip: "23220", Lat: 37.5600, Lng: -77.4720,
			CountyName: "Richmond city", StateFIPS: "51", CountyFIPS: "760", Tract: "041000", Block: "1003"})
	providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, providertest.FloodArea{
		MinLat: 37.55, MinLng: -77.48, MaxLat: 37.57, MaxLng: -77.46,
		Zone: "X", Subtype: "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", StaticBFE: providertest.FEMANoBFE,
		DFIRMID: "51760C", Panel: "51760C0041E", PanelEffective: time.Date(2009, 7, 16, 0, 0, 0, 0, time.UTC),
	})
	m := startMain(t, testConfig(t, database), mt)
	return m, func() int {
		n := 0
		for k, c := range mt.GetCallCountInfo() {
			if strings.HasPrefix(k, "GET "+femanfhl.DefaultBaseURL) {
				n += c
			}
		}
		return n
	}
}

// TestFloodInsideALoadedMapCallsNoFEMA loads the NFHL fixture with data
// load flood, then serves the flood section of addresses on its panel, in
// include=flood and on the section's own route: each is the map's (the
// zone the fixture has there, or none where no hazard area is mapped,
// with the panel), says it was read from the file with the map's
// effective date, matches the OpenAPI document, and FEMA is called for
// none of them. An address off the map is answered by FEMA as before.
func TestFloodInsideALoadedMapCallsNoFEMA(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		r := dataRun("load", "flood", "-config", factsConfigFile(t, database), "-failures", filepath.Join(t.TempDir(), "f.csv"), nfhlZip)
		if r.code != exitOK {
			t.Fatalf("data load flood: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		m, femaCalls := startBesideFloodMap(t, database)
		oa := oaNewConformance(t, "http://"+m.Addr())
		get := func(name, path string) map[string]any {
			t.Helper()
			_, body := oa.do(oaAPICall{name: name, method: "GET", path: path, key: demoKey, status: 200})
			return oaDecode(t, body)
		}

		for _, c := range []struct {
			street  string
			zone    any // data.flood.zone_code
			subtype any
			risk    string
		}{
			{"900 Ohio Drive SW", "AE", "FLOODWAY", "high"},
			{"200 Maryland Avenue SW", "AO", nil, "high"},
			{"1500 South Capitol Street SE", nil, nil, "undetermined"},
		} {
			q := url.Values{"street": {c.street}, "city": {"Washington"}, "state": {"DC"}, "include": {"flood"}}
			body := get("lookup "+c.street, "/v1/properties/lookup?"+q.Encode())
			d := body["data"].(map[string]any)
			f, _ := d["flood"].(map[string]any)
			if f["zone_code"] != c.zone || f["zone_subtype"] != c.subtype || f["flood_risk_level"] != c.risk ||
				f["panel_number"] != "1100010019C" || f["panel_effective_date"] != "2010-09-27" ||
				f["source"] != "fema-nfhl-file" || f["vintage"] != "2010-09-27" {
				t.Errorf("%s: flood = %v; want zone %v (%v, %s) on panel 1100010019C, from fema-nfhl-file of 2010-09-27",
					c.street, f, c.zone, c.subtype, c.risk)
			}
			sec := body["meta"].(map[string]any)["sections"].(map[string]any)["flood"].(map[string]any)
			if sec["status"] != "ok" || sec["source"] != "fema-nfhl-file" || sec["vintage"] != "2010-09-27" {
				t.Errorf("%s: meta.sections.flood = %v; want ok from fema-nfhl-file of 2010-09-27", c.street, sec)
			}

			body = get("flood of "+c.street, fmt.Sprintf("/v1/properties/%d/flood", int64(d["id"].(float64))))
			f = body["data"].(map[string]any)
			if f["zone"] != c.zone || f["risk_level"] != c.risk || f["source"] != "fema-nfhl-file" || f["vintage"] != "2010-09-27" {
				t.Errorf("%s: /flood = %v; want zone %v from fema-nfhl-file of 2010-09-27", c.street, f, c.zone)
			}
			if s := body["meta"].(map[string]any)["section"].(map[string]any); s["source"] != "fema-nfhl-file" || s["vintage"] != "2010-09-27" {
				t.Errorf("%s: /flood meta.section = %v; want fema-nfhl-file of 2010-09-27", c.street, s)
			}
		}
		if n := femaCalls(); n != 0 {
			t.Errorf("lookups on the loaded map's panel made %d FEMA calls, want 0", n)
		}

		q := url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"}, "include": {"flood"}}
		body := get("lookup off the map", "/v1/properties/lookup?"+q.Encode())
		f := body["data"].(map[string]any)["flood"].(map[string]any)
		if _, dated := f["vintage"]; f["source"] != "fema-nfhl" || f["zone_code"] != "X" || dated || femaCalls() != 2 {
			t.Errorf("off every loaded map: flood %v after %d FEMA calls; want fema-nfhl's X, undated, after 2 (zones and panels)", f, femaCalls())
		}
	})
}
