package femanfhl_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// TestUpgradeReadsValuesAnOlderVersionStored: flood values are kept as JSON
// for 30 days and served stale past that, so those stored before the panel
// was renamed and the description added must read in the new shape.
func TestUpgradeReadsValuesAnOlderVersionStored(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
	}{
		{
			name: "a floodway with its panel",
			old: `{"zone":"AE","zone_subtype":"FLOODWAY","risk_level":"high","special_flood_hazard_area":true,` +
				`"base_flood_elevation_feet":112.5,"firm_panel":"51760C0042E","firm_panel_effective_date":"2009-07-16","source":"fema-nfhl"}`,
			new: `{"zone":"AE","zone_subtype":"FLOODWAY","risk_level":"high","description":"1% annual chance flood",` +
				`"special_flood_hazard_area":true,"base_flood_elevation_feet":112.5,"panel_number":"51760C0042E",` +
				`"panel_effective_date":"2009-07-16","source":"fema-nfhl"}`,
		},
		{
			name: "shaded X without a panel",
			old: `{"zone":"X","zone_subtype":"0.2 PCT ANNUAL CHANCE FLOOD HAZARD","risk_level":"moderate","special_flood_hazard_area":false,` +
				`"base_flood_elevation_feet":null,"firm_panel":null,"firm_panel_effective_date":null,"source":"fema-nfhl"}`,
			new: `{"zone":"X","zone_subtype":"0.2 PCT ANNUAL CHANCE FLOOD HAZARD","risk_level":"moderate","description":"0.2% annual chance flood",` +
				`"special_flood_hazard_area":false,"base_flood_elevation_feet":null,"panel_number":null,"panel_effective_date":null,"source":"fema-nfhl"}`,
		},
		{
			name: "coastal VE",
			old: `{"zone":"VE","zone_subtype":null,"risk_level":"high","special_flood_hazard_area":true,` +
				`"base_flood_elevation_feet":0,"firm_panel":"12086C0327L","firm_panel_effective_date":null,"source":"fema-nfhl"}`,
			new: `{"zone":"VE","zone_subtype":null,"risk_level":"high","description":"Coastal high velocity wave action",` +
				`"special_flood_hazard_area":true,"base_flood_elevation_feet":0,"panel_number":"12086C0327L","panel_effective_date":null,"source":"fema-nfhl"}`,
		},
		{
			name: "no polygon mapped, a panel",
			old: `{"zone":null,"zone_subtype":null,"risk_level":"undetermined","special_flood_hazard_area":null,` +
				`"base_flood_elevation_feet":null,"firm_panel":"53057C0100D","firm_panel_effective_date":"2005-09-16","source":"fema-nfhl"}`,
			new: `{"zone":null,"zone_subtype":null,"risk_level":"undetermined","description":"No flood zone mapped at this point",` +
				`"special_flood_hazard_area":null,"base_flood_elevation_feet":null,"panel_number":"53057C0100D",` +
				`"panel_effective_date":"2005-09-16","source":"fema-nfhl"}`,
		},
		{
			name: "D",
			old: `{"zone":"D","zone_subtype":null,"risk_level":"undetermined","special_flood_hazard_area":false,` +
				`"base_flood_elevation_feet":null,"firm_panel":null,"firm_panel_effective_date":null,"source":"fema-nfhl"}`,
			new: `{"zone":"D","zone_subtype":null,"risk_level":"undetermined","description":"Possible but undetermined flood hazard",` +
				`"special_flood_hazard_area":false,"base_flood_elevation_feet":null,"panel_number":null,"panel_effective_date":null,"source":"fema-nfhl"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := femanfhl.Upgrade([]byte(tt.old))
			if string(got) != tt.new {
				t.Errorf("a value stored by the older version would be served as\n%s\nwant\n%s", got, tt.new)
			}
			// Nothing of the old shape is left for a strict client to trip on.
			dec := json.NewDecoder(bytes.NewReader(got))
			dec.DisallowUnknownFields()
			var f providers.Flood
			if err := dec.Decode(&f); err != nil {
				t.Errorf("the upgraded value is not a providers.Flood: %v", err)
			}
			// What Flood returns now is already current.
			if again := femanfhl.Upgrade(got); string(again) != string(got) {
				t.Errorf("a current value was rewritten:\n%s\nto\n%s", got, again)
			}
		})
	}
}

// TestUpgradeLeavesCurrentValuesAlone: the service calls Upgrade on every
// stored flood value it reads, so a current value must come back untouched
// (the very same bytes, nothing decoded), and anything that is not a stored
// flood object must not be made into one.
func TestUpgradeLeavesCurrentValuesAlone(t *testing.T) {
	current := []byte(`{"zone":"X","zone_subtype":"AREA OF MINIMAL FLOOD HAZARD","risk_level":"low","description":"Minimal flood hazard",` +
		`"special_flood_hazard_area":false,"base_flood_elevation_feet":null,"panel_number":null,"panel_effective_date":null,"source":"fema-nfhl"}`)
	if got := femanfhl.Upgrade(current); &got[0] != &current[0] || len(got) != len(current) {
		t.Errorf("a current value was copied or rewritten: %s", got)
	}
	for _, in := range []string{``, `null`, `[]`, `"zone"`, `{"zone":`} {
		if got := femanfhl.Upgrade([]byte(in)); string(got) != in {
			t.Errorf("Upgrade(%q) = %q, want it unchanged", in, got)
		}
	}
	if testing.AllocsPerRun(100, func() { femanfhl.Upgrade(current) }) != 0 {
		t.Error("reading a current value allocates; Upgrade runs on every stored flood value read")
	}
}
