package floodmap

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/geofile"
)

// The polygon layers a flood dataset writes, and the NFHL layers they are
// read from (the FIRM Database's table names, as FEMA's downloads name
// their shapefiles and the File Geodatabase its feature classes).
const (
	LayerHazard = "nfhl-hazard"
	LayerPanel  = "nfhl-panel"

	HazardTable = "S_FLD_HAZ_AR"
	PanelTable  = "S_FIRM_PAN"
)

func init() {
	dataload.Register(dataload.Kind{
		Name:  providers.KindFlood,
		Short: "FEMA NFHL flood maps: the flood section without FEMA's service",
		Summary: "FEMA NFHL flood hazard areas (S_FLD_HAZ_AR) with their FIRM panels (S_FIRM_PAN): " +
			"a county's .zip as the Map Service Center publishes it, a GeoPackage made from a state's File Geodatabase, or the two layers as .shp or GeoJSON",
		Layers: []string{LayerHazard, LayerPanel},
		Group:  groupFlood,
		Open:   openFlood,
	})
}

// FloodMeta is the meta of a flood dataset (providers.Dataset).
type FloodMeta struct {
	HazardAreas int64    `json:"hazard_areas"`
	Panels      int64    `json:"panels"`
	DFIRMIDs    []string `json:"dfirm_ids,omitempty"` // the county maps (DFIRM_ID) its panels belong to
}

// groupFlood makes each .zip and .gpkg a dataset (both layers in one
// file), and the other files of one folder one dataset named after the
// folder (S_FLD_HAZ_AR.shp and S_FIRM_PAN.shp of an unpacked download).
func groupFlood(files []string) ([]dataload.Input, error) {
	var out []dataload.Input
	byDir := map[string]int{}
	for _, f := range files {
		switch strings.ToLower(filepath.Ext(f)) {
		case ".zip", ".gpkg":
			out = append(out, dataload.Input{Name: dataload.Name(f), Files: []string{f}})
			continue
		}
		dir, err := filepath.Abs(filepath.Dir(f))
		if err != nil {
			return nil, err
		}
		if i, ok := byDir[dir]; ok {
			out[i].Files = append(out[i].Files, f)
			continue
		}
		byDir[dir] = len(out)
		out = append(out, dataload.Input{Name: filepath.Base(dir), Files: []string{f}})
	}
	return out, nil
}

// ErrNotFlood is the cause of the error a flood load stops with before
// writing anything when a file holds neither flood hazard areas nor FIRM
// panels (a road layer, census tracts), or the dataset lacks one of them.
var ErrNotFlood = errors.New("not an NFHL flood map")

// part is one layer of one file to read.
type part struct {
	file, table, layer string
}

// openFlood finds the hazard areas and the panels among in's files: a
// file of several layers gives its S_FLD_HAZ_AR and S_FIRM_PAN, a file of
// one is told by its columns (FLD_ZONE, FIRM_PAN). Both are required: the
// panels say where the map applies.
func openFlood(in dataload.Input) (dataload.Source, error) {
	var parts []part
	for _, f := range in.Files {
		r, err := geofile.Open(f, geofile.Options{})
		if errors.Is(err, geofile.ErrLayer) {
			for _, t := range []struct{ table, layer string }{{HazardTable, LayerHazard}, {PanelTable, LayerPanel}} {
				r, err := geofile.Open(f, geofile.Options{Layer: t.table})
				if errors.Is(err, geofile.ErrLayer) {
					return nil, fmt.Errorf("%w: %w", ErrNotFlood, err)
				}
				if err != nil {
					return nil, err
				}
				r.Close()
				parts = append(parts, part{file: f, table: t.table, layer: t.layer})
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		cols := r.Columns()
		r.Close()
		has := func(name string) bool {
			return slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, name) })
		}
		switch {
		case has("FLD_ZONE"):
			parts = append(parts, part{file: f, layer: LayerHazard})
		case has("FIRM_PAN"):
			parts = append(parts, part{file: f, layer: LayerPanel})
		default:
			return nil, fmt.Errorf("%s: %w: it has no FLD_ZONE (flood hazard areas) or FIRM_PAN (FIRM panels) column (its columns: %s)",
				f, ErrNotFlood, strings.Join(cols, ", "))
		}
	}
	hasLayer := func(l string) bool { return slices.ContainsFunc(parts, func(p part) bool { return p.layer == l }) }
	switch {
	case !hasLayer(LayerHazard):
		return nil, fmt.Errorf("%s: %w: no flood hazard areas (%s, with FLD_ZONE)", strings.Join(in.Files, ", "), ErrNotFlood, HazardTable)
	case !hasLayer(LayerPanel):
		return nil, fmt.Errorf("%s: %w: no FIRM panels (%s, with FIRM_PAN); they say where the map applies, give them with the hazard areas",
			strings.Join(in.Files, ", "), ErrNotFlood, PanelTable)
	}
	// Panels first: a reader of a half-loaded map never runs (publication
	// is one step), but a resumed load's order must be the same each run.
	slices.SortStableFunc(parts, func(a, b part) int {
		return strings.Compare(b.layer, a.layer) // nfhl-panel before nfhl-hazard
	})
	chain := make([]geofile.Part, len(parts))
	for i, p := range parts {
		chain[i] = geofile.Part{File: p.file, Layer: p.table}
	}
	return &flood{parts: parts, chain: geofile.NewChain(chain), dfirm: map[string]bool{}}, nil
}

// flood reads the layers of a flood dataset one after the other.
type flood struct {
	parts   []part
	chain   *geofile.Chain
	meta    FloodMeta
	dfirm   map[string]bool
	cover   dataload.Bounds
	vintage string
}

func (s *flood) Next() (dataload.Feature, error) {
	f, i, err := s.chain.Next()
	var fe *geofile.FeatureError
	switch {
	case errors.As(err, &fe):
		return dataload.Feature{}, &dataload.Rejected{File: fe.File, Index: fe.Index, Reason: fe.Err.Error()}
	case err != nil:
		return dataload.Feature{}, err
	}
	return s.feature(s.parts[i], f)
}

// feature makes the polygon of a hazard area or a panel, its attributes
// the NFHL's as the service's JSON has them (HazardArea, Panel): the loaded
// path and the service's decode them alike.
func (s *flood) feature(p part, f geofile.Feature) (dataload.Feature, error) {
	name := p.file
	if p.table != "" {
		name += ": " + p.table
	}
	reject := func(key, format string, args ...any) (dataload.Feature, error) {
		return dataload.Feature{}, &dataload.Rejected{File: name, Index: f.Index, Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	cols := geofile.Columns{Props: f.Properties}
	var (
		attrs any
		key   string
		dfirm *string
	)
	if p.layer == LayerHazard {
		a, err := HazardAreaOf(f.Properties)
		if err != nil {
			return reject("", "%v", err)
		}
		if id, _ := cols.Text("FLD_AR_ID"); id != nil && strings.TrimSpace(*id) != "" {
			key = strings.TrimSpace(*id)
		}
		attrs, dfirm = a, a.DFIRMID
	} else {
		pn, err := PanelOf(f.Properties)
		if err != nil {
			return reject("", "%v", err)
		}
		if pn.Panel != nil {
			key = strings.TrimSpace(*pn.Panel)
		}
		if d, ok := pn.Effective.Day(); ok && d > s.vintage {
			s.vintage = d
		}
		attrs, dfirm = pn, pn.DFIRMID
	}
	if key == "" {
		key = "#" + strconv.Itoa(f.Index+1)
	}
	shape, bound, err := geofile.PolygonWKB(f.Geometry)
	if err != nil {
		return reject(key, "%v", err)
	}
	raw, err := json.Marshal(attrs)
	if err != nil {
		return reject(key, "%v", err)
	}
	if p.layer == LayerHazard {
		s.meta.HazardAreas++
	} else {
		s.meta.Panels++
		s.cover.Add(bound)
	}
	if dfirm != nil && strings.TrimSpace(*dfirm) != "" {
		s.dfirm[strings.TrimSpace(*dfirm)] = true
	}
	return dataload.Feature{Layer: p.layer, Polygon: providers.LayerPolygon{Key: key, Attrs: raw, Shape: shape}}, nil
}

// Finish gives the map's vintage (its newest panel's effective date), its
// coverage (the panels' box) and meta.
func (s *flood) Finish() (providers.Dataset, []string, error) {
	if s.meta.Panels == 0 {
		return providers.Dataset{}, nil, fmt.Errorf("%w: no FIRM panel could be loaded; without them the map applies nowhere", ErrNotFlood)
	}
	for id := range s.dfirm {
		s.meta.DFIRMIDs = append(s.meta.DFIRMIDs, id)
	}
	slices.Sort(s.meta.DFIRMIDs)
	var warnings []string
	if s.vintage == "" {
		warnings = append(warnings, "no FIRM panel has an effective date (EFF_DATE): the map's vintage is unknown")
	}
	d := providers.Dataset{Vintage: s.vintage, Coverage: s.cover.BBox()}
	d.Meta, _ = json.Marshal(s.meta)
	return d, warnings, nil
}

func (s *flood) Close() error { return s.chain.Close() }
