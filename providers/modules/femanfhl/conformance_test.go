package femanfhl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// TestConformance runs every reference recording of the real NFHL through
// the client: zone bodies as the zones layer's answer, panel bodies as the
// panels layer's, error bodies (HTTP 200) as either. Recordings without an
// entry below are still decoded and checked by the kind their name says.
func TestConformance(t *testing.T) {
	dir := recordings.Dir(t, "fema-nfhl")
	files := recordings.Files(t, dir, ".json")
	if len(files) == 0 {
		t.Fatalf("no recordings in %s", dir)
	}
	known := map[string]*providers.Flood{
		"zone_x_minimal_king_county_wa_CONSTRUCTED.json": {
			Zone: str("X"), ZoneSubtype: str("AREA OF MINIMAL FLOOD HAZARD"), RiskLevel: providers.RiskLow, Description: "Minimal flood hazard",
			SpecialFloodHazard: boolean(false),
		},
		"zone_ae_floodway_king_county_wa_CONSTRUCTED.json": {
			Zone: str("AE"), ZoneSubtype: str("FLOODWAY"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
			SpecialFloodHazard: boolean(true),
		},
		"zone_a_and_x_shaded_hamilton_in_CONSTRUCTED.json": {
			Zone: str("A"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood", SpecialFloodHazard: boolean(true),
		},
		"zone_ae_with_static_bfe_CONSTRUCTED.json": {
			Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood", SpecialFloodHazard: boolean(true), StaticBFE: num(12),
		},
		"no_features_unmapped_area_CONSTRUCTED.json": {RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point"},
		"firm_panel_hamilton_in_CONSTRUCTED.json": {
			RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point", PanelNumber: str("18057C0233G"), PanelEffectiveDate: str("2014-11-19"),
		},
	}
	knownErrors := map[string]femanfhl.ArcGISError{
		"error_failed_query_http200_CONSTRUCTED.json":   {Code: 400, Message: "Failed to execute query."},
		"error_invalid_params_http200_CONSTRUCTED.json": {Code: 400, Message: "Invalid or missing input parameters."},
	}
	seen := 0
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			isPanel := strings.HasPrefix(name, "firm_panel")
			isError := strings.HasPrefix(name, "error_")
			layers := []int{femanfhl.DefaultZonesLayer}
			if isPanel {
				layers = []int{femanfhl.DefaultPanelsLayer}
			}
			if isError {
				layers = []int{femanfhl.DefaultZonesLayer, femanfhl.DefaultPanelsLayer}
			}
			for _, layer := range layers {
				mt := httpmock.NewMockTransport()
				serveBody(mt, femanfhl.DefaultZonesLayer, testdata(t, "zones_empty.json"))
				serveBody(mt, femanfhl.DefaultPanelsLayer, testdata(t, "panels_empty.json"))
				serveBody(mt, layer, body)
				got, err := newClient(t, mt, nil).Flood(context.Background(), houston)

				if isError {
					e := wantError(t, err, providers.KindUpstream, "upstream_error")
					var ae *femanfhl.ArcGISError
					if !errors.As(e, &ae) {
						t.Fatalf("layer %d: cause %v is not an *ArcGISError", layer, e.Err)
					}
					if want, ok := knownErrors[name]; ok {
						seen++
						if ae.Code != want.Code || ae.Message != want.Message {
							t.Errorf("layer %d: ArcGIS error %d %q, want %d %q", layer, ae.Code, ae.Message, want.Code, want.Message)
						}
					} else if ae.Message == "" {
						t.Errorf("layer %d: ArcGIS error without a message: %+v", layer, ae)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Flood: %v", err)
				}
				if want, ok := known[name]; ok {
					seen++
					w := *want
					w.Source = "fema-nfhl"
					if g, w := asJSON(t, got), asJSON(t, &w); g != w {
						t.Errorf("flood section\n got %s\nwant %s", g, w)
					}
					continue
				}
				if isPanel && got.PanelNumber == nil {
					t.Errorf("panel recording decoded to no panel: %s", asJSON(t, got))
				}
				if !isPanel && got.RiskLevel == "" {
					t.Errorf("zone recording decoded to no risk level: %s", asJSON(t, got))
				}
			}
		})
	}
	if want := len(known) + 2*len(knownErrors); seen != want {
		t.Errorf("checked %d recordings against their expected values, want %d: is a recording missing?", seen, want)
	}
}
