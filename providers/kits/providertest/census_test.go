package providertest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/kits/providertest"
)

// TestFakeCensusGeocoderAnswersFromAreas: with county and tract polygons,
// the fake answers a reverse lookup, an address match and a batch row with
// the county and tract holding the point, as the real service answers from
// its map: a tract's hole is outside it (a hole's edge inside), each part of
// a multipolygon holds points, a point in no county gets empty layers.
func TestFakeCensusGeocoderAnswersFromAreas(t *testing.T) {
	const base = "https://geocoder.example.test/geocoder"
	ring := func(minX, minY, maxX, maxY float64) orb.Ring {
		return orb.Ring{{minX, minY}, {maxX, minY}, {maxX, maxY}, {minX, maxY}, {minX, minY}}
	}
	holed := orb.Polygon{ring(0, 0, 10, 10), ring(4, 4, 6, 6)}
	holed[1].Reverse()
	areas := []providertest.CensusArea{
		{Shape: orb.Polygon{ring(-1, -1, 40, 11)}, State: "DC", StateFIPS: "11", CountyFIPS: "001", CountyName: "District of Columbia"},
		{Shape: holed, StateFIPS: "11", CountyFIPS: "001", Tract: "006202"},
		{Shape: orb.MultiPolygon{{ring(20, 0, 21, 1)}, {ring(30, 0, 31, 1)}}, StateFIPS: "11", CountyFIPS: "001", Tract: "000101"},
	}
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoderAreas(mt, base, areas,
		providertest.CensusPlace{Street: "1 HOLE ST", City: "WASHINGTON", State: "DC", Zip: "20001", Lat: 5, Lng: 5},
		providertest.CensusPlace{Street: "2 ISLAND ST", City: "WASHINGTON", State: "DC", Zip: "20001", Lat: 0.5, Lng: 30.5})
	client := &http.Client{Transport: mt}

	type entry struct{ GEOID, NAME, BASENAME, TRACT, STUSAB string }
	type layers map[string][]entry
	decode := func(resp *http.Response, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		return b
	}
	summary := func(g layers) string {
		var parts []string
		for _, e := range g["States"] {
			parts = append(parts, "state "+e.STUSAB)
		}
		for _, e := range g["Counties"] {
			parts = append(parts, "county "+e.GEOID+" "+e.NAME)
		}
		for _, e := range g["Census Tracts"] {
			parts = append(parts, "tract "+e.GEOID+" "+e.TRACT+" "+e.NAME+" "+e.BASENAME)
		}
		return strings.Join(parts, ", ")
	}
	reverse := func(lng, lat string) string {
		q := url.Values{"x": {lng}, "y": {lat}, "benchmark": {"4"}, "vintage": {"4"}, "format": {"json"}}
		var doc struct{ Result struct{ Geographies layers } }
		if err := json.Unmarshal(decode(client.Get(base+"/geographies/coordinates?"+q.Encode())), &doc); err != nil {
			t.Fatal(err)
		}
		return summary(doc.Result.Geographies)
	}
	const county = "state DC, county 11001 District of Columbia"
	for _, c := range []struct{ name, lng, lat, want string }{
		{"in the tract", "2", "2", county + ", tract 11001006202 006202 Census Tract 62.02 62.02"},
		{"in the tract's hole: the county only", "5", "5", county},
		{"on the hole's edge", "4", "5", county + ", tract 11001006202 006202 Census Tract 62.02 62.02"},
		{"in the multipolygon's second part", "30.5", "0.5", county + ", tract 11001000101 000101 Census Tract 1.01 1.01"},
		{"outside every area", "50", "50", ""},
	} {
		if got := reverse(c.lng, c.lat); got != c.want {
			t.Errorf("%s: the fake answered %q, want %q", c.name, got, c.want)
		}
	}

	q := url.Values{"address": {"2 Island St, Washington, DC"}, "benchmark": {"4"}, "vintage": {"4"}, "format": {"json"}}
	var doc struct {
		Result struct {
			AddressMatches []struct{ Geographies layers }
		}
	}
	if err := json.Unmarshal(decode(client.Get(base+"/geographies/onelineaddress?"+q.Encode())), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Result.AddressMatches) != 1 {
		t.Fatalf("%d address matches, want 1", len(doc.Result.AddressMatches))
	}
	if got, want := summary(doc.Result.AddressMatches[0].Geographies), county+", tract 11001000101 000101 Census Tract 1.01 1.01"; got != want {
		t.Errorf("the address match's geographies are %q, want %q", got, want)
	}

	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range map[string]string{"benchmark": "4", "vintage": "4"} {
		_ = w.WriteField(k, v)
	}
	fw, _ := w.CreateFormFile("addressFile", "addresses.csv")
	_, _ = fw.Write([]byte("a,1 Hole St,Washington,DC,20001\nb,2 Island St,Washington,DC,20001\n"))
	_ = w.Close()
	rows := string(decode(client.Post(base+"/geographies/addressbatch", w.FormDataContentType(), &body)))
	for _, want := range []string{`"a","1 Hole St, Washington, DC, 20001","Match","Exact","1 HOLE ST, WASHINGTON, DC, 20001","5,5",`,
		`"L","11","001","",""`, `"L","11","001","000101",""`} {
		if !strings.Contains(rows, want) {
			t.Errorf("the batch answer lacks %s:\n%s", want, rows)
		}
	}
}
