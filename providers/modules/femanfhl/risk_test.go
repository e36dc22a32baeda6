package femanfhl_test

import (
	"slices"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

func TestRiskLevel(t *testing.T) {
	tests := []struct {
		zone, subtype string
		want          string
	}{
		// Special Flood Hazard Areas.
		{"A", "", providers.RiskHigh},
		{"AE", "", providers.RiskHigh},
		{"AE", "FLOODWAY", providers.RiskHigh},
		{"AH", "", providers.RiskHigh},
		{"AO", "", providers.RiskHigh},
		{"AR", "", providers.RiskHigh},
		{"A99", "", providers.RiskHigh},
		{"V", "", providers.RiskHigh},
		{"VE", "", providers.RiskHigh},
		{"ve", "", providers.RiskHigh},
		{" AE ", "", providers.RiskHigh},
		// Moderate: B and shaded X.
		{"B", "", providers.RiskModerate},
		{"X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", providers.RiskModerate},
		{"X", "0.2 pct annual chance flood hazard", providers.RiskModerate},
		{"X", "  0.2  PCT ANNUAL CHANCE   FLOOD HAZARD ", providers.RiskModerate},
		{"X", "0.2% ANNUAL CHANCE FLOOD HAZARD", providers.RiskModerate},
		{"X", "0.2 PERCENT ANNUAL CHANCE FLOOD HAZARD", providers.RiskModerate},
		{"X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD CONTAINED IN CHANNEL", providers.RiskModerate},
		{"X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD IN COASTAL ZONE", providers.RiskModerate},
		{"X", "1 PCT DEPTH LESS THAN 1 FOOT", providers.RiskModerate},
		{"X", "1 PCT FUTURE CONDITIONS", providers.RiskModerate},
		{"X", "1 PCT FUTURE CONDITIONS, FLOODWAY", providers.RiskModerate},
		{"X", "AREA WITH REDUCED FLOOD RISK DUE TO LEVEE", providers.RiskModerate},
		// Low: C and minimal X.
		{"C", "", providers.RiskLow},
		{"X", "AREA OF MINIMAL FLOOD HAZARD", providers.RiskLow},
		{"X", "", providers.RiskLow},
		{"x", "area of minimal flood hazard", providers.RiskLow},
		// Undetermined.
		{"D", "", providers.RiskUndetermined},
		{"D", "AREA WITH FLOOD RISK DUE TO LEVEE", providers.RiskUndetermined},
		{"OPEN WATER", "", providers.RiskUndetermined},
		{"AREA NOT INCLUDED", "", providers.RiskUndetermined},
		{"", "", providers.RiskUndetermined},
		{"ZZ", "", providers.RiskUndetermined},
		// A subtype does not make a zone what it is not.
		{"B", "AREA OF MINIMAL FLOOD HAZARD", providers.RiskModerate},
		{"C", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", providers.RiskLow},
		{"D", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", providers.RiskUndetermined},
		{"X", "10.2 PCT ANNUAL CHANCE FLOOD HAZARD", providers.RiskLow},
	}
	for _, tt := range tests {
		if got := femanfhl.RiskLevel(tt.zone, tt.subtype); got != tt.want {
			t.Errorf("RiskLevel(%q, %q) = %q; a property there would be shown as %q risk, want %q",
				tt.zone, tt.subtype, got, got, tt.want)
		}
	}
}

func TestDescription(t *testing.T) {
	tests := []struct {
		zone, subtype string
		want          string
	}{
		// Special Flood Hazard Areas: the 1% annual chance flood.
		{"A", "", "1% annual chance flood"},
		{"AE", "", "1% annual chance flood"},
		{"AE", "FLOODWAY", "1% annual chance flood"},
		{"AH", "", "1% annual chance flood"},
		{"AO", "", "1% annual chance flood"},
		{"AR", "", "1% annual chance flood"},
		{"A99", "", "1% annual chance flood"},
		{" ae ", "", "1% annual chance flood"},
		// Coastal zones.
		{"V", "", "Coastal high velocity wave action"},
		{"VE", "", "Coastal high velocity wave action"},
		{"ve", "", "Coastal high velocity wave action"},
		// X shaded and B.
		{"X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", "0.2% annual chance flood"},
		{"X", "0.2% ANNUAL CHANCE FLOOD HAZARD", "0.2% annual chance flood"},
		{"X", "0.2 PERCENT ANNUAL CHANCE FLOOD HAZARD", "0.2% annual chance flood"},
		{"x", " 0.2  pct annual chance flood hazard ", "0.2% annual chance flood"},
		{"X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD CONTAINED IN CHANNEL", "0.2% annual chance flood"},
		{"X", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD IN COASTAL ZONE", "0.2% annual chance flood"},
		{"B", "", "0.2% annual chance flood"},
		{"X", "1 PCT DEPTH LESS THAN 1 FOOT", "Moderate flood hazard"},
		{"X", "1 PCT FUTURE CONDITIONS", "Moderate flood hazard"},
		{"X", "AREA WITH REDUCED FLOOD RISK DUE TO LEVEE", "Moderate flood hazard"},
		// X unshaded and C.
		{"X", "AREA OF MINIMAL FLOOD HAZARD", "Minimal flood hazard"},
		{"X", "", "Minimal flood hazard"},
		{"X", "10.2 PCT ANNUAL CHANCE FLOOD HAZARD", "Minimal flood hazard"},
		{"C", "", "Minimal flood hazard"},
		// Undetermined, and what is not a hazard zone.
		{"D", "", "Possible but undetermined flood hazard"},
		{"D", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", "Possible but undetermined flood hazard"},
		{"OPEN WATER", "", "Open water"},
		{"AREA NOT INCLUDED", "", "Area not included in the flood map"},
		{"ZZ", "", "Undetermined flood hazard"},
		// No polygon mapped at the point.
		{"", "", "No flood zone mapped at this point"},
		{"  ", "", "No flood zone mapped at this point"},
	}
	for _, tt := range tests {
		if got := femanfhl.Description(tt.zone, tt.subtype); got != tt.want {
			t.Errorf("Description(%q, %q) = %q; a property there would be described as %q, want %q",
				tt.zone, tt.subtype, got, got, tt.want)
		}
	}
}

// TestDescriptionAgreesWithRiskLevel: a description never tells a reader
// less or more than the risk level beside it.
func TestDescriptionAgreesWithRiskLevel(t *testing.T) {
	byRisk := map[string][]string{
		providers.RiskHigh:         {"1% annual chance flood", "Coastal high velocity wave action"},
		providers.RiskModerate:     {"0.2% annual chance flood", "Moderate flood hazard"},
		providers.RiskLow:          {"Minimal flood hazard"},
		providers.RiskUndetermined: {"Possible but undetermined flood hazard", "Open water", "Area not included in the flood map", "Undetermined flood hazard", "No flood zone mapped at this point"},
	}
	zones := []string{"A", "AE", "AH", "AO", "AR", "A99", "V", "VE", "B", "C", "X", "D", "OPEN WATER", "AREA NOT INCLUDED", "", "ZZ"}
	subtypes := []string{"", "FLOODWAY", "0.2 PCT ANNUAL CHANCE FLOOD HAZARD", "1 PCT FUTURE CONDITIONS",
		"AREA WITH REDUCED FLOOD RISK DUE TO LEVEE", "AREA OF MINIMAL FLOOD HAZARD"}
	for _, z := range zones {
		for _, s := range subtypes {
			risk, desc := femanfhl.RiskLevel(z, s), femanfhl.Description(z, s)
			if !slices.Contains(byRisk[risk], desc) {
				t.Errorf("zone %q subtype %q: risk %s but described as %q", z, s, risk, desc)
			}
		}
	}
}
