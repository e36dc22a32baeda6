package femanfhl_test

import (
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/femanfhl"
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
