package layergen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paulmach/orb"
)

// nad83PRJ is the .prj TIGER/Line and the NFHL's shapefiles ship (ESRI's
// WKT 1 of NAD83, EPSG:4269).
const nad83PRJ = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]]`

// Written is what WriteShapefile wrote: features, and the points of their
// rings (closing ones included).
type Written struct {
	Features, Vertices int64
}

// WriteShapefile writes layer l as the shapefile base.shp with its .shx,
// .dbf, .prj (NAD83) and .cpg (UTF-8), as the Census Bureau and FEMA ship
// theirs: ESRI's Shapefile Technical Description (July 1998) for the
// polygons, each outer ring clockwise and each hole counter-clockwise as
// it has them, or the lines (PolyLine, shape type 3, one part each, in the
// order of their points), and dBase III for the attributes (C fields left-aligned, N
// fields right-aligned with their decimals, D fields YYYYMMDD, nil blank).
// It streams: one feature is in memory at a time, whatever the layer's
// size; the headers' counts and box are written last. A value that does
// not fit its column is an error.
func WriteShapefile(base string, l Layer) (Written, error) {
	w, err := newShapeWriter(base, l.Columns)
	if err != nil {
		return Written{}, err
	}
	err = l.Each(w.write)
	if cerr := w.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Written{}, fmt.Errorf("writing %s.shp: %w", base, err)
	}
	for ext, body := range map[string]string{".prj": nad83PRJ, ".cpg": "UTF-8"} {
		if err := os.WriteFile(base+ext, []byte(body), 0o644); err != nil {
			return Written{}, err
		}
	}
	return w.n, nil
}

// shapeWriter writes the .shp, .shx and .dbf of one layer side by side.
type shapeWriter struct {
	files         [3]*os.File // .shp, .shx, .dbf
	shp, shx, dbf *bufio.Writer
	cols          []Column
	offset        int64 // of the next .shp record, in bytes
	box           orb.Bound
	n             Written
	buf           []byte
	shape         uint32 // shapePolygon or shapePolyLine, from the first feature
}

// The shape types of the Shapefile Technical Description that
// WriteShapefile writes.
const (
	shapePolyLine = 3
	shapePolygon  = 5
)

func newShapeWriter(base string, cols []Column) (*shapeWriter, error) {
	w := &shapeWriter{cols: cols, offset: 100, shape: shapePolygon}
	for i, ext := range []string{".shp", ".shx", ".dbf"} {
		f, err := os.Create(base + ext)
		if err != nil {
			w.closeFiles()
			return nil, err
		}
		w.files[i] = f
	}
	w.shp, w.shx, w.dbf = bufio.NewWriterSize(w.files[0], 1<<20), bufio.NewWriterSize(w.files[1], 64<<10), bufio.NewWriterSize(w.files[2], 64<<10)
	// The headers, written again with their counts at the end.
	w.shp.Write(make([]byte, 100))
	w.shx.Write(make([]byte, 100))
	w.dbf.Write(w.dbfHeader())
	return w, nil
}

func (w *shapeWriter) closeFiles() {
	for _, f := range w.files {
		if f != nil {
			f.Close()
		}
	}
}

// dbfHeader is the .dbf's header and field descriptors, its record count
// the features written so far.
func (w *shapeWriter) dbfHeader() []byte {
	recLen := 1
	for _, c := range w.cols {
		recLen += c.Width
	}
	h := make([]byte, 32, 32+32*len(w.cols)+1)
	h[0] = 0x03 // dBase III, no memo
	h[1], h[2], h[3] = 124, 1, 1
	binary.LittleEndian.PutUint32(h[4:], uint32(w.n.Features))
	binary.LittleEndian.PutUint16(h[8:], uint16(32+32*len(w.cols)+1))
	binary.LittleEndian.PutUint16(h[10:], uint16(recLen))
	for _, c := range w.cols {
		d := make([]byte, 32)
		copy(d, c.Name)
		d[11], d[16], d[17] = c.Type, byte(c.Width), byte(c.Decimals)
		h = append(h, d...)
	}
	return append(h, 0x0D)
}

// shpHeader is the header of the .shp or .shx of length bytes.
func (w *shapeWriter) shpHeader(length int64) []byte {
	h := make([]byte, 100)
	binary.BigEndian.PutUint32(h, 9994)
	binary.BigEndian.PutUint32(h[24:], uint32(length/2))
	binary.LittleEndian.PutUint32(h[28:], 1000)
	binary.LittleEndian.PutUint32(h[32:], w.shape)
	for i, v := range []float64{w.box.Min[0], w.box.Min[1], w.box.Max[0], w.box.Max[1]} {
		binary.LittleEndian.PutUint64(h[36+8*i:], math.Float64bits(v))
	}
	return h
}

// write writes one feature: its polygon record, its index entry and its
// attributes.
func (w *shapeWriter) write(f Feature) error {
	if len(f.Values) != len(w.cols) {
		return fmt.Errorf("feature %s has %d values for %d columns", f.Key, len(f.Values), len(w.cols))
	}
	shape, parts := uint32(shapePolygon), len(f.Polygon)
	if f.Line != nil {
		shape, parts = shapePolyLine, 1
		if f.Polygon != nil || len(f.Line) < 2 {
			return fmt.Errorf("feature %s: a line needs two points or more and no polygon", f.Key)
		}
	}
	if w.n.Features == 0 {
		w.shape = shape
	} else if shape != w.shape {
		return fmt.Errorf("feature %s: lines and polygons in one layer", f.Key)
	}
	points := f.Vertices()
	size := 44 + 4*parts + 16*points
	if w.offset+8+int64(size) > math.MaxInt32*2 {
		return fmt.Errorf("feature %s: the .shp would pass the format's 4 GiB", f.Key)
	}
	if cap(w.buf) < size {
		w.buf = make([]byte, size)
	}
	c := w.buf[:size]
	box := f.Polygon.Bound()
	if f.Line != nil {
		box = f.Line.Bound()
	}
	binary.LittleEndian.PutUint32(c, shape)
	for i, v := range []float64{box.Min[0], box.Min[1], box.Max[0], box.Max[1]} {
		binary.LittleEndian.PutUint64(c[4+8*i:], math.Float64bits(v))
	}
	binary.LittleEndian.PutUint32(c[36:], uint32(parts))
	binary.LittleEndian.PutUint32(c[40:], uint32(points))
	at, k := 44+4*parts, 0
	put := func(pt orb.Point) {
		binary.LittleEndian.PutUint64(c[at+16*k:], math.Float64bits(pt[0]))
		binary.LittleEndian.PutUint64(c[at+16*k+8:], math.Float64bits(pt[1]))
		k++
	}
	for i, ring := range f.Polygon {
		binary.LittleEndian.PutUint32(c[44+4*i:], uint32(k))
		// ESRI's orientation: the outer ring clockwise, holes not.
		backwards := (ring.Orientation() == orb.CCW) == (i == 0)
		for n := range ring {
			pt := ring[n]
			if backwards {
				pt = ring[len(ring)-1-n]
			}
			put(pt)
		}
	}
	if f.Line != nil {
		binary.LittleEndian.PutUint32(c[44:], 0)
		for _, pt := range f.Line {
			put(pt)
		}
	}
	var rh [8]byte
	binary.BigEndian.PutUint32(rh[:], uint32(w.n.Features+1))
	binary.BigEndian.PutUint32(rh[4:], uint32(size/2))
	w.shp.Write(rh[:])
	w.shp.Write(c)
	binary.BigEndian.PutUint32(rh[:], uint32(w.offset/2)) // the index: offset, then the same length
	w.shx.Write(rh[:])
	w.offset += 8 + int64(size)

	w.dbf.WriteByte(' ') // not deleted
	for i, col := range w.cols {
		v, err := dbfValue(col, f.Values[i])
		if err != nil {
			return fmt.Errorf("feature %s: %w", f.Key, err)
		}
		w.dbf.WriteString(v)
	}
	if w.n.Features == 0 {
		w.box = box
	} else {
		w.box = w.box.Union(box)
	}
	w.n.Features++
	w.n.Vertices += int64(points)
	return nil
}

// dbfValue is v written in column c, padded to its width.
func dbfValue(c Column, v any) (string, error) {
	var s string
	switch v := v.(type) {
	case nil:
	case string:
		s = v
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		s = strconv.FormatFloat(v, 'f', c.Decimals, 64)
	case time.Time:
		s = v.Format("20060102")
	default:
		return "", fmt.Errorf("column %s: a %T", c.Name, v)
	}
	if len(s) > c.Width {
		return "", fmt.Errorf("column %s: %q is wider than %d", c.Name, s, c.Width)
	}
	pad := strings.Repeat(" ", c.Width-len(s))
	if c.Type == 'N' {
		return pad + s, nil
	}
	return s + pad, nil
}

// close writes the headers with their counts and closes the files.
func (w *shapeWriter) close() error {
	defer w.closeFiles()
	w.dbf.WriteByte(0x1A)
	for _, b := range []*bufio.Writer{w.shp, w.shx, w.dbf} {
		if err := b.Flush(); err != nil {
			return err
		}
	}
	heads := [][]byte{w.shpHeader(w.offset), w.shpHeader(100 + 8*w.n.Features), w.dbfHeader()}
	for i, f := range w.files {
		if _, err := f.WriteAt(heads[i], 0); err != nil {
			return err
		}
	}
	for i, f := range w.files {
		w.files[i] = nil
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
