package femanfhl

import (
	"math"
	"strings"
	"time"

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

// zoneAttrs are the attributes asked of the flood hazard zones layer.
type zoneAttrs struct {
	Zone      *string  `json:"FLD_ZONE"`
	Subtype   *string  `json:"ZONE_SUBTY"`
	SFHA      *string  `json:"SFHA_TF"`
	StaticBFE *float64 `json:"STATIC_BFE"`
	DFIRMID   *string  `json:"DFIRM_ID"`
}

// sfha reads SFHA_TF: "T" is true, "F" false, anything else unknown.
func (z zoneAttrs) sfha() *bool {
	var v bool
	switch normalize(deref(z.SFHA)) {
	case "T":
		v = true
	case "F":
		v = false
	default:
		return nil
	}
	return &v
}

// bfe returns STATIC_BFE, or nil for null and for the -9999 "none" sentinel.
func (z zoneAttrs) bfe() *float64 {
	if z.StaticBFE == nil || isSentinel(*z.StaticBFE) {
		return nil
	}
	v := *z.StaticBFE
	return &v
}

// isSentinel reports whether a FIRM database number means "none": -9999
// (however it is written, -9999 or -9999.0) and its kin such as -99999. No
// elevation, depth or velocity in the FIRM database is 1000 below zero, so
// anything at or below -1000 is taken as a sentinel too.
func isSentinel(v float64) bool {
	return v <= -1000 || math.IsNaN(v) || math.IsInf(v, 0)
}

// risk is the zone's risk level, raised to high inside an SFHA.
func (z zoneAttrs) risk() string {
	if s := z.sfha(); s != nil && *s {
		return providers.RiskHigh
	}
	return RiskLevel(deref(z.Zone), deref(z.Subtype))
}

// clean trims the text attributes and turns empty strings, which the service
// sometimes writes for missing text, into nil.
func (z zoneAttrs) clean() zoneAttrs {
	z.Zone = cleanText(z.Zone)
	z.Subtype = cleanText(z.Subtype)
	z.SFHA = cleanText(z.SFHA)
	z.DFIRMID = cleanText(z.DFIRMID)
	return z
}

func cleanText(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}

// pickZone chooses, among the features at a point, the riskiest; ties go to
// the one inside the SFHA, then to the one with a base flood elevation, then
// to the first. Features without a zone come last. ok is false for none.
func pickZone(zones []zoneAttrs) (best zoneAttrs, ok bool) {
	bestKey := [3]int{}
	for _, z := range zones {
		z = z.clean()
		key := [3]int{riskRank(z.risk()), 0, 0}
		if z.Zone == nil {
			key[0] = -1
		}
		if s := z.sfha(); s != nil && *s {
			key[1] = 1
		}
		if z.bfe() != nil {
			key[2] = 1
		}
		if !ok || greater(key, bestKey) {
			best, bestKey, ok = z, key, true
		}
	}
	return best, ok
}

func greater(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

// panelAttrs are the attributes asked of the FIRM panels layer.
type panelAttrs struct {
	Panel     *string  `json:"FIRM_PAN"`
	Effective *float64 `json:"EFF_DATE"`
	PanelType *string  `json:"PANEL_TYP"` // asked as the NFHL documents the query; not reported
	DFIRMID   *string  `json:"DFIRM_ID"`
}

// effective returns EFF_DATE, epoch milliseconds UTC, as YYYY-MM-DD. Null
// and the far-future values FEMA uses for "no date" in its date fields give
// ok=false.
func (pn panelAttrs) effective() (string, bool) {
	if pn.Effective == nil || math.IsNaN(*pn.Effective) || math.IsInf(*pn.Effective, 0) {
		return "", false
	}
	t := time.UnixMilli(int64(math.Round(*pn.Effective))).UTC()
	if t.Year() > 2999 {
		return "", false
	}
	return t.Format(time.DateOnly), true
}

// pickPanel chooses, among the panels at a point, one with a panel number:
// preferably of the zone's DFIRM_ID (a point on a county line lies on two
// panels), then the most recently effective, then the first.
func pickPanel(panels []panelAttrs, dfirm string) (best panelAttrs, ok bool) {
	var bestMatch bool
	var bestDate string
	for _, pn := range panels {
		pn.Panel = cleanText(pn.Panel)
		pn.DFIRMID = cleanText(pn.DFIRMID)
		if pn.Panel == nil {
			continue
		}
		match := dfirm != "" && strings.EqualFold(deref(pn.DFIRMID), dfirm)
		date, _ := pn.effective()
		better := !ok ||
			(match && !bestMatch) ||
			(match == bestMatch && date > bestDate)
		if better {
			best, bestMatch, bestDate, ok = pn, match, date, true
		}
	}
	return best, ok
}
