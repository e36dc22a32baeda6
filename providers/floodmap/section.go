package floodmap

import (
	"math"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// Section is the flood section at a point from the flood hazard areas and
// the FIRM panels that hold it, whichever path found them (the service's
// answers to a point query, or the features of a loaded map containing the
// point):
//
//   - no area: RiskUndetermined with a nil Zone and the description "No
//     flood zone mapped at this point", not an error and not zone X (large
//     areas have no digital NFHL);
//   - several areas (a point on a zone boundary): the riskiest, ties going
//     to the one inside the Special Flood Hazard Area, then to the one with
//     a static base flood elevation, then to the first; areas without a
//     zone come last;
//   - RiskLevel is RiskLevel(zone, subtype), raised to RiskHigh when
//     SFHA_TF is "T"; Description is Description(zone, subtype);
//     SpecialFloodHazard is SFHA_TF read as "T" or "F" (nil otherwise);
//     StaticBFE is STATIC_BFE, nil for null and for the -9999 sentinel and
//     its kin (anything at or below -1000);
//   - the panel: of those with a panel number, preferably one of the chosen
//     area's DFIRM_ID (a point on a county line lies on two panels), then
//     the most recently effective, then the first; PanelEffectiveDate is its
//     EFF_DATE as YYYY-MM-DD, nil for none.
//
// Text is trimmed, and empty text is null. Source is left empty: the
// caller names itself ("fema-nfhl" for the service). It is pure and safe
// for concurrent use.
func Section(zones []HazardArea, panels []Panel) *providers.Flood {
	f := &providers.Flood{RiskLevel: providers.RiskUndetermined}
	dfirm := ""
	if z, ok := pickZone(zones); ok {
		f.Zone = z.Zone
		f.ZoneSubtype = z.Subtype
		f.SpecialFloodHazard = z.sfha()
		f.StaticBFE = z.bfe()
		f.RiskLevel = z.risk()
		dfirm = deref(z.DFIRMID)
	}
	f.Description = Description(deref(f.Zone), deref(f.ZoneSubtype))
	if pn, ok := pickPanel(panels, dfirm); ok {
		f.PanelNumber = pn.Panel
		if d, ok := pn.Effective.Day(); ok {
			f.PanelEffectiveDate = &d
		}
	}
	return f
}

// sfha reads SFHA_TF: "T" is true, "F" false, anything else unknown.
func (z HazardArea) sfha() *bool {
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
func (z HazardArea) bfe() *float64 {
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
func (z HazardArea) risk() string {
	if s := z.sfha(); s != nil && *s {
		return providers.RiskHigh
	}
	return RiskLevel(deref(z.Zone), deref(z.Subtype))
}

// clean trims the text attributes and turns empty strings, which the service
// sometimes writes for missing text, into nil.
func (z HazardArea) clean() HazardArea {
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

// pickZone chooses, among the areas at a point, the riskiest; ties go to
// the one inside the SFHA, then to the one with a base flood elevation, then
// to the first. Areas without a zone come last. ok is false for none.
func pickZone(zones []HazardArea) (best HazardArea, ok bool) {
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

// pickPanel chooses, among the panels at a point, one with a panel number:
// preferably of the zone's DFIRM_ID (a point on a county line lies on two
// panels), then the most recently effective, then the first.
func pickPanel(panels []Panel, dfirm string) (best Panel, ok bool) {
	var bestMatch bool
	var bestDate string
	for _, pn := range panels {
		pn.Panel = cleanText(pn.Panel)
		pn.DFIRMID = cleanText(pn.DFIRMID)
		if pn.Panel == nil {
			continue
		}
		match := dfirm != "" && strings.EqualFold(deref(pn.DFIRMID), dfirm)
		date, _ := pn.Effective.Day()
		better := !ok ||
			(match && !bestMatch) ||
			(match == bestMatch && date > bestDate)
		if better {
			best, bestMatch, bestDate, ok = pn, match, date, true
		}
	}
	return best, ok
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
