// Package gpkg reads the feature tables of a GeoPackage: an SQLite file laid
// out as the OGC GeoPackage Encoding Standard (12-128r18, version 1.3) has
// it, what a File Geodatabase or a shapefile converted with ogr2ogr becomes.
// It knows the standard's tables (gpkg_contents, gpkg_geometry_columns,
// gpkg_spatial_ref_sys) and its geometry encoding (the "GP" header, then
// WKB), and nothing about what the features mean: package
// providers/geofile reads them as it reads every other spatial file.
//
// It lives under store because it is the second package that opens SQLite
// files, beside store itself: the driver and how a file is opened (a
// file: URI, read-only here) stay in one folder. The file is opened
// read-only (mode=ro) and never written; nothing of the driver crosses the
// API (values are int64, float64, string, []byte, bool for a BOOLEAN
// column, time.Time for a DATE or DATETIME one, or nil).
package gpkg

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver, as "sqlite3"
)

// ErrNotGeoPackage is the cause of the error Open returns for an SQLite
// file without the GeoPackage's tables.
var ErrNotGeoPackage = errors.New("not a GeoPackage")

// ErrGeometry is the cause of the error DecodeGeometry returns for a
// geometry it cannot read.
var ErrGeometry = errors.New("unreadable GeoPackage geometry")

// SRS is a row of gpkg_spatial_ref_sys: a coordinate reference system as the
// file defines it. Organization and Code name it in a registry ("EPSG",
// 4269); Definition is its WKT (the standard's definition column, OGC WKT
// 1).
type SRS struct {
	ID           int64
	Name         string
	Organization string
	Code         int64
	Definition   string
}

// Layer is a feature table of the file: a gpkg_contents row of data type
// "features" with its geometry column and that column's SRS.
type Layer struct {
	Table          string
	GeometryColumn string
	// GeometryType is the column's declared type (POLYGON, MULTIPOLYGON,
	// GEOMETRY...), as gpkg_geometry_columns holds it.
	GeometryType string
	SRS          SRS
}

// File is an open GeoPackage. It is not safe for concurrent use; Close
// releases it.
type File struct {
	db *sql.DB
}

// Open opens the GeoPackage at path (a file system path) read-only and
// checks that it holds the standard's tables. It returns an error wrapping
// ErrNotGeoPackage for an SQLite file without them.
func Open(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	db, err := sql.Open("sqlite3", u.String()+"?mode=ro")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view')
		AND name IN ('gpkg_contents', 'gpkg_geometry_columns', 'gpkg_spatial_ref_sys')`).Scan(&n)
	if err != nil {
		db.Close()
		return nil, err
	}
	if n != 3 {
		db.Close()
		return nil, fmt.Errorf("%w: an SQLite database without gpkg_contents, gpkg_geometry_columns and gpkg_spatial_ref_sys", ErrNotGeoPackage)
	}
	return &File{db: db}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.db.Close() }

// Layers lists the file's feature tables in the order of their names.
func (f *File) Layers() ([]Layer, error) {
	rows, err := f.db.Query(`SELECT c.table_name, g.column_name, g.geometry_type_name,
			s.srs_id, s.srs_name, s.organization, s.organization_coordsys_id, s.definition
		FROM gpkg_contents c
		JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
		LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id
		WHERE c.data_type = 'features'
		ORDER BY c.table_name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Layer
	for rows.Next() {
		var l Layer
		var id, code sql.NullInt64
		var name, org, def sql.NullString
		if err := rows.Scan(&l.Table, &l.GeometryColumn, &l.GeometryType, &id, &name, &org, &code, &def); err != nil {
			return nil, err
		}
		l.SRS = SRS{ID: id.Int64, Name: name.String, Organization: org.String, Code: code.Int64, Definition: def.String}
		if !id.Valid {
			l.SRS.ID = -1 // the column names an SRS the file does not define
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Rows streams a layer's features in the order of their feature ids, one
// at a time (constant memory). It is not safe for concurrent use.
type Rows struct {
	rows    *sql.Rows
	columns []string
	dest    []any
	fid     sql.NullInt64
	geom    []byte
	err     error
}

// Read starts reading layer's features. Its attribute columns are every
// column of the table but the feature id (its INTEGER PRIMARY KEY) and the
// geometry column, in the table's order.
func (f *File) Read(layer Layer) (*Rows, error) {
	info, err := f.db.Query(`SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid`, layer.Table)
	if err != nil {
		return nil, err
	}
	pk := ""
	var columns []string
	for info.Next() {
		var name, typ string
		var key int
		if err := info.Scan(&name, &typ, &key); err != nil {
			info.Close()
			return nil, err
		}
		switch {
		case key == 1 && strings.EqualFold(typ, "INTEGER"):
			pk = name
		case strings.EqualFold(name, layer.GeometryColumn):
		default:
			columns = append(columns, name)
		}
	}
	info.Close()
	if err := info.Err(); err != nil {
		return nil, err
	}
	if len(columns) == 0 && pk == "" {
		return nil, fmt.Errorf("%w: table %q is missing", ErrNotGeoPackage, layer.Table)
	}
	id := "rowid"
	if pk != "" {
		id = quote(pk)
	}
	list := []string{id, quote(layer.GeometryColumn)}
	for _, c := range columns {
		list = append(list, quote(c))
	}
	rows, err := f.db.Query(`SELECT ` + strings.Join(list, ", ") + ` FROM ` + quote(layer.Table) + ` ORDER BY ` + id)
	if err != nil {
		return nil, err
	}
	r := &Rows{rows: rows, columns: columns, dest: make([]any, len(list))}
	r.dest[0], r.dest[1] = &r.fid, &r.geom
	return r, nil
}

// Columns returns the attribute columns' names, in the table's order.
func (r *Rows) Columns() []string { return r.columns }

// Next reads the next feature: its feature id, its attribute values (in
// the order of Columns) and its geometry as stored (for DecodeGeometry).
// It returns ok false at the end, or on an error Err then returns.
func (r *Rows) Next() (fid int64, values []any, geometry []byte, ok bool) {
	if !r.rows.Next() {
		return 0, nil, nil, false
	}
	values = make([]any, len(r.columns))
	for i := range values {
		r.dest[i+2] = &values[i]
	}
	r.geom = nil
	if err := r.rows.Scan(r.dest...); err != nil {
		r.err = err
		r.rows.Close()
		return 0, nil, nil, false
	}
	return r.fid.Int64, values, r.geom, true
}

// Err returns the error that ended Next early, nil at the end of the rows.
func (r *Rows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Err()
}

// Close ends the reading.
func (r *Rows) Close() error { return r.rows.Close() }

// DecodeGeometry decodes a geometry as the standard stores it (2.1.3,
// GeoPackageBinary): "GP", a version (0), flags (byte order, envelope
// kind, empty), the SRS id, the envelope, then the geometry in ISO WKB. A
// nil or empty geometry decodes to nil. Geometries with Z or M coordinates
// and the extended binary type are not read (an error wrapping
// ErrGeometry): convert with ogr2ogr -dim XY.
func DecodeGeometry(b []byte) (orb.Geometry, error) {
	if b == nil {
		return nil, nil
	}
	if len(b) < 8 || b[0] != 'G' || b[1] != 'P' {
		return nil, fmt.Errorf(`%w: no "GP" header`, ErrGeometry)
	}
	if b[2] != 0 {
		return nil, fmt.Errorf("%w: version %d of the binary format", ErrGeometry, b[2])
	}
	flags := b[3]
	if flags&0x20 != 0 {
		return nil, fmt.Errorf("%w: an extended geometry type", ErrGeometry)
	}
	var envelope int
	switch (flags >> 1) & 7 {
	case 0:
	case 1:
		envelope = 32
	case 2, 3:
		envelope = 48
	case 4:
		envelope = 64
	default:
		return nil, fmt.Errorf("%w: envelope kind %d", ErrGeometry, (flags>>1)&7)
	}
	if len(b) < 8+envelope {
		return nil, fmt.Errorf("%w: shorter than its header", ErrGeometry)
	}
	if flags&0x10 != 0 {
		return nil, nil
	}
	g, err := wkb.Unmarshal(b[8+envelope:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGeometry, err)
	}
	return g, nil
}

// quote quotes an SQL identifier.
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
