package tiger

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/geofile"
)

// The polygon layers a boundaries dataset writes.
const (
	LayerTract  = "tiger-tract"
	LayerCounty = "tiger-county"
)

func init() {
	dataload.Register(dataload.Kind{
		Name:    providers.KindBoundaries,
		Short:   "TIGER/Line census tracts and counties: county and tract without the Census geocoder",
		Summary: "TIGER/Line census tracts and counties (tl_YYYY_SS_tract, tl_YYYY_us_county): a .zip as published, a .shp, GeoJSON or a GeoPackage",
		Layers:  []string{LayerTract, LayerCounty},
		Open:    openBoundaries,
	})
}

// BoundariesMeta is the meta of a boundaries dataset (providers.Dataset):
// how many tracts and counties it holds, the states of its tracts (their
// STATEFP), against which the ACS vintage is checked, and the states of its
// counties, by which the geocoder knows whether both are loaded for an
// address's state before it asks for its match alone.
type BoundariesMeta struct {
	Tracts   int64    `json:"tracts"`
	Counties int64    `json:"counties"`
	States   []string `json:"states,omitempty"`
	// CountyStates are the STATEFP of its counties. A dataset loaded
	// before they were kept has counties and none: its states are not
	// known.
	CountyStates []string `json:"county_states,omitempty"`
	Year         int      `json:"year,omitempty"` // the TIGER/Line year; 0 unknown
}

// yearOfName reads the TIGER/Line year of a file named as the Census
// Bureau publishes it: tl_2020_11_tract.zip, tl_rd22_us_county.zip.
var yearOfName = regexp.MustCompile(`(?i)^tl_(?:rd)?(\d{2}|\d{4})_`)

// fileYear is the TIGER/Line year of a file: from its name as published,
// else from its columns' decennial suffix (TRACTCE20: 2020), else 0.
func fileYear(path string, columns []string) int {
	if m := yearOfName.FindStringSubmatch(filepath.Base(path)); m != nil {
		y, _ := strconv.Atoi(m[1])
		if y < 100 {
			y += 2000
		}
		return y
	}
	for _, c := range columns {
		for _, suffix := range editions {
			if strings.EqualFold(c, "GEOID"+suffix) {
				y, _ := strconv.Atoi(suffix)
				return 2000 + y
			}
		}
	}
	return 0
}

// layerOf says which layer a file's columns make it: tracts (TRACTCE),
// counties (COUNTYFP and COUNTYNS or NAMELSAD, no TRACTCE), or neither.
func layerOf(columns []string) string {
	has := func(name string) bool {
		return slices.ContainsFunc(columns, func(c string) bool {
			if strings.EqualFold(c, name) {
				return true
			}
			for _, s := range editions {
				if strings.EqualFold(c, name+s) {
					return true
				}
			}
			return false
		})
	}
	switch {
	case has("TRACTCE") && has("STATEFP") && has("COUNTYFP"):
		return LayerTract
	case has("COUNTYFP") && has("STATEFP") && (has("COUNTYNS") || has("NAMELSAD")):
		return LayerCounty
	}
	return ""
}

// ErrNotBoundaries is the cause of the error a boundaries load stops with
// before writing anything when a file is neither TIGER/Line tracts nor
// counties (a road layer, a flood map).
var ErrNotBoundaries = errors.New("not TIGER/Line census tracts or counties")

// openBoundaries opens every file of in, checking each is tracts or
// counties in a geographic coordinate system, before any is read.
func openBoundaries(in dataload.Input) (dataload.Source, error) {
	s := &boundaries{in: in, states: map[string]bool{}, countyStates: map[string]bool{}}
	var parts []geofile.Part
	for _, f := range in.Files {
		parts = append(parts, geofile.Part{File: f})
		r, err := geofile.Open(f, geofile.Options{})
		if err != nil {
			return nil, err
		}
		layer := layerOf(r.Columns())
		year := fileYear(f, r.Columns())
		r.Close()
		if layer == "" {
			return nil, fmt.Errorf("%s: %w: it has no STATEFP, COUNTYFP and TRACTCE (tracts) or COUNTYNS (counties) column (its columns: %s)",
				f, ErrNotBoundaries, strings.Join(r.Columns(), ", "))
		}
		s.layers = append(s.layers, layer)
		s.years = append(s.years, year)
	}
	s.chain = geofile.NewChain(parts)
	return s, nil
}

// boundaries reads the files of a boundaries dataset one after the other.
type boundaries struct {
	in     dataload.Input
	layers []string
	years  []int
	chain  *geofile.Chain
	meta   BoundariesMeta
	states map[string]bool
	// countyStates are the states of the counties read.
	countyStates map[string]bool
	cover        dataload.Bounds
}

func (s *boundaries) Next() (dataload.Feature, error) {
	f, i, err := s.chain.Next()
	var fe *geofile.FeatureError
	switch {
	case errors.As(err, &fe):
		return dataload.Feature{}, &dataload.Rejected{File: s.in.Files[i], Index: fe.Index, Reason: fe.Err.Error()}
	case err != nil:
		return dataload.Feature{}, err
	}
	return s.feature(s.in.Files[i], s.layers[i], f)
}

// feature makes the polygon of a tract or county: its GEOID the key, the
// columns Locate reads its attributes, under their plain names.
func (s *boundaries) feature(file, layer string, f geofile.Feature) (dataload.Feature, error) {
	reject := func(key, format string, args ...any) (dataload.Feature, error) {
		return dataload.Feature{}, &dataload.Rejected{File: file, Index: f.Index, Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	var (
		attrs map[string]string
		key   string
		state string
	)
	if layer == LayerTract {
		t, err := TractOf(f.Properties)
		if err != nil {
			return reject("", "%v", err)
		}
		p, _ := Locate(nil, &t)
		key = p.FIPSCode + p.CensusTract
		if p.CensusTract == "" || p.FIPSCode == "" {
			return reject(t.GEOID, "no six-digit TRACTCE or 11-digit GEOID")
		}
		state = key[:2]
		attrs = map[string]string{"STATEFP": key[:2], "COUNTYFP": key[2:5], "TRACTCE": key[5:], "GEOID": key, "NAMELSAD": t.NameLSAD}
	} else {
		c, err := CountyOf(f.Properties)
		if err != nil {
			return reject("", "%v", err)
		}
		p, _ := Locate(&c, nil)
		key = p.FIPSCode
		if key == "" {
			return reject(c.GEOID, "no five-digit GEOID or two- and three-digit STATEFP and COUNTYFP")
		}
		attrs = map[string]string{"STATEFP": key[:2], "COUNTYFP": key[2:], "GEOID": key, "NAMELSAD": p.County}
	}
	shape, bound, err := geofile.PolygonWKB(f.Geometry)
	if err != nil {
		return reject(key, "%v", err)
	}
	raw, _ := json.Marshal(attrs)
	if layer == LayerTract {
		s.meta.Tracts++
		s.states[state] = true
	} else {
		s.meta.Counties++
		s.countyStates[key[:2]] = true
	}
	s.cover.Add(bound)
	return dataload.Feature{Layer: layer, Polygon: providers.LayerPolygon{Key: key, Attrs: raw, Shape: shape}}, nil
}

// Finish gives the dataset's vintage (the TIGER/Line year of its files,
// from their names as published), its coverage (every feature's box) and
// meta, with a warning where the year is unknown or the files differ.
func (s *boundaries) Finish() (providers.Dataset, []string, error) {
	var warnings []string
	year := 0
	for i, y := range s.years {
		switch {
		case y == 0 && s.layers[i] == LayerTract:
			warnings = append(warnings, fmt.Sprintf("%s: the TIGER/Line year is not in its name (tl_YYYY_...) or its columns; "+
				"its tracts cannot be checked against the ACS release", filepath.Base(s.in.Files[i])))
		case y == 0:
		case year != 0 && y != year:
			warnings = append(warnings, fmt.Sprintf("%s is TIGER/Line %d, the files before it %d: load each year as a dataset of its own",
				filepath.Base(s.in.Files[i]), y, year))
		case year == 0:
			year = y
		}
	}
	s.meta.Year = year
	for st := range s.states {
		s.meta.States = append(s.meta.States, st)
	}
	slices.Sort(s.meta.States)
	for st := range s.countyStates {
		s.meta.CountyStates = append(s.meta.CountyStates, st)
	}
	slices.Sort(s.meta.CountyStates)
	d := providers.Dataset{Coverage: s.cover.BBox()}
	if year != 0 {
		d.Vintage = strconv.Itoa(year)
	}
	d.Meta, _ = json.Marshal(s.meta)
	return d, warnings, nil
}

func (s *boundaries) Close() error { return s.chain.Close() }

// AttrsOf reads the attributes a boundaries load kept of a polygon (as
// PolygonsAt returns them) as TractOf and CountyOf read a file's: the
// loaded path and the file path share one reading.
func AttrsOf(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}
