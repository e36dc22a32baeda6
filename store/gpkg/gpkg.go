// Package gpkg reads the feature tables of a GeoPackage: an SQLite file laid
// out as the OGC GeoPackage Encoding Standard (12-128r18, version 1.3) has
// it, what a File Geodatabase or a shapefile converted with ogr2ogr becomes.
// It knows the standard's tables (gpkg_contents, gpkg_geometry_columns,
// gpkg_spatial_ref_sys) and hands each feature's geometry over as stored:
// package providers/geofile decodes the geometry encoding (the "GP"
// header, then WKB) and reads the features as it reads every other
// spatial file. Importing this package registers it there
// (geofile.RegisterGeoPackage), as a database/sql driver registers itself,
// so that providers import nothing of store.
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

	_ "github.com/mattn/go-sqlite3" // the SQLite driver, as "sqlite3"

	"github.com/propertyd/propertyd/providers/geofile"
)

// init gives providers/geofile its way to open GeoPackages: a program that
// reads them imports this package.
func init() {
	geofile.RegisterGeoPackage(func(path string) (geofile.GPKGFile, error) {
		f, err := Open(path)
		if err != nil {
			return nil, err
		}
		return geoPackage{f}, nil
	})
}

// geoPackage is a File as geofile.GPKGFile.
type geoPackage struct{ *File }

func (g geoPackage) Read(layer Layer) (geofile.GPKGRows, error) { return g.File.Read(layer) }

// ErrNotGeoPackage is the cause of the error Open returns for an SQLite
// file without the GeoPackage's tables.
var ErrNotGeoPackage = errors.New("not a GeoPackage")

// SRS and Layer are geofile's, which reads what this package gives.
type (
	SRS   = geofile.GPKGSRS
	Layer = geofile.GPKGLayer
)

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
// the order of Columns) and its geometry as stored (geofile decodes it).
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

// quote quotes an SQL identifier.
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
