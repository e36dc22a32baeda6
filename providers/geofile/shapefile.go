package geofile

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paulmach/orb"
)

// The shape types of ESRI's Shapefile Technical Description (July 1998).
const (
	shapeNull        = 0
	shapePoint       = 1
	shapePolyLine    = 3
	shapePolygon     = 5
	shapeMultiPoint  = 8
	shapePointZ      = 11
	shapePolyLineZ   = 13
	shapePolygonZ    = 15
	shapeMultiPointZ = 18
	shapePointM      = 21
	shapePolyLineM   = 23
	shapePolygonM    = 25
	shapeMultiPointM = 28
)

// shpSource reads a shapefile's .shp and .dbf side by side, record by
// record. The .shx (the offsets of the records) is not needed to read
// them in order and is not read.
type shpSource struct {
	prefix    string // "name.shp: " inside a .zip, "" for a file
	shp       *bufio.Reader
	dbf       *dbfReader
	closers   []io.Closer
	shapeType int32
	left      int64 // bytes of records the header announces, not read yet
	record    int   // records read
	buf       []byte
}

// shapefileParts are the files of one shapefile: each opened when asked.
type shapefileParts struct {
	shp, dbf func() (io.ReadCloser, int64, error)
	prj, cpg func() ([]byte, error) // nil when absent
	shpName  string
}

// openShapefile opens the shapefile whose .shp is at p, with the files
// beside it of the same name (their extension in either case).
func openShapefile(p string) (*Reader, error) {
	base := strings.TrimSuffix(p, filepath.Ext(p))
	sibling := func(ext string) string {
		for _, e := range []string{ext, strings.ToUpper(ext)} {
			if st, err := os.Stat(base + e); err == nil && st.Mode().IsRegular() {
				return base + e
			}
		}
		return ""
	}
	file := func(name string) func() (io.ReadCloser, int64, error) {
		return func() (io.ReadCloser, int64, error) {
			f, err := os.Open(name)
			if err != nil {
				return nil, 0, err
			}
			st, err := f.Stat()
			if err != nil {
				f.Close()
				return nil, 0, err
			}
			return f, st.Size(), nil
		}
	}
	small := func(name string) func() ([]byte, error) {
		if name == "" {
			return nil
		}
		return func() ([]byte, error) { return os.ReadFile(name) }
	}
	parts := shapefileParts{shp: file(p), shpName: filepath.Base(p)}
	if d := sibling(".dbf"); d != "" {
		parts.dbf = file(d)
	}
	parts.prj, parts.cpg = small(sibling(".prj")), small(sibling(".cpg"))
	r, err := readShapefile(parts, "")
	if err != nil {
		return nil, err
	}
	r.layer = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	return r, nil
}

// openZip opens the shapefile held in a .zip: its only one, or the one
// opts.Layer names. Members are read as they are decompressed, never
// extracted; they may be in a folder of the archive.
func openZip(p string, opts Options) (*Reader, error) {
	z, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	byName := map[string]*zip.File{}
	var layers []string
	for _, f := range z.File {
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") {
			continue
		}
		key := strings.ToLower(f.Name)
		byName[key] = f
		if path.Ext(key) == ".shp" {
			layers = append(layers, strings.TrimSuffix(f.Name, path.Ext(f.Name)))
		}
	}
	slices.Sort(layers)
	var chosen string
	switch want := strings.TrimSuffix(strings.ToLower(opts.Layer), ".shp"); {
	case len(layers) == 0:
		z.Close()
		return nil, fmt.Errorf("%w: a .zip without a .shp", ErrUnknownFormat)
	case want == "" && len(layers) == 1:
		chosen = layers[0]
	default:
		for _, l := range layers {
			if want != "" && (strings.ToLower(l) == want || strings.ToLower(path.Base(l)) == want) {
				chosen = l
				break
			}
		}
	}
	if chosen == "" {
		z.Close()
		names := make([]string, len(layers))
		for i, l := range layers {
			names[i] = path.Base(l)
		}
		if opts.Layer == "" {
			return nil, fmt.Errorf("%w: the .zip holds %d shapefiles, choose one: %s", ErrLayer, len(layers), strings.Join(names, ", "))
		}
		return nil, fmt.Errorf("%w: the .zip holds no shapefile %q, only %s", ErrLayer, opts.Layer, strings.Join(names, ", "))
	}
	member := func(ext string) *zip.File { return byName[strings.ToLower(chosen)+ext] }
	open := func(f *zip.File) func() (io.ReadCloser, int64, error) {
		return func() (io.ReadCloser, int64, error) {
			rc, err := f.Open()
			return rc, int64(f.UncompressedSize64), err
		}
	}
	small := func(f *zip.File) func() ([]byte, error) {
		if f == nil {
			return nil
		}
		return func() ([]byte, error) {
			if f.UncompressedSize64 > 1<<20 {
				return nil, fmt.Errorf("%w: %s is larger than 1 MiB", ErrMalformed, f.Name)
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(rc)
		}
	}
	parts := shapefileParts{shp: open(member(".shp")), shpName: member(".shp").Name}
	if f := member(".dbf"); f != nil {
		parts.dbf = open(f)
	}
	parts.prj, parts.cpg = small(member(".prj")), small(member(".cpg"))
	r, err := readShapefile(parts, member(".shp").Name+": ")
	if err != nil {
		z.Close()
		return nil, fmt.Errorf("%s: %w", member(".shp").Name, err)
	}
	r.src.(*shpSource).closers = append(r.src.(*shpSource).closers, z)
	r.layer = path.Base(chosen)
	return r, nil
}

// readShapefile opens the parts and reads the headers.
func readShapefile(parts shapefileParts, member string) (_ *Reader, err error) {
	if parts.dbf == nil {
		return nil, fmt.Errorf("%w: no .dbf beside %s (a shapefile's attributes)", ErrMissingPart, parts.shpName)
	}
	crs, err := shapefileCRS(parts)
	if err != nil {
		return nil, err
	}
	var cpg string
	if parts.cpg != nil {
		b, err := parts.cpg()
		if err != nil {
			return nil, err
		}
		cpg = string(b)
	}
	s := &shpSource{prefix: member}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	shp, size, err := parts.shp()
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, shp)
	s.shp = bufio.NewReaderSize(shp, 256<<10)
	head := make([]byte, 100)
	if _, err := io.ReadFull(s.shp, head); err != nil {
		return nil, fmt.Errorf("%w: the .shp is shorter than its 100-byte header", ErrTruncated)
	}
	if code := binary.BigEndian.Uint32(head); code != 9994 {
		return nil, fmt.Errorf("%w: file code %d, not 9994", ErrMalformed, code)
	}
	if v := binary.LittleEndian.Uint32(head[28:]); v != 1000 {
		return nil, fmt.Errorf("%w: version %d, not 1000", ErrMalformed, v)
	}
	length := int64(binary.BigEndian.Uint32(head[24:])) * 2
	if length < 100 {
		return nil, fmt.Errorf("%w: a file length of %d bytes in the header", ErrMalformed, length)
	}
	if length > size {
		return nil, fmt.Errorf("%w: the .shp header says %d bytes, the file has %d", ErrTruncated, length, size)
	}
	s.left = length - 100
	s.shapeType = int32(binary.LittleEndian.Uint32(head[32:]))
	switch s.shapeType {
	case shapeNull, shapePoint, shapePolyLine, shapePolygon, shapeMultiPoint,
		shapePointZ, shapePolyLineZ, shapePolygonZ, shapeMultiPointZ,
		shapePointM, shapePolyLineM, shapePolygonM, shapeMultiPointM:
	default:
		return nil, fmt.Errorf("%w: shape type %d is not read (MultiPatch or unknown)", ErrMalformed, s.shapeType)
	}
	dbf, _, err := parts.dbf()
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, dbf)
	if s.dbf, err = openDBF(dbf, cpg); err != nil {
		return nil, err
	}
	return &Reader{format: Shapefile, crs: crs, columns: s.dbf.columns(), src: s}, nil
}

// shapefileCRS reads the .prj: a shapefile without one has no known
// coordinate system and is refused.
func shapefileCRS(parts shapefileParts) (CRS, error) {
	if parts.prj == nil {
		return CRS{}, fmt.Errorf("%w: no .prj beside %s: its coordinate system is unknown", ErrCRS, parts.shpName)
	}
	b, err := parts.prj()
	if err != nil {
		return CRS{}, err
	}
	c, err := crsOfWKT(strings.TrimSpace(strings.TrimPrefix(string(b), "\xEF\xBB\xBF")))
	if err != nil {
		return CRS{}, fmt.Errorf("the .prj: %w", err)
	}
	return c, nil
}

func (s *shpSource) close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i].Close())
	}
	s.closers = nil
	return errors.Join(errs...)
}

// next reads the next record of both files. A record marked deleted in the
// .dbf is passed over, as GDAL does. The two files must hold as many
// records (ErrMalformed otherwise).
func (s *shpSource) next() (Feature, error) {
	for {
		f, deleted, err := s.read()
		if err != nil || !deleted {
			return f, err
		}
	}
}

func (s *shpSource) read() (Feature, bool, error) {
	if s.left == 0 {
		if _, _, _, err := s.dbf.next(); err != io.EOF {
			if err != nil {
				return Feature{}, false, fmt.Errorf("%s%w", s.prefix, err)
			}
			return Feature{}, false, fmt.Errorf("%s%w: the .shp holds %d records, the .dbf %d", s.prefix, ErrMalformed, s.record, s.dbf.count)
		}
		return Feature{}, false, io.EOF
	}
	s.record++
	if s.left < 8 {
		return Feature{}, false, fmt.Errorf("%s%w: record %d: its header runs past the end of the file", s.prefix, ErrTruncated, s.record)
	}
	var rh [8]byte
	if _, err := io.ReadFull(s.shp, rh[:]); err != nil {
		return Feature{}, false, s.readErr(err)
	}
	n := int64(binary.BigEndian.Uint32(rh[4:])) * 2
	if n+8 > s.left {
		return Feature{}, false, fmt.Errorf("%s%w: record %d of %d bytes runs past the end of the file", s.prefix, ErrTruncated, s.record, n)
	}
	s.left -= n + 8
	if int64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	buf := s.buf[:n]
	if _, err := io.ReadFull(s.shp, buf); err != nil {
		return Feature{}, false, s.readErr(err)
	}
	props, deleted, bad, err := s.dbf.next()
	if err == io.EOF {
		return Feature{}, false, fmt.Errorf("%s%w: the .dbf holds %d records, the .shp more", s.prefix, ErrMalformed, s.dbf.count)
	}
	if err != nil {
		return Feature{}, false, fmt.Errorf("%s%w", s.prefix, err)
	}
	f := Feature{Index: s.record - 1, Properties: props}
	if deleted {
		return f, true, nil
	}
	g, gerr := s.geometry(buf)
	f.Geometry = g
	if err := errors.Join(gerr, bad); err != nil {
		return f, false, &FeatureError{File: strings.TrimSuffix(": "+s.prefix, ": "), Index: f.Index, Err: err}
	}
	return f, false, nil
}

func (s *shpSource) readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%s%w: record %d runs past the end of the file", s.prefix, ErrTruncated, s.record)
	}
	return err
}

// geometry decodes a record's content (ESRI, July 1998): the shape type,
// then Point (X, Y), MultiPoint (box, count, points) or PolyLine and
// Polygon (box, parts, points, part starts, points). Z and M values after
// the points are left aside.
func (s *shpSource) geometry(b []byte) (orb.Geometry, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("a record of %d bytes, without its shape type", len(b))
	}
	t := int32(binary.LittleEndian.Uint32(b))
	if t == shapeNull {
		return nil, nil
	}
	if t != s.shapeType {
		return nil, fmt.Errorf("shape type %d in a file of type %d", t, s.shapeType)
	}
	switch t {
	case shapePoint, shapePointZ, shapePointM:
		if len(b) < 20 {
			return nil, fmt.Errorf("a point record of %d bytes", len(b))
		}
		return point(b[4:]), nil
	case shapeMultiPoint, shapeMultiPointZ, shapeMultiPointM:
		if len(b) < 40 {
			return nil, fmt.Errorf("a multipoint record of %d bytes", len(b))
		}
		n := int(binary.LittleEndian.Uint32(b[36:]))
		if n < 0 || int64(n)*16 > int64(len(b)-40) {
			return nil, fmt.Errorf("%d points do not fit a record of %d bytes", n, len(b))
		}
		mp := make(orb.MultiPoint, n)
		for i := range mp {
			mp[i] = point(b[40+16*i:])
		}
		return mp, nil
	}
	// PolyLine and Polygon.
	if len(b) < 44 {
		return nil, fmt.Errorf("a record of %d bytes, shorter than its header", len(b))
	}
	np, n := int64(binary.LittleEndian.Uint32(b[36:])), int64(binary.LittleEndian.Uint32(b[40:]))
	if np < 1 || n < 1 {
		return nil, fmt.Errorf("%d parts and %d points", np, n)
	}
	pts := 44 + 4*np
	if pts+16*n > int64(len(b)) {
		return nil, fmt.Errorf("%d parts and %d points do not fit a record of %d bytes", np, n, len(b))
	}
	lines := make([][]orb.Point, np)
	all := make([]orb.Point, n)
	for i := range all {
		all[i] = point(b[pts+16*int64(i):])
	}
	for i := range lines {
		start := int64(binary.LittleEndian.Uint32(b[44+4*i:]))
		end := n
		if int64(i)+1 < np {
			end = int64(binary.LittleEndian.Uint32(b[44+4*(i+1):]))
		}
		if start >= end || end > n || (i == 0 && start != 0) {
			return nil, fmt.Errorf("part %d runs from point %d to %d of %d", i+1, start, end, n)
		}
		lines[i] = all[start:end:end]
	}
	if t == shapePolyLine || t == shapePolyLineZ || t == shapePolyLineM {
		if np == 1 {
			return orb.LineString(lines[0]), nil
		}
		ml := make(orb.MultiLineString, np)
		for i, l := range lines {
			ml[i] = l
		}
		return ml, nil
	}
	rings := make([]orb.Ring, np)
	for i, l := range lines {
		rings[i] = l
	}
	return assemble(rings)
}

func point(b []byte) orb.Point {
	return orb.Point{
		math.Float64frombits(binary.LittleEndian.Uint64(b)),
		math.Float64frombits(binary.LittleEndian.Uint64(b[8:])),
	}
}
