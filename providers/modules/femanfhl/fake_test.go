package femanfhl_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// harrisFloodway is an AE floodway around houston.
var harrisFloodway = providertest.FloodArea{
	MinLat: 29.75, MinLng: -95.38, MaxLat: 29.77, MaxLng: -95.36,
	Zone: "AE", Subtype: "FLOODWAY", SFHA: true, StaticBFE: providertest.FEMANoBFE, DFIRMID: "48201C",
	Panel: "48201C0655L", PanelType: "Countywide, Panel Printed",
	PanelEffective: time.Date(2007, 6, 18, 0, 0, 0, 0, time.UTC),
}

// Areas of a made-up Ohio river bank, split at longitude -83.00 and latitude
// 39.96: the river (AE with a BFE) to the west, its shaded fringe to the east.
var (
	riverAE = providertest.FloodArea{
		MinLat: 39.95, MinLng: -83.01, MaxLat: 39.97, MaxLng: -83.00,
		Zone: "AE", SFHA: true, StaticBFE: 718.4, DFIRMID: "39049C",
		Panel: "39049C0327K", PanelEffective: time.Date(2008, 6, 17, 0, 0, 0, 0, time.UTC),
	}
	fringeX = providertest.FloodArea{
		MinLat: 39.95, MinLng: -83.00, MaxLat: 39.97, MaxLng: -82.99,
		Zone: "X", Subtype: "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", StaticBFE: providertest.FEMANoBFE, DFIRMID: "39049C",
	}
)

func fakeFlood(t *testing.T, p providers.Point, areas ...providertest.FloodArea) (*providers.Flood, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, testBase, areas...)
	f, err := newClient(t, mt, nil).Flood(context.Background(), p)
	if err != nil {
		t.Fatalf("Flood(%+v): %v", p, err)
	}
	return f, mt
}

func TestFloodAgainstFakeNFHL(t *testing.T) {
	tests := []struct {
		name  string
		p     providers.Point
		areas []providertest.FloodArea
		want  providers.Flood
	}{
		{
			name: "inside a floodway", p: houston, areas: []providertest.FloodArea{harrisFloodway},
			want: providers.Flood{
				Zone: str("AE"), ZoneSubtype: str("FLOODWAY"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true),
				PanelNumber:        str("48201C0655L"), PanelEffectiveDate: str("2007-06-18"),
			},
		},
		{
			name: "outside every area", p: providers.Point{Lat: 30.5, Lng: -96}, areas: []providertest.FloodArea{harrisFloodway},
			want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point"},
		},
		{
			name: "inside the shaded fringe", p: providers.Point{Lat: 39.96, Lng: -82.995},
			areas: []providertest.FloodArea{riverAE, fringeX},
			want: providers.Flood{
				Zone: str("X"), ZoneSubtype: str("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"),
				RiskLevel: providers.RiskModerate, Description: "0.2% annual chance flood", SpecialFloodHazard: boolean(false),
			},
		},
		{
			name: "on the river's edge the AE wins", p: providers.Point{Lat: 39.96, Lng: -83.00},
			areas: []providertest.FloodArea{fringeX, riverAE},
			want: providers.Flood{
				Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood", SpecialFloodHazard: boolean(true),
				StaticBFE: num(718.4), PanelNumber: str("39049C0327K"), PanelEffectiveDate: str("2008-06-17"),
			},
		},
		{
			name: "two high zones: the one inside the SFHA wins", p: houston,
			areas: []providertest.FloodArea{
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "A99", SFHA: false, StaticBFE: providertest.FEMANoBFE},
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "AO", SFHA: true, StaticBFE: providertest.FEMANoBFE},
			},
			want: providers.Flood{Zone: str("AO"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood", SpecialFloodHazard: boolean(true)},
		},
		{
			name: "two SFHA zones: the one with a BFE wins", p: houston,
			areas: []providertest.FloodArea{
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "AE", Subtype: "FLOODWAY", SFHA: true, StaticBFE: providertest.FEMANoBFE},
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "AE", SFHA: true, StaticBFE: 41.2},
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "AE", SFHA: true, StaticBFE: 43},
			},
			want: providers.Flood{Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood", SpecialFloodHazard: boolean(true), StaticBFE: num(41.2)},
		},
		{
			name: "a zone outside the table but flagged SFHA is high", p: houston,
			areas: []providertest.FloodArea{{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "A12", SFHA: true, StaticBFE: providertest.FEMANoBFE}},
			want:  providers.Flood{Zone: str("A12"), RiskLevel: providers.RiskHigh, Description: "Undetermined flood hazard", SpecialFloodHazard: boolean(true)},
		},
		{
			name: "a BFE of zero feet is a number", p: houston,
			areas: []providertest.FloodArea{{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "VE", SFHA: true, StaticBFE: 0}},
			want:  providers.Flood{Zone: str("VE"), RiskLevel: providers.RiskHigh, Description: "Coastal high velocity wave action", SpecialFloodHazard: boolean(true), StaticBFE: num(0)},
		},
		{
			name: "D next to minimal X: D is a zone, X is lower-risk but known", p: houston,
			areas: []providertest.FloodArea{
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "D", StaticBFE: providertest.FEMANoBFE},
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Zone: "X", Subtype: "AREA OF MINIMAL FLOOD HAZARD", StaticBFE: providertest.FEMANoBFE},
			},
			want: providers.Flood{Zone: str("X"), ZoneSubtype: str("AREA OF MINIMAL FLOOD HAZARD"), RiskLevel: providers.RiskLow, Description: "Minimal flood hazard", SpecialFloodHazard: boolean(false)},
		},
		{
			name: "a panel without a date", p: houston,
			areas: []providertest.FloodArea{{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, Panel: "48201C0660L"}},
			want:  providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point", PanelNumber: str("48201C0660L")},
		},
		{
			name: "two panels of one county: the most recent", p: houston,
			areas: []providertest.FloodArea{
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, DFIRMID: "48201C", Panel: "48201C0660L", PanelEffective: time.Date(2007, 6, 18, 0, 0, 0, 0, time.UTC)},
				{MinLat: 29, MinLng: -96, MaxLat: 30, MaxLng: -95, DFIRMID: "48201C", Panel: "48201C0665M", PanelEffective: time.Date(2017, 1, 6, 0, 0, 0, 0, time.UTC)},
			},
			want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point", PanelNumber: str("48201C0665M"), PanelEffectiveDate: str("2017-01-06")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, mt := fakeFlood(t, tt.p, tt.areas...)
			tt.want.Source = "fema-nfhl"
			if g, w := asJSON(t, got), asJSON(t, &tt.want); g != w {
				t.Errorf("flood section\n got %s\nwant %s", g, w)
			}
			if n := mt.GetTotalCallCount(); n != 2 {
				t.Errorf("%d upstream calls, want 2", n)
			}
		})
	}
}

// TestFloodThroughRegistry builds the module as cmd/propertyd does, with no
// base URL, and checks it reaches the public NFHL address.
func TestFloodThroughRegistry(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, harrisFloodway)
	v, err := providers.Default.Build(providers.RoleFlood, "fema-nfhl", providers.Settings{Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	fp, ok := v.(providers.FloodProvider)
	if !ok {
		t.Fatalf("module built a %T, not a FloodProvider", v)
	}
	f, err := fp.Flood(context.Background(), houston)
	if err != nil {
		t.Fatal(err)
	}
	if f.RiskLevel != providers.RiskHigh || f.Source != "fema-nfhl" {
		t.Errorf("got %s, want a high-risk answer from fema-nfhl", asJSON(t, f))
	}
	info := mt.GetCallCountInfo()
	if info["GET "+femanfhl.DefaultBaseURL+"/28/query"] != 1 || info["GET "+femanfhl.DefaultBaseURL+"/3/query"] != 1 {
		t.Errorf("calls %v, want one on each layer of the public NFHL", info)
	}
}

// TestFakeNFHLSpeaksLikeTheService keeps providertest's fake honest: its
// bodies carry the same keys and field descriptions as the recordings, and
// it refuses a field the layer lacks the way the service does.
func TestFakeNFHLSpeaksLikeTheService(t *testing.T) {
	dir := recordings.Dir(t, "fema-nfhl")
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, testBase, harrisFloodway)
	hc := &http.Client{Transport: mt}
	get := func(layer int, fields string) map[string]any {
		q := url.Values{
			"geometry": {"-95.3698,29.7604"}, "geometryType": {"esriGeometryPoint"}, "inSR": {"4326"},
			"spatialRel": {"esriSpatialRelIntersects"}, "outFields": {fields}, "returnGeometry": {"false"}, "f": {"json"},
		}
		resp, err := hc.Get(layerURL(layer) + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("fake answered HTTP %d", resp.StatusCode)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("fake body %s: %v", b, err)
		}
		return m
	}
	recording := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skipf("recording %s: %v", name, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		layer     int
		fields    string
		recording string
	}{
		{28, "FLD_ZONE,ZONE_SUBTY,SFHA_TF,STATIC_BFE,DFIRM_ID", "zone_ae_floodway_king_county_wa_CONSTRUCTED.json"},
		{3, "FIRM_PAN,EFF_DATE,PANEL_TYP,DFIRM_ID", "firm_panel_hamilton_in_CONSTRUCTED.json"},
	} {
		fake, rec := get(c.layer, c.fields), recording(c.recording)
		for _, k := range []string{"displayFieldName", "fieldAliases", "fields"} {
			if !reflect.DeepEqual(fake[k], rec[k]) {
				t.Errorf("layer %d %s: fake %v, recording %v", c.layer, k, fake[k], rec[k])
			}
		}
		fa := fake["features"].([]any)[0].(map[string]any)["attributes"].(map[string]any)
		ra := rec["features"].([]any)[0].(map[string]any)["attributes"].(map[string]any)
		for k := range ra {
			if _, ok := fa[k]; !ok {
				t.Errorf("layer %d: fake attributes lack %s", c.layer, k)
			}
		}
		if len(fa) != len(ra) {
			t.Errorf("layer %d: fake attributes %v, recording %v", c.layer, fa, ra)
		}
	}
	bad := get(28, "FLD_ZONE,EFF_DATE")
	if e, ok := bad["error"].(map[string]any); !ok || e["message"] != "Failed to execute query." {
		t.Errorf("asking the zones layer for EFF_DATE got %v; the service fails the query", bad)
	}
}
