package geofile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/paulmach/orb/geojson"
)

// recordSeparator leads each text of an RFC 8142 GeoJSON text sequence.
const recordSeparator = 0x1E

// jsonSource reads GeoJSON: a FeatureCollection (RFC 7946) streamed from
// its "features" array, or a text sequence (one feature a text: a line,
// or RFC 8142's record-separated texts).
type jsonSource struct {
	f     *os.File
	br    *bufio.Reader
	dec   *json.Decoder // a FeatureCollection
	seq   bool
	rs    bool // a sequence of RS-led texts
	index int
	line  int // the line (or RS-led text) of a sequence read last
	ahead *aheadFeature
	done  bool
	first []string // the first feature's property names, in order
}

// aheadFeature is the first feature, read by Open for the columns.
type aheadFeature struct {
	f   Feature
	err error
}

// sequenceExts are the names of GeoJSON text sequences: GDAL's GeoJSONSeq
// driver's, and newline-delimited JSON's.
var sequenceExts = map[string]bool{".geojsonl": true, ".geojsons": true, ".geojsonseq": true, ".ndjson": true, ".jsonl": true}

// openGeoJSON opens a GeoJSON file. A text sequence is recognized by its
// name, its leading record separator, or a first line that is a whole
// Feature; anything else is read as a FeatureCollection.
func openGeoJSON(p string) (_ *Reader, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	s := &jsonSource{f: f, br: bufio.NewReaderSize(f, 1<<20)}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if bom, _ := s.br.Peek(3); bytes.Equal(bom, []byte("\xEF\xBB\xBF")) {
		s.br.Discard(3)
	}
	for {
		b, err := s.br.Peek(1)
		if err != nil || !bytes.ContainsAny(b, " \t\r\n") {
			break
		}
		s.br.Discard(1)
	}
	r := &Reader{crs: wgs84, src: s}
	switch {
	case sequenceExts[strings.ToLower(filepath.Ext(p))]:
		s.seq = true
	default:
		if b, _ := s.br.Peek(1); len(b) == 1 && b[0] == recordSeparator {
			s.seq, s.rs = true, true
		} else {
			s.seq = firstLineIsFeature(s.br)
		}
	}
	if s.seq {
		if b, _ := s.br.Peek(1); len(b) == 1 && b[0] == recordSeparator {
			s.rs = true
		}
		r.format = GeoJSONSeq
	} else {
		r.format = GeoJSON
		if r.crs, err = s.openCollection(); err != nil {
			return nil, err
		}
	}
	// The first feature gives the columns.
	first, ferr := s.read()
	if ferr != nil && !errors.Is(ferr, ErrFeature) && ferr != io.EOF {
		return nil, ferr
	}
	if ferr != io.EOF {
		s.ahead = &aheadFeature{first, ferr}
		r.columns = s.first
	}
	return r, nil
}

// firstLineIsFeature reports whether the buffered first line is a whole
// GeoJSON Feature (a sequence's first text).
func firstLineIsFeature(br *bufio.Reader) bool {
	b, err := br.Peek(br.Size())
	i := bytes.IndexByte(b, '\n')
	if i < 0 && err == nil {
		return false // a first line longer than the buffer
	}
	if i < 0 {
		i = len(b) // the whole file, on one line
	}
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(b[:i], &head) == nil && head.Type == "Feature"
}

// openCollection moves the decoder to the first feature of the
// collection's "features" array, reading a "crs" member before it (GeoJSON
// of 2008, as GDAL still writes one for data not in WGS 84; RFC 7946 has
// no such member and means WGS 84).
func (s *jsonSource) openCollection() (CRS, error) {
	s.dec = json.NewDecoder(s.br)
	s.dec.UseNumber()
	crs := wgs84
	if t, err := s.dec.Token(); err != nil || t != json.Delim('{') {
		return crs, fmt.Errorf("%w: not a GeoJSON object", ErrMalformed)
	}
	for s.dec.More() {
		t, err := s.dec.Token()
		if err != nil {
			return crs, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t {
		case "features":
			if t, err := s.dec.Token(); err != nil || t != json.Delim('[') {
				return crs, fmt.Errorf(`%w: "features" is not an array`, ErrMalformed)
			}
			return crs, nil
		case "type":
			var typ string
			if err := s.dec.Decode(&typ); err != nil || typ != "FeatureCollection" {
				return crs, fmt.Errorf("%w: a GeoJSON %q, not a FeatureCollection (one feature a line is read as a text sequence)", ErrMalformed, typ)
			}
		case "crs":
			var c struct {
				Type       string `json:"type"`
				Properties struct {
					Name string `json:"name"`
				} `json:"properties"`
			}
			if err := s.dec.Decode(&c); err != nil {
				return crs, fmt.Errorf("%w: crs: %v", ErrMalformed, err)
			}
			if crs, err = crsOfName(c.Properties.Name); err != nil {
				return crs, err
			}
		default:
			var skip json.RawMessage
			if err := s.dec.Decode(&skip); err != nil {
				return crs, fmt.Errorf("%w: %v", ErrMalformed, err)
			}
		}
	}
	return crs, fmt.Errorf(`%w: no "features" array: not a FeatureCollection`, ErrMalformed)
}

// crsOfName reads a GeoJSON 2008 named crs: OGC's CRS84 or an EPSG code as
// a URN or "EPSG:n".
func crsOfName(name string) (CRS, error) {
	n := strings.ToUpper(name)
	switch n {
	case "URN:OGC:DEF:CRS:OGC:1.3:CRS84", "URN:OGC:DEF:CRS:OGC::CRS84", "CRS84":
		return wgs84, nil
	}
	for _, prefix := range []string{"URN:OGC:DEF:CRS:EPSG::", "URN:OGC:DEF:CRS:EPSG:", "EPSG:"} {
		if code, ok := strings.CutPrefix(n, prefix); ok {
			var c int
			if _, err := fmt.Sscanf(code, "%d", &c); err == nil {
				if crs, ok := crsOfEPSG(c); ok {
					return crs, nil
				}
			}
		}
	}
	return CRS{}, fmt.Errorf("%w: the collection's crs is %q: only NAD83 (EPSG:4269) and WGS 84 (EPSG:4326, CRS84) are read; reproject with ogr2ogr -t_srs EPSG:4326", ErrCRS, name)
}

func (s *jsonSource) next() (Feature, error) {
	if a := s.ahead; a != nil {
		s.ahead = nil
		return a.f, a.err
	}
	return s.read()
}

func (s *jsonSource) read() (Feature, error) {
	if s.done {
		return Feature{}, io.EOF
	}
	var text []byte
	if s.seq {
		for {
			var err error
			text, err = s.text()
			if err == io.EOF && len(bytes.TrimSpace(text)) == 0 {
				s.done = true
				return Feature{}, io.EOF
			}
			if err != nil && err != io.EOF {
				return Feature{}, err
			}
			if text = bytes.TrimSpace(text); len(text) > 0 {
				if s.rs {
					s.line++
				}
				break
			}
		}
	} else {
		if !s.dec.More() {
			s.done = true
			return Feature{}, io.EOF
		}
		var raw json.RawMessage
		if err := s.dec.Decode(&raw); err != nil {
			return Feature{}, fmt.Errorf("%w: feature %d: %v", ErrMalformed, s.index, err)
		}
		text = raw
	}
	f := Feature{Index: s.index}
	s.index++
	order, err := decodeFeature(text, &f)
	if f.Index == 0 {
		s.first = order
	}
	if err != nil {
		switch {
		case s.rs:
			err = fmt.Errorf("text %d: %w", s.line, err)
		case s.seq:
			err = fmt.Errorf("line %d: %w", s.line, err)
		}
		return f, &FeatureError{Index: f.Index, Err: err}
	}
	return f, nil
}

// text reads a sequence's next text: up to a record separator (RFC 8142),
// or a line.
func (s *jsonSource) text() ([]byte, error) {
	if s.rs {
		b, err := s.br.ReadBytes(recordSeparator)
		return bytes.TrimSuffix(b, []byte{recordSeparator}), err
	}
	s.line++
	return s.br.ReadBytes('\n')
}

// decodeFeature reads one GeoJSON Feature's properties (in their order, for
// the columns) and geometry.
func decodeFeature(text []byte, f *Feature) ([]string, error) {
	var raw struct {
		Type       string          `json:"type"`
		Geometry   json.RawMessage `json:"geometry"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("not a GeoJSON feature: %v", err)
	}
	if raw.Type != "Feature" {
		return nil, fmt.Errorf("a GeoJSON %q, not a Feature", raw.Type)
	}
	props, order, err := decodeProperties(raw.Properties)
	f.Properties = props
	if err != nil {
		return order, err
	}
	if len(raw.Geometry) > 0 && string(raw.Geometry) != "null" {
		g, err := geojson.UnmarshalGeometry(raw.Geometry)
		if err != nil {
			return order, fmt.Errorf("geometry: %v", err)
		}
		if g.Coordinates == nil && g.Geometries == nil {
			return order, fmt.Errorf("geometry: no coordinates")
		}
		f.Geometry = g.Geometry()
		if err := normalize(f.Geometry); err != nil {
			return order, err
		}
	}
	return order, nil
}

// decodeProperties reads a properties object: a string is a string, a
// number an int64 when written without a fraction or exponent and in
// range, else a float64, true and false bools, null nil, and an array or
// object its JSON text.
func decodeProperties(raw json.RawMessage) (map[string]any, []string, error) {
	props := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return props, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return props, nil, fmt.Errorf("properties are not an object")
	}
	var order []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return props, order, fmt.Errorf("properties: %v", err)
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return props, order, fmt.Errorf("properties: %s: %v", key, err)
		}
		if _, dup := props[key]; !dup {
			order = append(order, key)
		}
		props[key] = jsonValue(v)
	}
	return props, order, nil
}

func jsonValue(v json.RawMessage) any {
	switch v[0] {
	case 'n':
		return nil
	case 't':
		return true
	case 'f':
		return false
	case '"':
		var s string
		json.Unmarshal(v, &s)
		return s
	case '{', '[':
		return string(v)
	}
	n := json.Number(v)
	if !bytes.ContainsAny(v, ".eE") {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	f, _ := n.Float64()
	return f
}

func (s *jsonSource) close() error { return s.f.Close() }
