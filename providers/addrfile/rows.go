package addrfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/geofile"
)

// record is one row of a file, whatever its format: its position (from 0),
// its line in a text file (0 for others), its columns and its geometry.
type record struct {
	index int
	line  int
	get   func(col string) string
	geom  orb.Geometry
}

// rows reads one file's records in order: io.EOF at the end; a
// *rowError for one record it cannot read and goes on after; any other
// error is fatal.
type rows interface {
	columns() []string
	next() (record, error)
	close() error
}

// rowError is one record that could not be read (a CSV line with a stray
// quote, a feature with a broken geometry).
type rowError struct {
	index int
	err   error
}

func (e *rowError) Error() string { return e.err.Error() }

// isSpatial reports whether the file's first bytes make it one package
// geofile reads (a shapefile, a .zip, GeoJSON, a GeoPackage); any other
// file is read as CSV (gzipped or not).
func isSpatial(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	head = head[:n]
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")),
		len(head) >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 0x27 && head[3] == 0x0a,
		bytes.HasPrefix(head, []byte("SQLite format 3")),
		len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == 0x1E):
		return true, nil
	}
	return false, nil
}

// openRows opens path as its first bytes say.
func openRows(path string) (rows, bool, error) {
	spatial, err := isSpatial(path)
	if err != nil {
		return nil, false, err
	}
	if spatial {
		r, err := geofile.Open(path, geofile.Options{})
		if err != nil {
			return nil, true, err
		}
		return &geoRows{r: r}, true, nil
	}
	r, err := openCSV(path)
	return r, false, err
}

// csvRows reads a CSV file (RFC 4180; a byte order mark is dropped; a
// gzipped file is read through gzip), its first line the header.
type csvRows struct {
	f      *os.File
	cr     *csv.Reader
	header []string
	index  map[string]int
	n      int
}

func openCSV(path string) (*csvRows, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var in io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		in = gz
	}
	cr := csv.NewReader(in)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		f.Close()
		return nil, fmt.Errorf("%s: %w: the file is empty", path, ErrLayout)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: the header: %w", path, err)
	}
	r := &csvRows{f: f, cr: cr, index: map[string]int{}}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		h = strings.TrimSpace(h)
		r.header = append(r.header, h)
		if _, dup := r.index[strings.ToLower(h)]; !dup {
			r.index[strings.ToLower(h)] = i
		}
	}
	return r, nil
}

func (r *csvRows) columns() []string { return r.header }

func (r *csvRows) next() (record, error) {
	fields, err := r.cr.Read()
	if err == io.EOF {
		return record{}, io.EOF
	}
	index := r.n
	r.n++
	var pe *csv.ParseError
	if errors.As(err, &pe) && !errors.Is(err, csv.ErrFieldCount) {
		return record{index: index, line: pe.StartLine}, &rowError{index: index, err: fmt.Errorf("line %d: %w", pe.StartLine, pe.Err)}
	}
	if err != nil && !errors.Is(err, csv.ErrFieldCount) {
		return record{}, err
	}
	line, _ := r.cr.FieldPos(0)
	row := fields
	return record{index: index, line: line, get: func(col string) string {
		i, ok := r.index[strings.ToLower(col)]
		if !ok || i >= len(row) {
			return ""
		}
		return strings.TrimSpace(row[i])
	}}, nil
}

func (r *csvRows) close() error { return r.f.Close() }

// geoRows reads a spatial file's features.
type geoRows struct{ r *geofile.Reader }

func (g *geoRows) columns() []string { return g.r.Columns() }

func (g *geoRows) next() (record, error) {
	f, err := g.r.Next()
	if errors.Is(err, geofile.ErrFeature) {
		return record{index: f.Index}, &rowError{index: f.Index, err: err}
	}
	if err != nil {
		return record{}, err
	}
	cols := geofile.Columns{Props: f.Properties}
	return record{index: f.Index, geom: f.Geometry, get: func(col string) string {
		return text(cols.Value(col))
	}}, nil
}

func (g *geoRows) close() error { return g.r.Close() }

// text is a column's value as text: numbers as written without a
// needless fraction, null as "".
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return strings.TrimSpace(fmt.Sprint(v))
}
