package geofile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/geofile"
)

// The dBase types a shapefile's attributes come in are read into Go
// values (C strings in the .cpg's code page, N int64 or float64, F
// float64, D a date, L a bool, a blank nil); a value that is not of its
// field's type is that feature's error, its other values read.
func TestDBaseFieldsAreReadByTheirTypes(t *testing.T) {
	fields := []testField{
		{"NAME", 'C', 12, 0}, {"ALAND", 'N', 14, 0}, {"BFE", 'N', 24, 15}, {"DEPTH", 'F', 10, 3},
		{"EFF_DATE", 'D', 8, 0}, {"SFHA", 'L', 1, 0}, {"NOTE", 'C', 4, 0},
	}
	shapes := [][][]orb.Point{{square(-77, 38.9, 0.01, true)}, {square(-77, 38.9, 0.01, true)}, {square(-77, 38.9, 0.01, true)}}
	rows := [][]string{
		{"Pe\xf1a Blvd", "      2153017", "12.500000000000000", "-9999.000", "20100927", "T", ""},
		{"", "", "**************", "", "00000000", "?", "x"},
		{"ok", "12a", "1", "2", "20100931", "F", ""},
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "fields")
	writeShapefile(t, base, shapes, fields, rows)
	os.WriteFile(base+".cpg", []byte("1252\n"), 0o644)

	r, err := geofile.Open(base+".shp", geofile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if cols := r.Columns(); !reflect.DeepEqual(cols, []string{"NAME", "ALAND", "BFE", "DEPTH", "EFF_DATE", "SFHA", "NOTE"}) {
		t.Errorf("columns %v", cols)
	}
	if miss := r.Missing("GEOID", "ALAND", "AWATER"); !reflect.DeepEqual(miss, []string{"GEOID", "AWATER"}) {
		t.Errorf("Missing(GEOID, ALAND, AWATER) = %v, want GEOID and AWATER", miss)
	}
	want := []map[string]any{
		{"NAME": "Peña Blvd", "ALAND": int64(2153017), "BFE": 12.5, "DEPTH": -9999.0,
			"EFF_DATE": time.Date(2010, 9, 27, 0, 0, 0, 0, time.UTC), "SFHA": true, "NOTE": nil},
		{"NAME": nil, "ALAND": nil, "BFE": nil, "DEPTH": nil, "EFF_DATE": nil, "SFHA": nil, "NOTE": "x"},
	}
	for i, w := range want {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(f.Properties, w) {
			t.Errorf("record %d reads\n%#v\nwant\n%#v", i+1, f.Properties, w)
		}
	}
	f, err := r.Next()
	if !errors.Is(err, geofile.ErrFeature) || !containsAll(err.Error(), "feature 2", `ALAND: "12a" is not a number`, "EFF_DATE") {
		t.Errorf("record 3 (a number and a date that are not): %v", err)
	}
	if f.Properties["NAME"] != "ok" || f.Properties["SFHA"] != false || f.Geometry == nil {
		t.Errorf("record 3's other values and geometry: %v %v", f.Properties, f.Geometry)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last record: %v, want io.EOF", err)
	}

	// Without a .cpg (nor a language driver byte), text is ISO-8859-1.
	os.Remove(base + ".cpg")
	_, feats := readAllLenient(t, base+".shp")
	if feats[0].Properties["NAME"] != "Peña Blvd" {
		t.Errorf("without a .cpg the name reads %q", feats[0].Properties["NAME"])
	}
	// With a .cpg of UTF-8, the bytes are UTF-8 (an invalid one replaced).
	os.WriteFile(base+".cpg", []byte("UTF-8"), 0o644)
	_, feats = readAllLenient(t, base+".shp")
	if feats[0].Properties["NAME"] != "Pe\uFFFDa Blvd" {
		t.Errorf("a Latin-1 byte in a UTF-8 .dbf reads %q", feats[0].Properties["NAME"])
	}
}

// readAllLenient reads every feature, keeping those with feature errors.
func readAllLenient(t *testing.T, path string) (*geofile.Reader, []geofile.Feature) {
	t.Helper()
	r, err := geofile.Open(path, geofile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var out []geofile.Feature
	for {
		f, err := r.Next()
		if err == io.EOF {
			return r, out
		}
		if err != nil && !errors.Is(err, geofile.ErrFeature) {
			t.Fatal(err)
		}
		out = append(out, f)
	}
}
