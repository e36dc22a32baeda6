package geofile_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/paulmach/orb"
)

// nad83PRJ is the .prj TIGER/Line shapefiles ship (ESRI's WKT 1).
const nad83PRJ = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]]`

// testField is a .dbf field the test writer declares.
type testField struct {
	name     string
	typ      byte
	len, dec int
}

// writeShapefile writes base.shp, base.shx, base.dbf and base.prj as ESRI's
// description (July 1998) and dBase III lay them out: a Polygon file when
// shapes hold rings (each part written as given, so a test chooses the
// rings' order and orientation), values written as raw bytes into their
// fields. The tests' own writer: gdal is not there when they run.
func writeShapefile(tb testing.TB, base string, shapes [][][]orb.Point, fields []testField, rows [][]string) {
	tb.Helper()
	var shp, shx bytes.Buffer
	header := func(w *bytes.Buffer, length int) {
		h := make([]byte, 100)
		binary.BigEndian.PutUint32(h, 9994)
		binary.BigEndian.PutUint32(h[24:], uint32(length/2))
		binary.LittleEndian.PutUint32(h[28:], 1000)
		binary.LittleEndian.PutUint32(h[32:], 5)
		w.Write(h)
	}
	var records [][]byte
	for _, parts := range shapes {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		c := make([]byte, 44+4*len(parts)+16*n)
		binary.LittleEndian.PutUint32(c, 5)
		var b orb.Bound
		first := true
		for _, p := range parts {
			for _, pt := range p {
				if first {
					b, first = orb.Bound{Min: pt, Max: pt}, false
				}
				b = b.Extend(pt)
			}
		}
		for i, v := range []float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]} {
			binary.LittleEndian.PutUint64(c[4+8*i:], math.Float64bits(v))
		}
		binary.LittleEndian.PutUint32(c[36:], uint32(len(parts)))
		binary.LittleEndian.PutUint32(c[40:], uint32(n))
		at, k := 44+4*len(parts), 0
		for i, p := range parts {
			binary.LittleEndian.PutUint32(c[44+4*i:], uint32(k))
			for _, pt := range p {
				binary.LittleEndian.PutUint64(c[at+16*k:], math.Float64bits(pt[0]))
				binary.LittleEndian.PutUint64(c[at+16*k+8:], math.Float64bits(pt[1]))
				k++
			}
		}
		records = append(records, c)
	}
	length := 100
	for _, c := range records {
		length += 8 + len(c)
	}
	header(&shp, length)
	header(&shx, 100+8*len(records))
	offset := 100
	for i, c := range records {
		var rh [8]byte
		binary.BigEndian.PutUint32(rh[:], uint32(i+1))
		binary.BigEndian.PutUint32(rh[4:], uint32(len(c)/2))
		shp.Write(rh[:])
		shp.Write(c)
		binary.BigEndian.PutUint32(rh[:], uint32(offset/2))
		binary.BigEndian.PutUint32(rh[4:], uint32(len(c)/2))
		shx.Write(rh[:])
		offset += 8 + len(c)
	}

	var dbf bytes.Buffer
	recLen := 1
	for _, f := range fields {
		recLen += f.len
	}
	h := make([]byte, 32)
	h[0], h[1], h[2], h[3] = 0x03, 124, 1, 1
	binary.LittleEndian.PutUint32(h[4:], uint32(len(rows)))
	binary.LittleEndian.PutUint16(h[8:], uint16(32+32*len(fields)+1))
	binary.LittleEndian.PutUint16(h[10:], uint16(recLen))
	dbf.Write(h)
	for _, f := range fields {
		d := make([]byte, 32)
		copy(d, f.name)
		d[11], d[16], d[17] = f.typ, byte(f.len), byte(f.dec)
		dbf.Write(d)
	}
	dbf.WriteByte(0x0D)
	for _, row := range rows {
		dbf.WriteByte(' ')
		for i, f := range fields {
			v := []byte(row[i])
			dbf.Write(v)
			dbf.Write(bytes.Repeat([]byte(" "), f.len-len(v)))
		}
	}
	dbf.WriteByte(0x1A)

	for ext, b := range map[string][]byte{".shp": shp.Bytes(), ".shx": shx.Bytes(), ".dbf": dbf.Bytes(), ".prj": []byte(nad83PRJ)} {
		if err := os.WriteFile(base+ext, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// square is a closed ring around (x, y), clockwise (a shapefile's outer
// ring) or counter-clockwise (its hole).
func square(x, y, half float64, clockwise bool) []orb.Point {
	r := []orb.Point{{x - half, y - half}, {x + half, y - half}, {x + half, y + half}, {x - half, y + half}, {x - half, y - half}}
	if clockwise {
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
	}
	return r
}
