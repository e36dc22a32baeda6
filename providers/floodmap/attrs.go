package floodmap

import (
	"fmt"

	"github.com/propertyd/propertyd/providers/geofile"
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
	cols := geofile.Columns{Props: attrs}
	if a.Zone, err = cols.Text("FLD_ZONE"); err != nil {
		return HazardArea{}, err
	}
	if a.Subtype, err = cols.Text("ZONE_SUBTY"); err != nil {
		return HazardArea{}, err
	}
	if b, ok := cols.Value("SFHA_TF").(bool); ok {
		v := map[bool]string{true: "T", false: "F"}[b]
		a.SFHA = &v
	} else if a.SFHA, err = cols.Text("SFHA_TF"); err != nil {
		return HazardArea{}, err
	}
	if a.StaticBFE, err = cols.Number("STATIC_BFE"); err != nil {
		return HazardArea{}, err
	}
	if a.Depth, err = cols.Number("DEPTH"); err != nil {
		return HazardArea{}, err
	}
	if a.DFIRMID, err = cols.Text("DFIRM_ID"); err != nil {
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
	cols := geofile.Columns{Props: attrs}
	if pn.Panel, err = cols.Text("FIRM_PAN"); err != nil {
		return Panel{}, err
	}
	if pn.Effective, err = DateOf(cols.Value("EFF_DATE")); err != nil {
		return Panel{}, fmt.Errorf("column EFF_DATE: %w", err)
	}
	if pn.PanelType, err = cols.Text("PANEL_TYP"); err != nil {
		return Panel{}, err
	}
	if pn.DFIRMID, err = cols.Text("DFIRM_ID"); err != nil {
		return Panel{}, err
	}
	return pn, nil
}
