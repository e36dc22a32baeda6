package floodmap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// HazardAreaFields are the columns of S_FLD_HAZ_AR that HazardArea holds, as
// the FIRM Database Technical Reference names them; a loader can check a
// file for them before reading it. Treat it as read-only.
var HazardAreaFields = []string{"FLD_ZONE", "ZONE_SUBTY", "SFHA_TF", "STATIC_BFE", "DEPTH", "DFIRM_ID"}

// PanelFields are the columns of S_FIRM_PAN that Panel holds. Treat it as
// read-only.
var PanelFields = []string{"FIRM_PAN", "EFF_DATE", "PANEL_TYP", "DFIRM_ID"}

// HazardArea is one flood hazard area of S_FLD_HAZ_AR (the service's layer
// 28), its attributes as the NFHL writes them: nil is null, numbers keep the
// -9999 sentinel, text is as sent (Section trims it). The JSON names are the
// NFHL's, so the service's Esri JSON attributes decode into it. The zero
// value is an area with every attribute null.
type HazardArea struct {
	Zone      *string  `json:"FLD_ZONE"`   // FLD_ZONE, e.g. "AE"
	Subtype   *string  `json:"ZONE_SUBTY"` // ZONE_SUBTY, e.g. "FLOODWAY"
	SFHA      *string  `json:"SFHA_TF"`    // SFHA_TF, "T" or "F"
	StaticBFE *float64 `json:"STATIC_BFE"` // STATIC_BFE, feet; -9999 for none
	Depth     *float64 `json:"DEPTH"`      // DEPTH, feet (zone AO); -9999 for none
	DFIRMID   *string  `json:"DFIRM_ID"`   // DFIRM_ID, the county's map, e.g. "48201C"
}

// Panel is one FIRM panel of S_FIRM_PAN (the service's layer 3), its
// attributes as the NFHL writes them. The JSON names are the NFHL's, and
// Effective decodes an Esri date, so the service's attributes decode into
// it. The zero value is a panel with every attribute null.
type Panel struct {
	Panel     *string `json:"FIRM_PAN"`  // FIRM_PAN, e.g. "18057C0233G"
	Effective Date    `json:"EFF_DATE"`  // EFF_DATE
	PanelType *string `json:"PANEL_TYP"` // PANEL_TYP; read, not reported
	DFIRMID   *string `json:"DFIRM_ID"`  // DFIRM_ID, e.g. "18057C"
}

// HazardAreaOf reads a flood hazard area from a file feature's attributes by
// column name (as package geofile gives them: string, int64, float64, bool,
// time.Time or nil). Names match without regard to case (FEMA's downloads
// write them in capitals; other exports in lower case); a column the file
// lacks is null. Text columns take text (and SFHA_TF a boolean, written T or
// F); number columns numbers, or text holding one (blank is null). Any other
// value is an error naming the column, for the loader to refuse the row with.
func HazardAreaOf(attrs map[string]any) (HazardArea, error) {
	var (
		a   HazardArea
		err error
	)
	get := lookup(attrs)
	if a.Zone, err = text(get, "FLD_ZONE"); err != nil {
		return HazardArea{}, err
	}
	if a.Subtype, err = text(get, "ZONE_SUBTY"); err != nil {
		return HazardArea{}, err
	}
	if b, ok := get("SFHA_TF").(bool); ok {
		v := map[bool]string{true: "T", false: "F"}[b]
		a.SFHA = &v
	} else if a.SFHA, err = text(get, "SFHA_TF"); err != nil {
		return HazardArea{}, err
	}
	if a.StaticBFE, err = number(get, "STATIC_BFE"); err != nil {
		return HazardArea{}, err
	}
	if a.Depth, err = number(get, "DEPTH"); err != nil {
		return HazardArea{}, err
	}
	if a.DFIRMID, err = text(get, "DFIRM_ID"); err != nil {
		return HazardArea{}, err
	}
	return a, nil
}

// PanelOf reads a FIRM panel from a file feature's attributes, as
// HazardAreaOf does; EFF_DATE takes what DateOf takes.
func PanelOf(attrs map[string]any) (Panel, error) {
	var (
		pn  Panel
		err error
	)
	get := lookup(attrs)
	if pn.Panel, err = text(get, "FIRM_PAN"); err != nil {
		return Panel{}, err
	}
	if pn.Effective, err = DateOf(get("EFF_DATE")); err != nil {
		return Panel{}, fmt.Errorf("column EFF_DATE: %w", err)
	}
	if pn.PanelType, err = text(get, "PANEL_TYP"); err != nil {
		return Panel{}, err
	}
	if pn.DFIRMID, err = text(get, "DFIRM_ID"); err != nil {
		return Panel{}, err
	}
	return pn, nil
}

// lookup returns a reader of attrs by column name: the exact name first,
// then any name equal to it without regard to case.
func lookup(attrs map[string]any) func(name string) any {
	return func(name string) any {
		if v, ok := attrs[name]; ok {
			return v
		}
		for k, v := range attrs {
			if strings.EqualFold(k, name) {
				return v
			}
		}
		return nil
	}
}

// text reads a text column: nil, or a string as written.
func text(get func(string) any, name string) (*string, error) {
	switch v := get(name).(type) {
	case nil:
		return nil, nil
	case string:
		return &v, nil
	default:
		return nil, fmt.Errorf("column %s: %v (%T) is not text", name, v, v)
	}
}

// number reads a number column: nil, an int64 or float64, or text holding a
// number (blank is nil).
func number(get func(string) any, name string) (*float64, error) {
	var f float64
	switch v := get(name).(type) {
	case nil:
		return nil, nil
	case float64:
		f = v
	case int64:
		f = float64(v)
	case int:
		f = float64(v)
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return nil, nil
		}
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("column %s: %q is not a number", name, v)
		}
	default:
		return nil, fmt.Errorf("column %s: %v (%T) is not a number", name, v, v)
	}
	return &f, nil
}
