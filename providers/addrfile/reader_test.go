package addrfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// readAll reads every item of files, the points, ranges and refusals.
func readAll(t *testing.T, files []string, opts Options) ([]providers.AddressPoint, []providers.AddressRange, []*Rejected, Summary) {
	t.Helper()
	r, err := Open(files, opts)
	if err != nil {
		t.Fatalf("Open(%v): %v", files, err)
	}
	defer r.Close()
	var (
		points []providers.AddressPoint
		ranges []providers.AddressRange
		rej    []*Rejected
	)
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var x *Rejected
		if errors.As(err, &x) {
			rej = append(rej, x)
			continue
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		switch {
		case it.Point != nil:
			points = append(points, *it.Point)
		case it.Range != nil:
			ranges = append(ranges, *it.Range)
		default:
			t.Fatal("Next returned an empty item")
		}
	}
	return points, ranges, rej, r.Finish()
}

func td(parts ...string) string { return filepath.Join(append([]string{"testdata"}, parts...)...) }

// Real OpenAddresses rows (Manhattan) leave city and region empty: the
// options give them, and each point is what a lookup of it normalizes to.
func TestOpenAddressesCSVRealRows(t *testing.T) {
	points, _, rej, sum := readAll(t, []string{td("openaddresses", "west26th.csv")}, Options{State: "New York", City: "New York"})
	if len(rej) != 0 || len(points) != 12 {
		t.Fatalf("got %d points and %d refusals (%v); want the 12 rows", len(points), len(rej), rej)
	}
	want := providers.AddressPoint{Street: "20 W 26 ST", City: "NEW YORK", State: "NY", Zip: "10010",
		Point: providers.Point{Lat: 40.7440595, Lng: -73.9899511}, Key: "000002"}
	if points[0] != want {
		t.Errorf("first point = %+v; want %+v", points[0], want)
	}
	n, err := address.Normalize(providers.Address{Street: "20 West 26 Street", City: "new york", State: "NY", Zip: "10010"})
	if err != nil {
		t.Fatal(err)
	}
	if p := points[0]; p.Street != n.Street || p.City != n.City || p.State != n.State || p.Zip != n.Zip || p.Unit != n.Unit {
		t.Errorf("the point %+v is not the lookup's address %+v: it would never join", p, n)
	}
	if sum.Points != 12 || sum.Rejected != 0 || len(sum.States) != 1 || sum.States[0] != "NY" || sum.Layouts[0] != LayoutOpenAddresses {
		t.Errorf("summary = %+v", sum)
	}
	if c := sum.Coverage; c.West != -74.0045915 || c.East != -73.9898152 || c.South != 40.7440144 || c.North != 40.7504506 {
		t.Errorf("coverage = %+v; want the box of the 12 rows", c)
	}
}

// Without the state a row leaves empty, the row cannot be a record: it is
// refused, saying so, rather than guessed.
func TestOpenAddressesRowWithoutStateIsRefused(t *testing.T) {
	points, _, rej, _ := readAll(t, []string{td("openaddresses", "west26th.csv")}, Options{})
	if len(points) != 0 || len(rej) != 12 {
		t.Fatalf("got %d points, %d refusals; want every row refused", len(points), len(rej))
	}
	if !strings.Contains(rej[0].Reason, "no state") || rej[0].Key != "000002" || rej[0].Index != 0 {
		t.Errorf("refusal = %+v", rej[0])
	}
}

// OpenAddresses' GeoJSON output (lower-case properties, the point as
// geometry) reads as its CSV does.
func TestOpenAddressesGeoJSONReadsAsCSV(t *testing.T) {
	opts := Options{State: "NY", City: "New York"}
	fromCSV, _, _, _ := readAll(t, []string{td("openaddresses", "west26th.csv")}, opts)
	fromJSON, _, rej, sum := readAll(t, []string{td("openaddresses", "west26th.geojson")}, opts)
	if len(rej) != 0 || len(fromJSON) != 6 || sum.Layouts[0] != LayoutOpenAddresses {
		t.Fatalf("got %d points, refusals %v, layouts %v", len(fromJSON), rej, sum.Layouts)
	}
	for i, p := range fromJSON {
		if p != fromCSV[i] {
			t.Errorf("feature %d = %+v; the CSV row is %+v", i, p, fromCSV[i])
		}
	}
}

// Some sources write the whole address in NUMBER (real rows from Hoboken):
// refused, not loaded as a street named after itself.
func TestOpenAddressesNumberHoldingAnAddressIsRefused(t *testing.T) {
	points, _, rej, _ := readAll(t, []string{td("openaddresses", "willow_ave.csv")}, Options{State: "NJ"})
	if len(points) != 0 || len(rej) != 3 {
		t.Fatalf("got %d points, %d refusals", len(points), len(rej))
	}
	if !strings.Contains(rej[0].Reason, `"1016-18 WILLOW AVE" is not a house number alone`) {
		t.Errorf("reason = %q", rej[0].Reason)
	}
}

// Queens numbers, fractions, units and every kind of broken row, each
// refused with its reason while the reading goes on.
func TestOpenAddressesRowsOneByOne(t *testing.T) {
	points, _, rej, sum := readAll(t, []string{td("openaddresses", "constructed.csv")}, Options{})
	byKey := map[string]providers.AddressPoint{}
	for _, p := range points {
		byKey[p.Key] = p
	}
	for _, tc := range []struct{ key, street, unit, city, zip string }{
		{"q1", "117-11 SUTPHIN BLVD", "", "JAMAICA", "11434"},
		{"q2", "117-11 SUTPHIN BLVD", "APT 2B", "JAMAICA", "11434"},
		{"q3", "117-12 SUTPHIN BLVD", "# 3", "JAMAICA", "11434"},
		{"f1", "12 1/2 ELM ST", "", "JAMAICA", "11434"},
		{"u1", "14 ELM ST", "UNIT 4", "", "11434"},
		{"unicode", "30 CALLE ÑANDÚ", "", "MAYAGÜEZ", "00680"},
		{"after-bad-quote", "34 ELM ST", "", "JAMAICA", "11434"},
	} {
		p, ok := byKey[tc.key]
		if !ok {
			t.Errorf("row %s was not read", tc.key)
			continue
		}
		if p.Street != tc.street || p.Unit != tc.unit || p.City != tc.city || p.Zip != tc.zip {
			t.Errorf("row %s = %+v; want %s / %s / %s / %s", tc.key, p, tc.street, tc.unit, tc.city, tc.zip)
		}
	}
	reasons := map[string]string{}
	for _, x := range rej {
		reasons[x.Key] = x.Reason
	}
	for key, want := range map[string]string{
		"bad-no-number":  "no house number",
		"bad-no-street":  "no street",
		"bad-no-point":   "no point",
		"bad-zero-point": "0, 0 is a placeholder",
		"bad-latitude":   "is not a latitude and longitude",
		"bad-po-box":     "post office box",
		"bad-zip":        "zip must be 5 digits",
		"bad-state":      "state must be a US state",
		"huge":           "", // a plain row: numbers too long for a range are still points
	} {
		got, ok := reasons[key]
		if want == "" {
			if ok {
				t.Errorf("row %s refused: %s", key, got)
			}
			continue
		}
		if !strings.Contains(got, want) {
			t.Errorf("row %s: reason %q; want it to say %q", key, got, want)
		}
	}
	var quote *Rejected
	for _, x := range rej {
		if strings.Contains(x.Reason, "quote") {
			quote = x
		}
	}
	if quote == nil || quote.Index != 15 {
		t.Errorf("the line with a stray quote was not refused at row 15: %v", rej)
	}
	if sum.Points != int64(len(points)) || sum.Rejected != int64(len(rej)) {
		t.Errorf("summary counts %d points, %d refused; read %d, %d", sum.Points, sum.Rejected, len(points), len(rej))
	}
}

// A NAD point is composed from the schema's parts and normalizes to the
// name the TIGER range of its street has: the point and the range join.
func TestNADRows(t *testing.T) {
	points, _, rej, sum := readAll(t, []string{td("nad", "constructed_r23.txt")}, Options{})
	if sum.Layouts[0] != LayoutNAD {
		t.Fatalf("layout %v; want nad", sum.Layouts)
	}
	want := []struct{ street, unit, city, key string }{
		{"1101 STATE HWY 360", "", "WHITE SULPHUR SPRINGS", "{00000000-0000-0000-0000-000000000001}"},
		{"102 MAIN ST", "", "WHITE SULPHUR SPRINGS", "{00000000-0000-0000-0000-000000000002}"},
		{"12 1/2 E MAIN ST", "APT 3", "WHITE SULPHUR SPRINGS", "{00000000-0000-0000-0000-000000000003}"},
		{"N5322 COUNTY ROAD X", "", "WAUSAU", "{00000000-0000-0000-0000-000000000004}"},
	}
	if len(points) != len(want) {
		t.Fatalf("got %d points: %+v", len(points), points)
	}
	for i, w := range want {
		p := points[i]
		if p.Street != w.street || p.Unit != w.unit || p.City != w.city || p.Key != w.key {
			t.Errorf("point %d = %+v; want %+v", i, p, w)
		}
	}
	if _, name := address.SplitNumber(points[0].Street); name != address.StreetName("State Hwy 360") {
		t.Errorf("NAD's %q and TIGER's State Hwy 360 (%q) are two streets", name, address.StreetName("State Hwy 360"))
	}
	if len(rej) != 1 || rej[0].Reason != "no house number" {
		t.Errorf("refusals = %v; want the row without a number", rej)
	}
}

// A file of no known layout is refused before anything is read, naming
// the columns it lacks.
func TestUnknownLayoutNamesMissingColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body string
		opts       Options
		want       string
	}{
		{"nolatlon.csv", "NUMBER,STREET\n1,Main St\n", Options{}, "closest is openaddresses, which needs the columns LAT, LON"},
		{"other.csv", "PIN,OWNER\n1,x\n", Options{}, "needs the columns"},
		{"nadish.csv", "Add_Number,St_Name,State\n1,Main,MT\n", Options{}, "closest is nad, which needs the columns Latitude, Longitude"},
		{"mapped.csv", "HOUSE,ROAD,Y,X\n1,Main,2,3\n", Options{Mapping: &Mapping{Number: []string{"HOUSE"}, Street: []string{"ROAD"}, Lat: "LAT", Lng: "X"}}, "mapping, which needs the columns LAT"},
		{"empty.csv", "", Options{}, "empty"},
		{"named.csv", "LON,LAT,NUMBER,STREET\n", Options{Layout: LayoutAddrfeat}, `"addrfeat" is not a layout this file can be read as`},
	} {
		// A good file first: nothing is read before every file is checked.
		files := []string{write(tc.name, tc.body)}
		if tc.opts.Mapping == nil && tc.opts.Layout == "" {
			files = append([]string{td("openaddresses", "west26th.csv")}, files...)
		}
		_, err := Open(files, tc.opts)
		if err == nil || !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: Open error = %v; want ErrLayout naming the file and saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := Open([]string{filepath.Join(dir, "missing.csv")}, Options{}); err == nil {
		t.Error("a missing file opened")
	}
	if _, err := Open([]string{td("openaddresses", "west26th.csv")}, Options{State: "Atlantis"}); err == nil {
		t.Error("a state that is none was taken")
	}
	if _, err := Open([]string{td("openaddresses", "west26th.csv")}, Options{Mapping: &Mapping{Street: []string{"STREET"}}}); err == nil {
		t.Error("a mapping without number columns was taken")
	}
}

// A file of another layout is read through a mapping of its columns,
// case aside, with the number in parts.
func TestMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "county.csv")
	body := "addr_num,addr_frac,pre_dir,st_name,st_type,apt,town,st,zip5,y,x,objectid\n" +
		"12,1/2,North,Main,Street,4B,Springfield,IL,62701,39.8,-89.6,7\n" +
		"14,,North,Main,Street,,Springfield,IL,62701,abc,-89.6,8\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &Mapping{Number: []string{"ADDR_NUM", "ADDR_FRAC"}, Street: []string{"PRE_DIR", "ST_NAME", "ST_TYPE"},
		Unit: "APT", City: "TOWN", State: "ST", Zip: "ZIP5", Lat: "Y", Lng: "X", Key: []string{"OBJECTID"}}
	points, _, rej, sum := readAll(t, []string{p}, Options{Mapping: m})
	want := providers.AddressPoint{Street: "12 1/2 N MAIN ST", Unit: "# 4B", City: "SPRINGFIELD", State: "IL", Zip: "62701",
		Point: providers.Point{Lat: 39.8, Lng: -89.6}, Key: "7"}
	if len(points) != 1 || points[0] != want || sum.Layouts[0] != LayoutMapping {
		t.Fatalf("points = %+v (layout %v); want %+v", points, sum.Layouts, want)
	}
	if len(rej) != 1 || rej[0].Key != "8" || !strings.Contains(rej[0].Reason, `"abc"`) {
		t.Errorf("refusals = %v", rej)
	}
}
