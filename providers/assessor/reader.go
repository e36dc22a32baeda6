package assessor

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/geojson"

	"github.com/propertyd/propertyd/providers"
)

// rowReader streams the rows of one file: CSV with a header row, or a
// GeoJSON FeatureCollection (one feature a row, its properties the
// columns), either gzipped (recognized by its first bytes, not its name).
// Constant memory: one row at a time.
type rowReader struct {
	name   string
	f      *os.File
	gz     *gzip.Reader
	csv    *csv.Reader
	header map[string]int // lower-cased column name to position (CSV)
	fields []string
	line   int

	dec      *json.Decoder
	props    map[string]string // lower-cased property name to text (GeoJSON)
	geometry *providers.Point
	parcel   *providers.Parcel // the feature's polygon, when it is one
	columns  []string
}

// openRows opens path and reads its header (CSV) or finds its features
// (GeoJSON).
func openRows(path string) (*rowReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &rowReader{name: path, f: f}
	br := bufio.NewReaderSize(f, 1<<16)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if r.gz, err = gzip.NewReader(br); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		in = bufio.NewReaderSize(r.gz, 1<<16)
	}
	bin := in.(*bufio.Reader)
	// Skip a UTF-8 byte order mark and blanks to see what the file is.
	if bom, _ := bin.Peek(3); len(bom) == 3 && bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF {
		bin.Discard(3)
	}
	first := byte(0)
	for {
		b, err := bin.Peek(1)
		if err != nil {
			break
		}
		if b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t' {
			bin.Discard(1)
			continue
		}
		first = b[0]
		break
	}
	if head, _ := bin.Peek(512); isBinary(head) {
		r.Close()
		return nil, fmt.Errorf("%s: %w: it starts with bytes of a binary file", path, ErrNotText)
	}
	if first == '{' {
		err = r.openGeoJSON(bin)
	} else {
		err = r.openCSV(bin)
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// isBinary reports whether a file starting with head is no text: it holds
// a NUL byte, or a control character no text file has (an executable, a
// PBF extract, a zip or an image all do within their first bytes). Text in
// any ASCII-compatible encoding passes, Latin-1 included.
func isBinary(head []byte) bool {
	for _, b := range head {
		if b == 0 || (b < ' ' && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7f {
			return true
		}
	}
	return false
}

func (r *rowReader) openCSV(in io.Reader) error {
	r.csv = csv.NewReader(in)
	r.csv.FieldsPerRecord = -1
	r.csv.ReuseRecord = true
	head, err := r.csv.Read()
	if err != nil {
		return fmt.Errorf("reading the header row: %w", err)
	}
	r.line = 1
	r.header = make(map[string]int, len(head))
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		r.columns = append(r.columns, h)
		if _, dup := r.header[h]; !dup {
			r.header[h] = i
		}
	}
	return nil
}

// openGeoJSON moves the decoder to the first feature of the collection's
// "features" array.
func (r *rowReader) openGeoJSON(in io.Reader) error {
	r.dec = json.NewDecoder(in)
	if t, err := r.dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not a GeoJSON object")
	}
	for r.dec.More() {
		t, err := r.dec.Token()
		if err != nil {
			return err
		}
		if t == "features" {
			if t, err := r.dec.Token(); err != nil || t != json.Delim('[') {
				return fmt.Errorf(`"features" is not an array`)
			}
			return nil
		}
		var skip json.RawMessage
		if err := r.dec.Decode(&skip); err != nil {
			return err
		}
	}
	return fmt.Errorf(`no "features" array: not a FeatureCollection`)
}

// has reports whether the file has the column (GeoJSON: whether the first
// feature has the property; Load checks after reading it).
func (r *rowReader) has(col string) bool {
	col = strings.ToLower(col)
	if r.header != nil {
		_, ok := r.header[col]
		return ok
	}
	_, ok := r.props[col]
	return ok
}

// next reads the next row; io.EOF at the end. A row the format cannot
// read at all (a CSV quote left open) is an error that stops the file.
func (r *rowReader) next() error {
	r.line++
	if r.csv != nil {
		rec, err := r.csv.Read()
		if err != nil {
			if pe, ok := err.(*csv.ParseError); ok && pe.Err == csv.ErrFieldCount {
				err = nil
			} else {
				return err
			}
		}
		r.fields = rec
		return nil
	}
	if !r.dec.More() {
		return io.EOF
	}
	var feat geojson.Feature
	if err := r.dec.Decode(&feat); err != nil {
		return fmt.Errorf("feature %d: %w", r.line-1, err)
	}
	r.props = make(map[string]string, len(feat.Properties))
	for k, v := range feat.Properties {
		r.props[strings.ToLower(k)] = propText(v)
	}
	r.geometry, r.parcel = nil, nil
	if feat.Geometry != nil {
		bound := feat.Geometry.Bound()
		c := bound.Center()
		if !bound.IsEmpty() || c[0] != 0 || c[1] != 0 {
			r.geometry = &providers.Point{Lat: c[1], Lng: c[0]}
		}
		switch feat.Geometry.(type) {
		case orb.Polygon, orb.MultiPolygon:
			if raw, err := wkb.Marshal(feat.Geometry); err == nil {
				r.parcel = &providers.Parcel{WKB: raw, South: bound.Min[1], North: bound.Max[1], West: bound.Min[0], East: bound.Max[0]}
			}
		}
	}
	return nil
}

// propText writes a GeoJSON property as a CSV cell would hold it.
func propText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// get returns the current row's cell of col ("" when absent).
func (r *rowReader) get(col string) string {
	col = strings.ToLower(col)
	if r.csv != nil {
		i, ok := r.header[col]
		if !ok || i >= len(r.fields) {
			return ""
		}
		return r.fields[i]
	}
	return r.props[col]
}

func (r *rowReader) Close() error {
	if r.gz != nil {
		r.gz.Close()
	}
	return r.f.Close()
}
