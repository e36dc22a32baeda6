package floodmap

import (
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// RiskLevel maps a FEMA flood zone (FLD_ZONE) and its subtype (ZONE_SUBTY)
// to a propertyd risk level, so every consumer reads zones the same way:
//
//   - A, AE, AH, AO, AR, A99, V, VE (the Special Flood Hazard Areas, 1%
//     annual chance): providers.RiskHigh;
//   - B, and X "shaded": a 0.2 PCT ANNUAL CHANCE FLOOD HAZARD subtype and
//     its variants (CONTAINED IN CHANNEL, IN COASTAL ZONE, ...), the 1 PCT
//     areas FEMA keeps outside the SFHA (DEPTH LESS THAN 1 FOOT, FUTURE
//     CONDITIONS, ...) and AREA WITH REDUCED FLOOD RISK DUE TO LEVEE:
//     providers.RiskModerate;
//   - C, and any other X (AREA OF MINIMAL FLOOD HAZARD, or no subtype):
//     providers.RiskLow;
//   - D, OPEN WATER, AREA NOT INCLUDED, an empty or unknown zone:
//     providers.RiskUndetermined.
//
// Matching ignores case and runs of spaces; subtypes spelled with "%" or
// "PERCENT" match like "PCT". It is pure and safe for concurrent use.
func RiskLevel(zone, subtype string) string {
	switch normalize(zone) {
	case "A", "AE", "AH", "AO", "AR", "A99", "V", "VE":
		return providers.RiskHigh
	case "B":
		return providers.RiskModerate
	case "C":
		return providers.RiskLow
	case "X":
		if shadedX(subtype) {
			return providers.RiskModerate
		}
		return providers.RiskLow
	}
	return providers.RiskUndetermined
}

// Description says in words what a FEMA flood zone (FLD_ZONE) and its
// subtype (ZONE_SUBTY) mean, for people reading a flood section; it follows
// the legend of a FIRM:
//
//   - A, AE, AH, AO, AR, A99: "1% annual chance flood";
//   - V, VE: "Coastal high velocity wave action";
//   - B, and X with a 0.2 PCT ANNUAL CHANCE FLOOD HAZARD subtype (or one
//     of its variants): "0.2% annual chance flood";
//   - any other shaded X (the 1 PCT areas FEMA keeps outside the SFHA, an
//     AREA WITH REDUCED FLOOD RISK DUE TO LEVEE): "Moderate flood hazard";
//   - C, and X unshaded (AREA OF MINIMAL FLOOD HAZARD, or no subtype):
//     "Minimal flood hazard";
//   - D: "Possible but undetermined flood hazard";
//   - OPEN WATER: "Open water"; AREA NOT INCLUDED: "Area not included in
//     the flood map";
//   - an empty zone, which is what a point without a mapped polygon has:
//     "No flood zone mapped at this point";
//   - any other zone: "Undetermined flood hazard".
//
// Matching is RiskLevel's. It is pure and safe for concurrent use.
func Description(zone, subtype string) string {
	switch normalize(zone) {
	case "A", "AE", "AH", "AO", "AR", "A99":
		return "1% annual chance flood"
	case "V", "VE":
		return "Coastal high velocity wave action"
	case "B":
		return "0.2% annual chance flood"
	case "C":
		return "Minimal flood hazard"
	case "X":
		switch {
		case pointTwoPct(subtype):
			return "0.2% annual chance flood"
		case shadedX(subtype):
			return "Moderate flood hazard"
		}
		return "Minimal flood hazard"
	case "D":
		return "Possible but undetermined flood hazard"
	case "OPEN WATER":
		return "Open water"
	case "AREA NOT INCLUDED":
		return "Area not included in the flood map"
	case "":
		return "No flood zone mapped at this point"
	}
	return "Undetermined flood hazard"
}

// shadedX reports whether an X subtype marks a moderate hazard.
func shadedX(subtype string) bool {
	s := subtypeWords(subtype)
	return strings.Contains(s, " 0.2 PCT ") ||
		strings.HasPrefix(s, " 1 PCT ") ||
		strings.Contains(s, " REDUCED FLOOD RISK DUE TO LEVEE ")
}

// pointTwoPct reports whether an X subtype is a 0.2 PCT ANNUAL CHANCE FLOOD
// HAZARD area or one of its variants.
func pointTwoPct(subtype string) bool {
	return strings.Contains(subtypeWords(subtype), " 0.2 PCT ")
}

// subtypeWords normalizes a subtype for matching: upper case, "%" and
// "PERCENT" spelled "PCT", single spaces, and a space at each end so that
// matches fall on word boundaries.
func subtypeWords(subtype string) string {
	s := strings.ToUpper(subtype)
	s = strings.ReplaceAll(s, "%", " PCT ")
	s = strings.ReplaceAll(s, "PERCENT", "PCT")
	return " " + normalize(s) + " "
}

// normalize upper-cases s and collapses runs of white space.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToUpper(s)), " ")
}

// riskRank orders risk levels for choosing among features.
func riskRank(level string) int {
	switch level {
	case providers.RiskHigh:
		return 3
	case providers.RiskModerate:
		return 2
	case providers.RiskLow:
		return 1
	}
	return 0
}
