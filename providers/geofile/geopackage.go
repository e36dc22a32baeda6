package geofile

import (
	"fmt"
	"io"
	"strings"
)

// gpkgSource reads a GeoPackage's feature table through the registered
// opener (store/gpkg).
type gpkgSource struct {
	file  GPKGFile
	rows  GPKGRows
	index int
}

// openGeoPackage opens a GeoPackage's only feature table, or the one
// opts.Layer names, and reads its SRS.
func openGeoPackage(p string, opts Options) (*Reader, error) {
	if openGPKG == nil {
		return nil, fmt.Errorf("%w: this program reads no GeoPackage (it does not import store/gpkg)", ErrUnknownFormat)
	}
	file, err := openGPKG(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	r, err := readGeoPackage(file, opts)
	if err != nil {
		file.Close()
		return nil, err
	}
	return r, nil
}

func readGeoPackage(file GPKGFile, opts Options) (*Reader, error) {
	layers, err := file.Layers()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	names := make([]string, len(layers))
	for i, l := range layers {
		names[i] = l.Table
	}
	var layer *GPKGLayer
	for i, l := range layers {
		if strings.EqualFold(l.Table, opts.Layer) || (opts.Layer == "" && len(layers) == 1) {
			layer = &layers[i]
			break
		}
	}
	if layer == nil {
		switch {
		case len(layers) == 0:
			return nil, fmt.Errorf("%w: the GeoPackage holds no feature table", ErrLayer)
		case opts.Layer == "":
			return nil, fmt.Errorf("%w: the GeoPackage holds %d feature tables, choose one: %s", ErrLayer, len(layers), strings.Join(names, ", "))
		default:
			return nil, fmt.Errorf("%w: the GeoPackage holds no feature table %q, only %s", ErrLayer, opts.Layer, strings.Join(names, ", "))
		}
	}
	crs, err := gpkgCRS(layer.SRS)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", layer.Table, err)
	}
	rows, err := file.Read(*layer)
	if err != nil {
		return nil, fmt.Errorf("%w: table %s: %v", ErrMalformed, layer.Table, err)
	}
	s := &gpkgSource{file: file, rows: rows}
	return &Reader{format: GeoPackage, layer: layer.Table, crs: crs, columns: rows.Columns(), src: s}, nil
}

// gpkgCRS reads a layer's SRS: by its EPSG code when it has one of the two
// taken, else by its definition (to name a projected one).
func gpkgCRS(srs GPKGSRS) (CRS, error) {
	if strings.EqualFold(srs.Organization, "EPSG") {
		if c, ok := crsOfEPSG(int(srs.Code)); ok {
			return c, nil
		}
	}
	if srs.ID == 0 || srs.ID == -1 || strings.TrimSpace(srs.Definition) == "" || strings.EqualFold(srs.Definition, "undefined") {
		return CRS{}, fmt.Errorf("%w: SRS %d (%q) is undefined", ErrCRS, srs.ID, srs.Name)
	}
	c, err := crsOfWKT(srs.Definition)
	if err != nil {
		return CRS{}, fmt.Errorf("SRS %s:%d (%s): %w", srs.Organization, srs.Code, srs.Name, err)
	}
	return c, nil
}

func (s *gpkgSource) next() (Feature, error) {
	fid, values, blob, ok := s.rows.Next()
	if !ok {
		if err := s.rows.Err(); err != nil {
			return Feature{}, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		return Feature{}, io.EOF
	}
	cols := s.rows.Columns()
	f := Feature{Index: s.index, Properties: make(map[string]any, len(cols))}
	s.index++
	for i, c := range cols {
		f.Properties[c] = values[i]
	}
	g, err := decodeGPKGGeometry(blob)
	if err == nil {
		err = normalize(g)
	}
	if err != nil {
		return f, &FeatureError{Index: f.Index, Err: fmt.Errorf("fid %d: %w", fid, err)}
	}
	f.Geometry = g
	return f, nil
}

func (s *gpkgSource) close() error {
	s.rows.Close()
	return s.file.Close()
}
