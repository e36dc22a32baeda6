package geofile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/paulmach/orb"
)

// The causes of the errors Open and Next return, for errors.Is. Every
// error names the file (and the member of a .zip) it is about.
var (
	// ErrUnknownFormat: the file is none of the formats read here.
	ErrUnknownFormat = errors.New("not a spatial file of a known format (a shapefile's .shp or .zip, GeoJSON, a GeoJSON text sequence, a GeoPackage)")
	// ErrMalformed: the file is of a known format but does not follow it
	// (a bad header, a .dbf whose records do not pair with the .shp's).
	ErrMalformed = errors.New("malformed")
	// ErrMissingPart: a shapefile lacks its .dbf (the attributes).
	ErrMissingPart = errors.New("a part of the shapefile is missing")
	// ErrTruncated: the file ends before its header or a record says.
	ErrTruncated = errors.New("truncated")
	// ErrCRS: the coordinates are projected, or in a system the reader
	// does not know (see CRS).
	ErrCRS = errors.New("coordinate system not read")
	// ErrLayer: the file holds several layers and Options.Layer names none
	// of them (the message lists them).
	ErrLayer = errors.New("no such layer")
	// ErrFeature: one feature could not be read; the reader goes on with
	// the next (see FeatureError).
	ErrFeature = errors.New("unreadable feature")
	// ErrOpenRing: a polygon's ring does not end where it starts (a cause
	// of a FeatureError).
	ErrOpenRing = errors.New("ring not closed")
)

// FeatureError is the error Next returns for one feature it could not
// read (a broken geometry, an attribute that is not of its column's type).
// It is not fatal: the next call to Next reads the next feature. It
// matches ErrFeature with errors.Is, and the cause (such as ErrOpenRing).
type FeatureError struct {
	// File is the file (for a .zip, "archive.zip: member.shp").
	File string
	// Index is the feature's position in the file, from 0.
	Index int
	Err   error
}

func (e *FeatureError) Error() string {
	return fmt.Sprintf("%s: feature %d: %v", e.File, e.Index, e.Err)
}

// Unwrap returns the cause.
func (e *FeatureError) Unwrap() error { return e.Err }

// Is reports whether target is ErrFeature.
func (e *FeatureError) Is(target error) bool { return target == ErrFeature }

// Feature is one feature of a file.
type Feature struct {
	// Index is the feature's position in the file, from 0: a shapefile's
	// record number less one (GDAL's feature id for a shapefile), a
	// GeoJSON feature's position in its collection or sequence, a
	// GeoPackage feature's position in the order of its feature ids.
	Index int
	// Properties holds the attributes by column name, as the file spells
	// it. Values are string, int64, float64, bool, time.Time (a date), or
	// nil for a missing or null value (see the package documentation for
	// each format's types).
	Properties map[string]any
	// Geometry is nil for a feature without one (a shapefile's null
	// shape, a GeoJSON null geometry, an empty GeoPackage geometry).
	Geometry orb.Geometry
}

// Format is the kind of file a Reader reads.
type Format string

// The formats read.
const (
	Shapefile  Format = "shapefile"
	GeoJSON    Format = "geojson"
	GeoJSONSeq Format = "geojsonseq"
	GeoPackage Format = "geopackage"
)

// Options are what Open may be told about a file. The zero value reads a
// file's only layer.
type Options struct {
	// Layer chooses the layer of a file that holds several: a
	// shapefile's name in a .zip ("S_FLD_HAZ_AR", with or without .shp),
	// a feature table of a GeoPackage. Names compare without regard to
	// case. Empty: the file's only layer (a file with several is refused,
	// naming them, with ErrLayer).
	Layer string
}

// source is one format's reading: the next feature (io.EOF at the end, a
// *FeatureError for one feature, any other error fatal) and its end.
type source interface {
	next() (Feature, error)
	close() error
}

// Reader streams the features of one spatial file, one at a time in
// constant memory (the feature being read, and for a shapefile one record
// of each of its two files). Open makes one; it is not safe for concurrent
// use.
type Reader struct {
	name    string
	format  Format
	layer   string
	crs     CRS
	columns []string
	src     source
	err     error
}

// Open opens the spatial file at path, recognized by its content, not its
// name: a shapefile (its .shp, with the .dbf, .prj and .cpg beside it), a
// .zip holding one (as the Census Bureau and FEMA publish them), a GeoJSON
// FeatureCollection, a GeoJSON text sequence (one feature a line, or RFC
// 8142's record separators), or a GeoPackage. It reads the header, the
// columns and the coordinate system, and refuses (errors.Is): a file of
// none of those formats (ErrUnknownFormat), a shapefile without its .dbf
// (ErrMissingPart), a .shp shorter than its header says (ErrTruncated), a
// coordinate system other than NAD83 or WGS 84 in degrees (ErrCRS), a
// file of several layers without Options.Layer (ErrLayer), and a file
// that does not follow its format (ErrMalformed). Close the Reader when
// done.
func Open(path string, opts Options) (*Reader, error) {
	r, err := open(path, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.name = path
	return r, nil
}

func open(path string, opts Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		f.Close()
		return nil, err
	}
	head = head[:n]
	f.Close()
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return openZip(path, opts)
	case len(head) >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 0x27 && head[3] == 0x0a: // 9994, big-endian
		return openShapefile(path)
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return openGeoPackage(path, opts)
	case isJSON(head):
		return openGeoJSON(path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dbf", ".shx", ".prj", ".cpg":
		return nil, fmt.Errorf("%w: open a shapefile by its .shp", ErrUnknownFormat)
	}
	return nil, ErrUnknownFormat
}

// isJSON reports whether the file starts (after a byte order mark and
// blanks) with an object or RFC 8142's record separator.
func isJSON(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF"))
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && (head[0] == '{' || head[0] == 0x1E)
}

// Next returns the next feature, and io.EOF after the last. An error that
// matches ErrFeature (a *FeatureError) is about that feature alone: the
// Feature returned holds its Index and the properties that could be read,
// and the next call reads the next feature. Any other error is fatal: the
// file cannot be read further (ErrTruncated, ErrMalformed, an I/O error),
// and every later call returns it again.
//
//	for {
//		f, err := r.Next()
//		if errors.Is(err, io.EOF) {
//			break
//		}
//		if errors.Is(err, geofile.ErrFeature) {
//			refuse(f.Index, err) // and go on
//			continue
//		}
//		if err != nil {
//			return err
//		}
//		use(f)
//	}
func (r *Reader) Next() (Feature, error) {
	if r.err != nil {
		return Feature{}, r.err
	}
	f, err := r.src.next()
	if err == nil {
		return f, nil
	}
	var fe *FeatureError
	if errors.As(err, &fe) {
		fe.File = r.name + fe.File
		return f, fe
	}
	if err != io.EOF {
		err = fmt.Errorf("%s: %w", r.name, err)
	}
	r.err = err
	return Feature{}, err
}

// Columns returns the attribute columns' names as the file spells them, in
// its order: a .dbf's fields, a GeoPackage table's columns (less its
// feature id and geometry), or the properties of a GeoJSON file's first
// feature (GeoJSON declares no columns; a later feature may hold others).
func (r *Reader) Columns() []string { return r.columns }

// Missing returns those of names that are not among Columns, in the order
// given, so a loader can name every column a layout needs that the file
// lacks at once. Names compare exactly: TIGER/Line and NFHL spell theirs
// in capitals in every format they publish.
func (r *Reader) Missing(names ...string) []string {
	have := make(map[string]bool, len(r.columns))
	for _, c := range r.columns {
		have[c] = true
	}
	var out []string
	for _, n := range names {
		if !have[n] {
			out = append(out, n)
		}
	}
	return out
}

// CRS returns the coordinate system of the file's coordinates.
func (r *Reader) CRS() CRS { return r.crs }

// Format returns the kind of file being read.
func (r *Reader) Format() Format { return r.format }

// Layer returns the layer being read: the shapefile's name (without
// .shp), the GeoPackage table, or "" for GeoJSON.
func (r *Reader) Layer() string { return r.layer }

// Close releases the file.
func (r *Reader) Close() error { return r.src.close() }
