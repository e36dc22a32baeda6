// Package geofile reads the spatial files public boundaries and flood zones
// are published in, one feature at a time, for the loaders of census
// boundaries (TIGER/Line) and flood zones (FEMA's NFHL): each format read
// into the same Feature (attributes by column, an orb geometry) so a loader
// is written once for all of them.
//
// # The specs
//
//   - Shapefiles: ESRI's "Shapefile Technical Description" (July 1998) for
//     the .shp, the dBase III file format for the .dbf, ESRI's .prj (OGC
//     WKT 1) and .cpg (the .dbf's code page) conventions. Opened by the
//     .shp's path with its parts beside it, or as the .zip the Census
//     Bureau publishes (tl_2023_11_tract.zip) or FEMA's county downloads
//     (several shapefiles in one .zip: Options.Layer chooses). No Go module
//     of a maintained shapefile reader could be had (the module proxy
//     served none of github.com/jonas-p/go-shp,
//     github.com/everystreet/go-shapefile, github.com/twpayne/go-shapefile),
//     so the two formats are read here (shapefile.go, dbf.go, polygon.go).
//   - GeoJSON: RFC 7946 FeatureCollections (streamed from the "features"
//     array, never decoded whole), GeoJSON text sequences (one Feature a
//     line, as GDAL's GeoJSONSeq writes and "newline-delimited" GeoJSON
//     is, or RFC 8142's record-separated texts).
//   - GeoPackage: the OGC GeoPackage Encoding Standard 1.3 (12-128r18),
//     through package store/gpkg, which holds the SQLite driver.
//
// The format is recognized by the file's first bytes, not its name (a
// text sequence also by its name: .geojsonl, .geojsons, .ndjson, .jsonl).
//
// # Attributes
//
// Feature.Properties holds each column by its name as the file spells it.
// A .dbf's C fields are strings (trailing blanks trimmed, decoded from the
// code page the .cpg names, else the one the header's language driver byte
// names, else ISO-8859-1), N fields int64 when they have no decimals, else
// float64, as F fields; D fields a time.Time (midnight UTC); L fields a
// bool. A blank value is nil: dBase has no null and writes blanks for
// one, so an empty string and a missing one both read as nil. GeoJSON
// numbers written without a fraction or exponent are int64, others
// float64, so 12.5 and -9999.0 are float64 and 2153017 an int64 whichever
// format holds them; GeoJSON strings stay strings (a date stays text).
// GeoPackage values are as stored (INTEGER int64, REAL float64, TEXT
// string, DATE and DATETIME time.Time, BOOLEAN bool, BLOB []byte).
//
// # Geometries
//
// Points, multipoints, lines and polygons are read into orb types (a
// shapefile's Z and M values are dropped). A shapefile's polygon lists its
// rings without saying which are holes: the outer rings run clockwise and
// holes counter-clockwise, and each hole is given to the smallest outer
// ring holding it (see assemble). Every polygon, from every format, comes
// out as RFC 7946 orients it (outer rings counter-clockwise, holes
// clockwise), with each ring closed, so the same shape is the same
// orb.Polygon whichever file held it. A GeoPackage geometry with Z or M
// coordinates is refused as a feature error (convert with ogr2ogr -dim
// XY).
//
// # Coordinate systems
//
// Coordinates are taken as they are in NAD83 (EPSG:4269, TIGER/Line's and
// the NFHL's) and WGS 84 (EPSG:4326, GeoJSON's): see CRS. A .prj or a
// GeoPackage SRS that is projected, or any other system, is refused when
// the file is opened (ErrCRS), naming it; so is a shapefile without a
// .prj.
//
// # Errors
//
// Every error names its file. Open refuses what cannot be read at all;
// Next returns a *FeatureError (errors.Is ErrFeature) for one feature it
// cannot read and goes on with the next (a ring that does not close, a
// number that is not one), and any other error when the file cannot be
// read further (a record past the end of a truncated .shp).
//
// # Memory
//
// One feature is in memory at a time, besides fixed buffers (256 KiB for a
// .shp, 64 KiB for a .dbf, 1 MiB for GeoJSON). A .zip's members are read
// as they are decompressed, never extracted. A GeoJSON feature is decoded
// whole, so the largest feature bounds the memory, not the file.
//
// # Speed
//
// BenchmarkReadShapefile reads a shapefile of a million vertices (1,000
// polygons with a hole, three attributes) at 9.5 to 20 million vertices a
// second on the two-core development machine (shared, load 7 to 8 when
// measured), ten to twenty times the million a second the loaders aim at,
// storing included.
package geofile
