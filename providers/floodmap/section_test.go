package floodmap_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/floodmap"
)

func str(s string) *string   { return &s }
func num(v float64) *float64 { return &v }
func boolean(v bool) *bool   { return &v }

// asJSON renders a flood section as the API shows it.
func asJSON(t *testing.T, f *providers.Flood) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func day(y int, m time.Month, d int) floodmap.Date {
	return floodmap.EsriDate(float64(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).UnixMilli()))
}

func TestSection(t *testing.T) {
	ae := floodmap.HazardArea{Zone: str("AE"), SFHA: str("T"), StaticBFE: num(-9999), DFIRMID: str("39049C")}
	tests := []struct {
		name   string
		zones  []floodmap.HazardArea
		panels []floodmap.Panel
		want   providers.Flood
	}{
		{
			name: "nothing mapped is undetermined with no zone, not zone X",
			want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point"},
		},
		{
			name:  "-9999 is no BFE, however written",
			zones: []floodmap.HazardArea{{Zone: str("AE"), Subtype: str("FLOODWAY"), SFHA: str("T"), StaticBFE: num(-9999.0)}},
			want: providers.Flood{Zone: str("AE"), ZoneSubtype: str("FLOODWAY"), RiskLevel: providers.RiskHigh,
				Description: "1% annual chance flood", SpecialFloodHazard: boolean(true)},
		},
		{
			name:  "a BFE of zero feet is a number; DEPTH is not reported",
			zones: []floodmap.HazardArea{{Zone: str("AO"), SFHA: str("T"), StaticBFE: num(0), Depth: num(2)}},
			want: providers.Flood{Zone: str("AO"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true), StaticBFE: num(0)},
		},
		{
			name: "blank text, as a .dbf pads it, is null and the rest is trimmed",
			zones: []floodmap.HazardArea{{Zone: str(" X "), Subtype: str("   "), SFHA: str("F "), StaticBFE: num(-9999),
				DFIRMID: str("")}},
			want: providers.Flood{Zone: str("X"), RiskLevel: providers.RiskLow, Description: "Minimal flood hazard",
				SpecialFloodHazard: boolean(false)},
		},
		{
			name: "on a boundary the riskiest wins, then the SFHA, then a BFE",
			zones: []floodmap.HazardArea{
				{Zone: str("X"), Subtype: str("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"), SFHA: str("F"), StaticBFE: num(-9999)},
				{Zone: str("A99"), SFHA: str("F"), StaticBFE: num(-9999)},
				ae,
				{Zone: str("AE"), SFHA: str("T"), StaticBFE: num(724.3)},
				{Zone: str("AE"), SFHA: str("T"), StaticBFE: num(730)},
			},
			want: providers.Flood{Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true), StaticBFE: num(724.3)},
		},
		{
			name:  "SFHA_TF T raises a zone outside the table to high",
			zones: []floodmap.HazardArea{{Zone: str("A12"), SFHA: str("t")}},
			want: providers.Flood{Zone: str("A12"), RiskLevel: providers.RiskHigh, Description: "Undetermined flood hazard",
				SpecialFloodHazard: boolean(true)},
		},
		{
			name:  "an area without a zone comes after one with a zone",
			zones: []floodmap.HazardArea{{SFHA: str("T")}, {Zone: str("D")}},
			want:  providers.Flood{Zone: str("D"), RiskLevel: providers.RiskUndetermined, Description: "Possible but undetermined flood hazard"},
		},
		{
			name:  "on a county line the panel of the zone's map wins over a newer one",
			zones: []floodmap.HazardArea{ae},
			panels: []floodmap.Panel{
				{Panel: str("39045C0091G"), Effective: day(2016, 2, 4), DFIRMID: str("39045C")},
				{Panel: str("39049C0178K"), Effective: day(2008, 6, 17), DFIRMID: str("39049c")},
			},
			want: providers.Flood{Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
				SpecialFloodHazard: boolean(true), PanelNumber: str("39049C0178K"), PanelEffectiveDate: str("2008-06-17")},
		},
		{
			name: "of one map's panels the most recent; one without a number is skipped",
			panels: []floodmap.Panel{
				{Panel: str("48201C0660L"), Effective: day(2007, 6, 18)},
				{Panel: str(" "), Effective: day(2020, 1, 1)},
				{Panel: str("48201C0665M"), Effective: day(2017, 1, 6)},
			},
			want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point",
				PanelNumber: str("48201C0665M"), PanelEffectiveDate: str("2017-01-06")},
		},
		{
			name:   "FEMA's far-future 8/8/8888 is no date",
			panels: []floodmap.Panel{{Panel: str("48201C0660L"), Effective: day(8888, 8, 8)}},
			want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point",
				PanelNumber: str("48201C0660L")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := floodmap.Section(tt.zones, tt.panels)
			if g, w := asJSON(t, got), asJSON(t, &tt.want); g != w {
				t.Errorf("flood section\n got %s\nwant %s", g, w)
			}
		})
	}
}
