package addrsql

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/propertyd/propertyd/providers"
)

// wkbLineString is WKB's type of a two-dimensional linestring.
const wkbLineString = 2

// lineWKB is line as a little-endian WKB linestring of longitudes and
// latitudes: 9 bytes, then 16 a point.
func lineWKB(line []providers.Point) []byte {
	b := make([]byte, 9+16*len(line))
	b[0] = 1 // little-endian
	binary.LittleEndian.PutUint32(b[1:], wkbLineString)
	binary.LittleEndian.PutUint32(b[5:], uint32(len(line)))
	for i, p := range line {
		o := 9 + 16*i
		binary.LittleEndian.PutUint64(b[o:], math.Float64bits(p.Lng))
		binary.LittleEndian.PutUint64(b[o+8:], math.Float64bits(p.Lat))
	}
	return b
}

var errLine = errors.New("addrsql: a range's line is not the little-endian WKB linestring the store writes")

// readLine reads what lineWKB wrote.
func readLine(b []byte) ([]providers.Point, error) {
	if len(b) < 9 || b[0] != 1 || binary.LittleEndian.Uint32(b[1:]) != wkbLineString {
		return nil, errLine
	}
	n := int(binary.LittleEndian.Uint32(b[5:]))
	if len(b) != 9+16*n {
		return nil, errLine
	}
	line := make([]providers.Point, n)
	for i := range line {
		o := 9 + 16*i
		line[i] = providers.Point{
			Lng: math.Float64frombits(binary.LittleEndian.Uint64(b[o:])),
			Lat: math.Float64frombits(binary.LittleEndian.Uint64(b[o+8:])),
		}
	}
	return line, nil
}
