package geofile

import (
	"errors"
	"fmt"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

// A GeoPackage is an SQLite file, and only store opens SQLite files (one
// dependency a package): store/gpkg reads the standard's tables and
// registers itself here, as a database/sql driver does, so that nothing
// under providers imports store. This file is the rest: the layer and
// rows it hands over, and the standard's geometry encoding.

// GPKGSRS is a row of gpkg_spatial_ref_sys: a coordinate reference system as the
// file defines it. Organization and Code name it in a registry ("EPSG",
// 4269); Definition is its WKT (the standard's definition column, OGC WKT
// 1).
type GPKGSRS struct {
	ID           int64
	Name         string
	Organization string
	Code         int64
	Definition   string
}

// GPKGLayer is a feature table of the file: a gpkg_contents row of data type
// "features" with its geometry column and that column's SRS.
type GPKGLayer struct {
	Table          string
	GeometryColumn string
	// GeometryType is the column's declared type (POLYGON, MULTIPOLYGON,
	// GEOMETRY...), as gpkg_geometry_columns holds it.
	GeometryType string
	SRS          GPKGSRS
}

// GPKGFile is an open GeoPackage's feature tables, as the registered
// opener (store/gpkg) gives them.
type GPKGFile interface {
	// Layers lists the feature tables, by name.
	Layers() ([]GPKGLayer, error)
	// Read streams a layer's features in the order of their ids.
	Read(layer GPKGLayer) (GPKGRows, error)
	Close() error
}

// GPKGRows streams a layer's features: Next gives each one's feature id,
// its attribute values in the order of Columns, and its geometry as stored
// (decoded here); ok false at the end or on an error Err then returns.
type GPKGRows interface {
	Columns() []string
	Next() (fid int64, values []any, geometry []byte, ok bool)
	Err() error
	Close() error
}

// openGPKG is the registered opener; nil until a program imports
// store/gpkg.
var openGPKG func(path string) (GPKGFile, error)

// RegisterGeoPackage makes Open read GeoPackage files with open. store/gpkg
// calls it in its init; calling it twice panics, as registering a database
// driver twice does.
func RegisterGeoPackage(open func(path string) (GPKGFile, error)) {
	if open == nil || openGPKG != nil {
		panic("geofile: RegisterGeoPackage called twice or with nil")
	}
	openGPKG = open
}

// errGeometry is the cause of the feature error of a geometry that
// decodeGPKGGeometry cannot read.
var errGeometry = errors.New("unreadable GeoPackage geometry")

// decodeGPKGGeometry decodes a geometry as the standard stores it (2.1.3,
// GeoPackageBinary): "GP", a version (0), flags (byte order, envelope
// kind, empty), the SRS id, the envelope, then the geometry in ISO WKB. A
// nil or empty geometry decodes to nil. Geometries with Z or M coordinates
// and the extended binary type are not read (an error wrapping
// errGeometry): convert with ogr2ogr -dim XY.
func decodeGPKGGeometry(b []byte) (orb.Geometry, error) {
	if b == nil {
		return nil, nil
	}
	if len(b) < 8 || b[0] != 'G' || b[1] != 'P' {
		return nil, fmt.Errorf(`%w: no "GP" header`, errGeometry)
	}
	if b[2] != 0 {
		return nil, fmt.Errorf("%w: version %d of the binary format", errGeometry, b[2])
	}
	flags := b[3]
	if flags&0x20 != 0 {
		return nil, fmt.Errorf("%w: an extended geometry type", errGeometry)
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
		return nil, fmt.Errorf("%w: envelope kind %d", errGeometry, (flags>>1)&7)
	}
	if len(b) < 8+envelope {
		return nil, fmt.Errorf("%w: shorter than its header", errGeometry)
	}
	if flags&0x10 != 0 {
		return nil, nil
	}
	g, err := wkb.Unmarshal(b[8+envelope:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errGeometry, err)
	}
	return g, nil
}
