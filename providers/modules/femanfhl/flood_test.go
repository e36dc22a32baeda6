package femanfhl_test

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

func TestFloodReadsZonesAndPanels(t *testing.T) {
	tests := []struct {
		name               string
		zonesFile, panFile string
		want               providers.Flood
	}{
		{
			name:      "AE floodway with its panel; -9999.0 is no BFE",
			zonesFile: "zones_ae_floodway_harris_tx.json", panFile: "panels_harris_tx.json",
			want: providers.Flood{
				Zone: str("AE"), ZoneSubtype: str("FLOODWAY"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true), StaticBFE: nil,
				PanelNumber: str("48201C0655L"), PanelEffectiveDate: str("2007-06-18"),
			},
		},
		{
			name:      "AE with a static BFE and no panel",
			zonesFile: "zones_ae_bfe_broward_fl.json", panFile: "panels_empty.json",
			want: providers.Flood{
				Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true), StaticBFE: num(7.5),
			},
		},
		{
			name:      "X shaded is moderate",
			zonesFile: "zones_x_shaded_sacramento_ca.json", panFile: "panels_empty.json",
			want: providers.Flood{
				Zone: str("X"), ZoneSubtype: str("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"),
				RiskLevel: providers.RiskModerate, Description: "0.2% annual chance flood", SpecialFloodHazard: boolean(false),
			},
		},
		{
			name:      "X minimal is low",
			zonesFile: "zones_x_minimal_cook_il.json", panFile: "panels_empty.json",
			want: providers.Flood{
				Zone: str("X"), ZoneSubtype: str("AREA OF MINIMAL FLOOD HAZARD"),
				RiskLevel: providers.RiskLow, Description: "Minimal flood hazard", SpecialFloodHazard: boolean(false),
			},
		},
		{
			name:      "D is undetermined but keeps its zone",
			zonesFile: "zones_d_clark_nv.json", panFile: "panels_empty.json",
			want: providers.Flood{
				Zone: str("D"), RiskLevel: providers.RiskUndetermined, Description: "Possible but undetermined flood hazard", SpecialFloodHazard: boolean(false),
			},
		},
		{
			name:      "no polygon is undetermined, not zone X",
			zonesFile: "zones_empty.json", panFile: "panels_empty.json",
			want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point"},
		},
		{
			name:      "no polygon but a panel",
			zonesFile: "zones_empty.json", panFile: "panels_harris_tx.json",
			want: providers.Flood{
				RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point",
				PanelNumber: str("48201C0655L"), PanelEffectiveDate: str("2007-06-18"),
			},
		},
		{
			name:      "zone boundary: the riskiest, then the one with a BFE; the panel of its county",
			zonesFile: "zones_boundary_franklin_oh.json", panFile: "panels_county_line_franklin_oh.json",
			want: providers.Flood{
				Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true), StaticBFE: num(724.3),
				PanelNumber: str("39049C0178K"), PanelEffectiveDate: str("2008-06-17"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := serveFiles(t, tt.zonesFile, tt.panFile)
			got, err := newClient(t, mt, nil).Flood(context.Background(), houston)
			if err != nil {
				t.Fatalf("Flood: %v", err)
			}
			tt.want.Source = "fema-nfhl"
			if g, w := asJSON(t, got), asJSON(t, &tt.want); g != w {
				t.Errorf("flood section\n got %s\nwant %s", g, w)
			}
			if n := callsTo(mt, 28); n != 1 {
				t.Errorf("zones layer queried %d times, want 1", n)
			}
			if n := callsTo(mt, 3); n != 1 {
				t.Errorf("panels layer queried %d times, want 1", n)
			}
		})
	}
}

// TestFloodSendsDocumentedQuery checks the request against the pattern the
// NFHL documents: longitude first, inSR=4326, intersects, no geometry, Esri
// JSON, and only fields each layer has.
func TestFloodSendsDocumentedQuery(t *testing.T) {
	var mu sync.Mutex
	got := map[string]url.Values{}
	record := func(file []byte) httpmock.Responder {
		return func(req *http.Request) (*http.Response, error) {
			mu.Lock()
			got[req.URL.Path] = req.URL.Query()
			mu.Unlock()
			if req.Method != http.MethodGet {
				t.Errorf("method %s, want GET", req.Method)
			}
			return httpmock.NewBytesResponse(http.StatusOK, file), nil
		}
	}
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, layerURL(28), record(testdata(t, "zones_x_minimal_cook_il.json")))
	mt.RegisterResponder(http.MethodGet, layerURL(3), record(testdata(t, "panels_harris_tx.json")))

	if _, err := newClient(t, mt, nil).Flood(context.Background(), providers.Point{Lat: 41.8781, Lng: -87.6298}); err != nil {
		t.Fatalf("Flood: %v", err)
	}

	common := url.Values{
		"geometry":       {"-87.6298,41.8781"},
		"geometryType":   {"esriGeometryPoint"},
		"inSR":           {"4326"},
		"spatialRel":     {"esriSpatialRelIntersects"},
		"returnGeometry": {"false"},
		"f":              {"json"},
	}
	want := map[string]string{
		"/arcgis/rest/services/public/NFHL/MapServer/28/query": "FLD_ZONE,ZONE_SUBTY,SFHA_TF,STATIC_BFE,DFIRM_ID",
		"/arcgis/rest/services/public/NFHL/MapServer/3/query":  "FIRM_PAN,EFF_DATE,PANEL_TYP,DFIRM_ID",
	}
	if len(got) != len(want) {
		t.Fatalf("queried paths %v, want %v", keys(got), keys(want))
	}
	for path, fields := range want {
		q, ok := got[path]
		if !ok {
			t.Errorf("no query on %s", path)
			continue
		}
		w := url.Values{"outFields": {fields}}
		for k, v := range common {
			w[k] = v
		}
		if q.Encode() != w.Encode() {
			t.Errorf("query on %s\n got %s\nwant %s", path, q.Encode(), w.Encode())
		}
	}
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Errorf("%d upstream calls, want 2", n)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFloodQueriesLayersConcurrently holds each layer's answer until the
// other layer's query has arrived: a client asking one after the other would
// never get an answer and time out.
func TestFloodQueriesLayersConcurrently(t *testing.T) {
	zonesAsked, panelsAsked := make(chan struct{}), make(chan struct{})
	meet := func(mine, other chan struct{}, body []byte) httpmock.Responder {
		return func(req *http.Request) (*http.Response, error) {
			close(mine)
			select {
			case <-other:
				return httpmock.NewBytesResponse(http.StatusOK, body), nil
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
		}
	}
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, layerURL(28), meet(zonesAsked, panelsAsked, testdata(t, "zones_x_minimal_cook_il.json")))
	mt.RegisterResponder(http.MethodGet, layerURL(3), meet(panelsAsked, zonesAsked, testdata(t, "panels_empty.json")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	got, err := newClient(t, mt, nil).Flood(ctx, houston)
	if err != nil {
		t.Fatalf("Flood: %v (are the layers queried one after the other?)", err)
	}
	if got.Zone == nil || *got.Zone != "X" {
		t.Errorf("zone %v, want X", got.Zone)
	}
}

func TestFloodUsesConfiguredLayers(t *testing.T) {
	mt := httpmock.NewMockTransport()
	serveBody(mt, 27, testdata(t, "zones_ae_floodway_harris_tx.json"))
	serveBody(mt, 5, testdata(t, "panels_harris_tx.json"))
	c := newClient(t, mt, map[string]string{"zones_layer": "27", "panels_layer": "5"})
	got, err := c.Flood(context.Background(), houston)
	if err != nil {
		t.Fatalf("Flood: %v", err)
	}
	if got.Zone == nil || *got.Zone != "AE" || got.PanelNumber == nil || *got.PanelNumber != "48201C0655L" {
		t.Errorf("got %s, want zone AE on panel 48201C0655L from layers 27 and 5", asJSON(t, got))
	}
	if callsTo(mt, 27) != 1 || callsTo(mt, 5) != 1 || mt.GetTotalCallCount() != 2 {
		t.Errorf("calls %v, want one on each of layers 27 and 5", mt.GetCallCountInfo())
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		s       providers.Settings
		mention string
	}{
		{"unknown option", providers.Settings{Options: map[string]string{"zone_layer": "28"}}, "zone_layer"},
		{"layer not a number", providers.Settings{Options: map[string]string{"zones_layer": "flood"}}, "zones_layer"},
		{"negative layer", providers.Settings{Options: map[string]string{"panels_layer": "-3"}}, "panels_layer"},
		{"same layer twice", providers.Settings{Options: map[string]string{"zones_layer": "3"}}, "zones_layer"},
		{"relative base URL", providers.Settings{BaseURL: "hazards.fema.gov/arcgis"}, "base_url"},
		{"base URL not http", providers.Settings{BaseURL: "ftp://hazards.fema.gov/x"}, "base_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := femanfhl.New(tt.s)
			if err == nil {
				t.Fatalf("New accepted %+v and returned %v; start-up should fail", tt.s, c)
			}
			e := wantError(t, err, providers.KindInvalid, "invalid_config")
			if !strings.Contains(e.Message, tt.mention) {
				t.Errorf("message %q does not name %s", e.Message, tt.mention)
			}
		})
	}
}

func TestModuleRegistered(t *testing.T) {
	m, ok := providers.Default.Lookup("fema-nfhl")
	if !ok {
		t.Fatal("module fema-nfhl is not registered")
	}
	if m.DefaultBaseURL != "https://hazards.fema.gov/arcgis/rest/services/public/NFHL/MapServer" {
		t.Errorf("DefaultBaseURL %q", m.DefaultBaseURL)
	}
	if names := providers.Default.Names(providers.RoleFlood); !contains(names, "fema-nfhl") {
		t.Errorf("flood modules %v do not include fema-nfhl", names)
	}
	v, err := providers.Default.Build(providers.RoleFlood, "fema-nfhl", providers.Settings{Options: map[string]string{"bogus": "1"}})
	if err == nil || v != nil {
		t.Errorf("Build with an unknown option = %v, %v; want an error and no module", v, err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestFloodRejectsBadPoints(t *testing.T) {
	for _, p := range []providers.Point{{Lat: 91, Lng: 0}, {Lat: 0, Lng: -181}, {Lat: math.NaN(), Lng: 0}} {
		mt := httpmock.NewMockTransport()
		_, err := newClient(t, mt, nil).Flood(context.Background(), p)
		wantError(t, err, providers.KindInvalid, "invalid_parameter")
		if n := mt.GetTotalCallCount(); n != 0 {
			t.Errorf("point %+v: %d upstream calls, want 0", p, n)
		}
	}
}
