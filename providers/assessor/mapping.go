// Package assessor reads public assessor files (county parcel and building
// characteristics, as CSV or GeoJSON, either gzipped) into property facts:
// a Dataset maps a file's columns to the record's fields, and Load streams
// the rows into a providers.FactStore, which joins them to records.
//
// It knows the files and nothing else: no HTTP, no SQL. The presets
// (presets.go) are datasets whose columns are confirmed from their
// publishers' own data dictionaries.
package assessor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
)

// Dataset declares one assessor dataset: its name (the facts' source in
// records unless Source says otherwise), and how its columns map to the
// record's fields. A Preset fills in everything but Name, AsOf and Source.
type Dataset struct {
	Name   string `yaml:"name"`
	Preset string `yaml:"preset"`
	// Source is the label records show as the facts' source; default Name.
	Source string `yaml:"source"`
	// AsOf is the date the data is as of (YYYY-MM-DD); default the day
	// the load runs.
	AsOf    string `yaml:"as_of"`
	Mapping `yaml:",inline"`
}

// Mapping is how a file's columns become FactRows. Column names compare
// without regard to case.
type Mapping struct {
	// Key names the columns that identify a row (a parcel number); their
	// values joined with "-" are its key. A later row of the same key
	// replaces an earlier one unless that one ranks higher.
	Key []string `yaml:"key"`
	// Rank names the columns that order rows of one key, most significant
	// first: the highest wins; a column written "-card" counts down (card
	// 1 outranks card 2). Each column after the first takes values 0-999.
	Rank []string `yaml:"rank"`
	// Address finds the record by its address; Point by coordinates. A
	// row with a usable address joins by it, else by its point.
	Address *AddressColumns `yaml:"address"`
	Point   *PointColumns   `yaml:"point"`
	// Fields maps a record field (providers.FactFields) to how it is read.
	Fields map[string]Field `yaml:"fields"`
	// Join is the dataset's second file, which gives the rows their
	// address or point by a shared key (Cook County's parcel addresses,
	// by PIN). The file whose header holds Join's columns is that file.
	Join *Join `yaml:"join"`
}

// Join is the second file of a two-file dataset.
type Join struct {
	// Column is the main file's column that names a row of this file.
	Column  string          `yaml:"column"`
	Key     []string        `yaml:"key"`
	Rank    []string        `yaml:"rank"`
	Address *AddressColumns `yaml:"address"`
	Point   *PointColumns   `yaml:"point"`
}

// AddressColumns name the columns of an address. Street may be several
// columns (house number, fraction, street name), joined with spaces. Unit
// may be empty: a unit written at the end of the street line ("123 MAIN
// ST UNIT 3B") is parsed off it, as lookups do.
type AddressColumns struct {
	Street       []string `yaml:"street"`
	Unit         string   `yaml:"unit"`
	City         string   `yaml:"city"`
	State        string   `yaml:"state"`
	Zip          string   `yaml:"zip"`
	DefaultState string   `yaml:"default_state"`
}

// PointColumns name the WGS84 latitude and longitude columns. In GeoJSON
// the feature's geometry gives the point when these are empty (`point:
// {}`): a Point, or a parcel Polygon or MultiPolygon, which a record
// inside it joins (its point is the centre of its bounding box).
type PointColumns struct {
	Lat string `yaml:"lat"`
	Lng string `yaml:"lng"`
}

// Field is how one fact is read: a Column, or the Sum of several (each
// times its factor: bathrooms are full baths plus 0.5 per half bath), then
// a value Map (codes to property types, "Two" to 2), where "A*" matches
// every value starting with "A" and "*" any value not otherwise mapped.
// ZeroUnknown reads 0 as unknown (assessor files write 0 for a missing
// area or year). In YAML a bare column name is a Field of that column.
type Field struct {
	Column      string            `yaml:"column"`
	Sum         []Term            `yaml:"sum"`
	Map         map[string]string `yaml:"map"`
	ZeroUnknown bool              `yaml:"zero_unknown"`
}

// Term is one column of a sum and its factor (default 1).
type Term struct {
	Column string  `yaml:"column"`
	Times  float64 `yaml:"times"`
}

// UnmarshalYAML reads a bare column name or a full Field.
func (f *Field) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		f.Column = n.Value
		return nil
	}
	type plain Field
	return n.Decode((*plain)(f))
}

// columns lists every column m reads from the main file.
func (m *Mapping) columns() []string {
	out := slices.Clone(m.Key)
	for _, r := range m.Rank {
		out = append(out, strings.TrimPrefix(r, "-"))
	}
	out = append(out, m.Address.columns()...)
	out = append(out, m.Point.columns()...)
	for _, name := range providers.FactFields {
		f, ok := m.Fields[name]
		if !ok {
			continue
		}
		if f.Column != "" {
			out = append(out, f.Column)
		}
		for _, t := range f.Sum {
			out = append(out, t.Column)
		}
	}
	if m.Join != nil {
		out = append(out, m.Join.Column)
	}
	return out
}

// columns lists every column j reads from its file.
func (j *Join) columns() []string {
	out := slices.Clone(j.Key)
	for _, r := range j.Rank {
		out = append(out, strings.TrimPrefix(r, "-"))
	}
	out = append(out, j.Address.columns()...)
	return append(out, j.Point.columns()...)
}

func (a *AddressColumns) columns() []string {
	if a == nil {
		return nil
	}
	out := slices.Clone(a.Street)
	for _, c := range []string{a.Unit, a.City, a.State, a.Zip} {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

func (p *PointColumns) columns() []string {
	if p == nil || p.Lat == "" {
		return nil
	}
	return []string{p.Lat, p.Lng}
}

// Validate checks d as declared, before any file is read.
func (d *Dataset) Validate() error {
	if d.Name == "" {
		return fmt.Errorf("a dataset needs a name")
	}
	if d.AsOf != "" && !isDate(d.AsOf) {
		return fmt.Errorf("dataset %s: as_of %q is not a date (YYYY-MM-DD, a day the month has)", d.Name, d.AsOf)
	}
	if len(d.Key) == 0 {
		return fmt.Errorf("dataset %s: key names no column", d.Name)
	}
	if d.Address == nil && d.Point == nil && d.Join == nil {
		return fmt.Errorf("dataset %s: give address or point columns (or a join) so rows can find their records", d.Name)
	}
	if d.Address != nil && (len(d.Address.Street) == 0 || d.Address.Zip == "") {
		return fmt.Errorf("dataset %s: address needs street and zip columns (facts join records by street, unit and ZIP)", d.Name)
	}
	if len(d.Fields) == 0 {
		return fmt.Errorf("dataset %s: fields maps no column", d.Name)
	}
	for name, f := range d.Fields {
		if !slices.Contains(providers.FactFields, name) {
			return fmt.Errorf("dataset %s: fields: %q is not a record field; use one of %s", d.Name, name, strings.Join(providers.FactFields, ", "))
		}
		if (f.Column == "") == (len(f.Sum) == 0) {
			return fmt.Errorf("dataset %s: fields.%s: give a column or a sum", d.Name, name)
		}
		if name == "property_type" {
			for code, v := range f.Map {
				if !slices.Contains(providers.PropertyTypes, v) {
					return fmt.Errorf("dataset %s: fields.property_type.map[%q]: %q is not one of %s", d.Name, code, v, strings.Join(providers.PropertyTypes, ", "))
				}
			}
		}
	}
	if j := d.Join; j != nil && (j.Column == "" || len(j.Key) != 1 || (j.Address == nil && j.Point == nil)) {
		return fmt.Errorf("dataset %s: join needs its column, one key column and address or point columns", d.Name)
	}
	return nil
}

// isDate reports whether s is a calendar date written YYYY-MM-DD: the
// digits in place and a day the month has (2025-02-30 and 2025-13-45 are
// not dates).
func isDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// value reads f from a row; ok is false for a blank cell (unknown), err
// names what could not be read.
func (f *Field) value(get func(string) string) (string, error) {
	if len(f.Sum) > 0 {
		sum, any := 0.0, false
		for _, t := range f.Sum {
			s := strings.TrimSpace(get(t.Column))
			if s == "" {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return "", fmt.Errorf("%s: %q is not a number", t.Column, s)
			}
			times := t.Times
			if times == 0 {
				times = 1
			}
			sum += v * times
			any = true
		}
		if !any {
			return "", nil
		}
		return strconv.FormatFloat(sum, 'f', -1, 64), nil
	}
	s := strings.TrimSpace(get(f.Column))
	if f.Map != nil && s != "" {
		if v, ok := lookupMap(f.Map, s); ok {
			s = v
		} else {
			return "", fmt.Errorf("%s: unknown code %q", f.Column, s)
		}
	}
	if f.ZeroUnknown && s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v == 0 {
			return "", nil
		}
	}
	return s, nil
}

// lookupMap finds s in m: exactly, then without regard to case, then the
// longest "prefix*" entry, then "*". A mapped "" is unknown.
func lookupMap(m map[string]string, s string) (string, bool) {
	if v, ok := m[s]; ok {
		return v, true
	}
	best, bestLen := "", -1
	for k, v := range m {
		if strings.EqualFold(k, s) {
			return v, true
		}
		if p, ok := strings.CutSuffix(k, "*"); ok && len(p) > bestLen && len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			best, bestLen = v, len(p)
		}
	}
	return best, bestLen >= 0
}
