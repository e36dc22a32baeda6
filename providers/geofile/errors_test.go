package geofile_test

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers/geofile"
)

// copyShapefile copies testdata/name.* (shp, shx, dbf, prj, cpg) into a
// temporary folder, less the extensions left out, and returns the .shp's
// path there.
func copyShapefile(t *testing.T, name string, leaveOut ...string) string {
	t.Helper()
	dir := t.TempDir()
next:
	for _, ext := range []string{".shp", ".shx", ".dbf", ".prj", ".cpg"} {
		for _, l := range leaveOut {
			if l == ext {
				continue next
			}
		}
		b, err := os.ReadFile(filepath.Join("testdata", name+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, name+".shp")
}

// Each file that cannot be read at all is refused by Open with an error a
// loader tells apart with errors.Is, naming the file.
func TestOpenRefusesWhatItCannotRead(t *testing.T) {
	noDBF := copyShapefile(t, "tracts", ".dbf")
	noPRJ := copyShapefile(t, "tracts", ".prj")

	zipped := filepath.Join(t.TempDir(), "tl_2023_11_tract.zip")
	zf, err := os.Create(zipped)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for _, ext := range []string{".shp", ".shx", ".prj"} {
		w, _ := zw.Create("tl_2023_11_tract" + ext)
		b, _ := os.ReadFile("testdata/tracts" + ext)
		w.Write(b)
	}
	zw.Close()
	zf.Close()

	cut := copyShapefile(t, "tracts")
	b, _ := os.ReadFile(cut)
	os.WriteFile(cut, b[:len(b)-40], 0o644)

	notes := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notes, []byte("GEOID,ALAND\n11001006202,2153017\n"), 0o644)

	badCPG := copyShapefile(t, "tracts")
	os.WriteFile(badCPG[:len(badCPG)-4]+".cpg", []byte("EBCDIC-37"), 0o644)

	wrongCRS := filepath.Join(t.TempDir(), "wrong.geojson")
	os.WriteFile(wrongCRS, []byte(`{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2248"}}, "features": []}`), 0o644)

	for _, c := range []struct {
		name, path string
		want       error
		says       []string
	}{
		{"a shapefile without its .dbf", noDBF, geofile.ErrMissingPart, []string{".dbf"}},
		{"a .zip without the .dbf", zipped, geofile.ErrMissingPart, []string{"tl_2023_11_tract.shp", ".dbf"}},
		{"a .shp shorter than its header says", cut, geofile.ErrTruncated, []string{"1080", "1040"}},
		{"a file of no known format", notes, geofile.ErrUnknownFormat, nil},
		{"a .dbf opened instead of its .shp", "testdata/tracts.dbf", geofile.ErrUnknownFormat, []string{".shp"}},
		{"a projected shapefile", "testdata/tracts_3857.shp", geofile.ErrCRS, []string{"projected", "WGS_1984_Web_Mercator_Auxiliary_Sphere"}},
		{"a projected GeoPackage", "testdata/tracts_3857.gpkg", geofile.ErrCRS, []string{"projected", "EPSG:3857", "Pseudo-Mercator"}},
		{"a shapefile without its .prj", noPRJ, geofile.ErrCRS, []string{".prj"}},
		{"GeoJSON in a state plane", wrongCRS, geofile.ErrCRS, []string{"EPSG::2248"}},
		{"a .cpg naming an unknown code page", badCPG, geofile.ErrMalformed, []string{"EBCDIC-37"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := geofile.Open(c.path, geofile.Options{})
			if err == nil {
				r.Close()
				t.Fatalf("Open(%s) read it; want %v", c.path, c.want)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("Open(%s) = %v; want %v", c.path, err, c.want)
			}
			if !containsAll(err.Error(), append([]string{c.path}, c.says...)...) {
				t.Errorf("the error %q should name the file and say %q", err, c.says)
			}
		})
	}
}

// A .shp whose last record runs past the end of the file gives the records
// before it, then a fatal ErrTruncated naming the record, again on every
// later call.
func TestATruncatedShapefileStopsAtTheRecordPastItsEnd(t *testing.T) {
	p := copyShapefile(t, "tracts")
	b, _ := os.ReadFile(p)
	b = b[:len(b)-40]
	binary.BigEndian.PutUint32(b[24:], uint32(len(b)/2)) // a header that agrees with the cut file
	os.WriteFile(p, b, 0o644)

	r, err := geofile.Open(p, geofile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 3 {
		if f, err := r.Next(); err != nil || f.Index != i {
			t.Fatalf("feature %d: %v, %v", i, f.Index, err)
		}
	}
	_, err = r.Next()
	if !errors.Is(err, geofile.ErrTruncated) || errors.Is(err, geofile.ErrFeature) || !containsAll(err.Error(), p, "record 4") {
		t.Fatalf("the 4th record, cut short: %v; want a fatal ErrTruncated naming the file and record 4", err)
	}
	if _, again := r.Next(); again != err {
		t.Errorf("Next after a fatal error: %v, want the same error", again)
	}
}

// A polygon whose ring does not close is that feature's error, with its
// attributes so a loader can name it; the reader goes on to the next.
func TestARingThatDoesNotCloseIsThatFeaturesError(t *testing.T) {
	p := copyShapefile(t, "tracts")
	b, _ := os.ReadFile(p)
	// Record 1 (tract 62.02): its first ring's last point moved east.
	c := b[108:]
	parts := int(binary.LittleEndian.Uint32(c[36:]))
	ends := int(binary.LittleEndian.Uint32(c[48:])) // the second ring's first point
	at := 44 + 4*parts + 16*(ends-1)
	binary.LittleEndian.PutUint64(c[at:], math.Float64bits(-77.019))
	os.WriteFile(p, b, 0o644)

	r, err := geofile.Open(p, geofile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.Next()
	var fe *geofile.FeatureError
	if !errors.Is(err, geofile.ErrFeature) || !errors.Is(err, geofile.ErrOpenRing) || !errors.As(err, &fe) {
		t.Fatalf("feature 0 with an open ring: %v; want a FeatureError for ErrOpenRing", err)
	}
	if fe.Index != 0 || f.Index != 0 || f.Properties["GEOID"] != "11001006202" || !containsAll(err.Error(), p, "feature 0", "ring 1", "-77.019") {
		t.Errorf("the error %q (index %d) and its feature %v should name the file, the feature, the ring and carry GEOID", err, fe.Index, f.Properties)
	}
	n := 0
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after the broken feature: %v", err)
		}
		if f.Index != n+1 {
			t.Errorf("feature %d has Index %d", n+1, f.Index)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d features after the broken one, want 3", n)
	}
}

// A line of a GeoJSON text sequence (or an RS-led text of RFC 8142's)
// that is not a feature is that feature's error; the texts after it are
// read.
func TestABrokenLineOfASequenceIsThatFeaturesError(t *testing.T) {
	lines := []string{
		`{"type": "Feature", "properties": {"FLD_ZONE": "AE"}, "geometry": {"type": "Point", "coordinates": [-77, 38.9]}}`,
		`{"type": "Feature", "properties": {"FLD_ZONE": "X"}, "geometry": {"type": "Polygon", "coordinates": [[[-77, 38.9], [-76.9, 38.9], [-76.9, 39]]]}}`,
		`{"type": "Feature", "properties": {"FLD_ZONE": "A"`,
		`{"type": "Feature", "properties": {"FLD_ZONE": "VE"}, "geometry": null}`,
	}
	for _, form := range []struct{ name, lead, unit string }{{"zones.geojsonl", "", "line"}, {"zones.json", "\x1e", "text"}} {
		var text strings.Builder
		for _, l := range lines {
			text.WriteString(form.lead + l + "\n")
		}
		p := filepath.Join(t.TempDir(), form.name)
		os.WriteFile(p, []byte(text.String()), 0o644)
		r, err := geofile.Open(p, geofile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var zones []any
		var bad []string
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, geofile.ErrFeature) {
				bad = append(bad, err.Error())
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			zones = append(zones, f.Properties["FLD_ZONE"])
		}
		if r.Format() != geofile.GeoJSONSeq || len(zones) != 2 || zones[0] != "AE" || zones[1] != "VE" || len(bad) != 2 ||
			!containsAll(bad[0], p, "feature 1", form.unit+" 2", "ring not closed") || !containsAll(bad[1], "feature 2", form.unit+" 3") {
			t.Errorf("%s (%s): read zones %v and errors %q; want AE and VE, and the open ring of %s 2 and the cut %s 3 as errors",
				form.name, r.Format(), zones, bad, form.unit, form.unit)
		}
	}
}
