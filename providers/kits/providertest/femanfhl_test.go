package providertest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/kits/providertest"
)

// TestFakeNFHLAnswersForShapes: a FloodArea with a Shape holds the points
// its polygon holds, as the service's intersects query does: edges
// included, a hole's edge too, a hole's inside not; each part of a
// multipolygon.
func TestFakeNFHLAnswersForShapes(t *testing.T) {
	const base = "https://nfhl.example.test/MapServer"
	ring := func(minX, minY, maxX, maxY float64) orb.Ring {
		return orb.Ring{{minX, minY}, {maxX, minY}, {maxX, maxY}, {minX, maxY}, {minX, minY}}
	}
	holed := orb.Polygon{ring(0, 0, 10, 10), ring(4, 4, 6, 6).Clone()}
	holed[1].Reverse()
	parts := orb.MultiPolygon{{ring(20, 0, 21, 1)}, {ring(30, 0, 31, 1)}}
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, base,
		providertest.FloodArea{Shape: holed, Zone: "AE", SFHA: true, StaticBFE: providertest.FEMANoBFE},
		providertest.FloodArea{Shape: parts, Zone: "X", StaticBFE: providertest.FEMANoBFE})
	count := func(lng, lat string) int {
		q := url.Values{"geometry": {lng + "," + lat}, "geometryType": {"esriGeometryPoint"}, "inSR": {"4326"},
			"spatialRel": {"esriSpatialRelIntersects"}, "outFields": {"FLD_ZONE"}, "returnGeometry": {"false"}, "f": {"json"}}
		resp, err := (&http.Client{Transport: mt}).Get(base + "/28/query?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var fs struct{ Features []any }
		if err := json.NewDecoder(resp.Body).Decode(&fs); err != nil {
			t.Fatal(err)
		}
		return len(fs.Features)
	}
	for _, c := range []struct {
		name, lng, lat string
		want           int
	}{
		{"inside", "2", "2", 1},
		{"on the outer edge", "0", "5", 1},
		{"in the hole", "5", "5", 0},
		{"on the hole's edge", "4", "5", 1},
		{"outside", "15", "5", 0},
		{"in the multipolygon's second part", "30.5", "0.5", 1},
		{"between its parts", "25", "0.5", 0},
	} {
		if got := count(c.lng, c.lat); got != c.want {
			t.Errorf("%s (%s,%s): the fake sent %d features, want %d", c.name, c.lng, c.lat, got, c.want)
		}
	}
}
