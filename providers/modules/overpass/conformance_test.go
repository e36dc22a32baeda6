package overpass

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
)

// TestConformanceWithUpstreamRecordings sends every recording of the real
// upstream through the decoding path, each with the status it came with,
// and checks what a caller would get.
func TestConformanceWithUpstreamRecordings(t *testing.T) {
	dir := recordings.Dir(t, "overpass")
	type outcome struct {
		status   int
		elements int        // for successes
		first    [2]float64 // lat/lon of the first placed element
		placed   int        // elements with coordinates
		kind     providers.Kind
		code     string // empty for successes
	}
	want := map[string]outcome{
		"amenities_around_dc_CONSTRUCTED.json": {status: 200, elements: 8, placed: 8, first: [2]float64{38.8983210, -77.0341822}},
		"empty_result.json":                    {status: 200},
		"nodes_out_bonn.json":                  {status: 200, elements: 3, placed: 3, first: [2]float64{50.7461788, 7.1742257}},
		"relation_out_center_bonn.json":        {status: 200, elements: 1, placed: 1, first: [2]float64{50.8176646, 7.0208539}},
		"way_out_center_hamburg_theatre.json":  {status: 200, elements: 1, placed: 1, first: [2]float64{53.5412491, 9.9841054}},
		"remark_runtime_error_timeout.json":    {status: 200, kind: providers.KindUpstream, code: "upstream_incomplete"},
		"error_429_rate_limited.html":          {status: 429, kind: providers.KindUpstream, code: "upstream_rate_limited"},
		"error_504_too_busy.html":              {status: 504, kind: providers.KindUpstream, code: "upstream_error"},
		"error_400_parse_error.html":           {status: 400, kind: providers.KindUpstream, code: "upstream_error"},
		// The /api/status page is plain text: not an interpreter answer.
		"api_status_cooldown.txt": {status: 200, kind: providers.KindUpstream, code: "upstream_error"},
	}
	files := recordings.Files(t, dir, ".json", ".html", ".txt")
	if len(files) == 0 {
		t.Fatal("no recordings found")
	}
	now := time.Date(2024, 7, 21, 21, 10, 0, 0, time.UTC)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("recording %s has no expected outcome; add one", name)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			els, err := decode(w.status, http.Header{}, body, now)
			if w.code != "" {
				e := providers.As(err)
				if err == nil || e.Kind != w.kind || e.Code != w.code {
					t.Fatalf("decode = %d elements, err %v; want kind %d code %s", len(els), err, w.kind, w.code)
				}
				// Mirrors send the same pages with status 200: still a failure.
				if _, err := decode(http.StatusOK, http.Header{}, body, now); err == nil && filepath.Ext(name) != ".json" {
					t.Errorf("the page sent with status 200 decoded as a success")
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(els) != w.elements {
				t.Fatalf("%d elements, want %d", len(els), w.elements)
			}
			placed := 0
			for _, e := range els {
				if _, ok := e.point(); ok {
					placed++
				}
				if e.ID <= 0 || e.Type == "" {
					t.Errorf("element without type or id: %+v", e)
				}
			}
			if placed != w.placed {
				t.Errorf("%d elements with coordinates, want %d", placed, w.placed)
			}
			if len(els) > 0 {
				p, _ := els[0].point()
				if p.Lat != w.first[0] || p.Lng != w.first[1] {
					t.Errorf("first element at %v, want %v", p, w.first)
				}
			}
		})
	}
}

// TestConformanceConstructedAmenities checks the categories of the
// constructed US answer: every kind of element lands where the package doc
// says, and the ATM is left out.
func TestConformanceConstructedAmenities(t *testing.T) {
	dir := recordings.Dir(t, "overpass")
	body, err := os.ReadFile(filepath.Join(dir, "amenities_around_dc_CONSTRUCTED.json"))
	if err != nil {
		t.Fatal(err)
	}
	els, err := decode(200, http.Header{}, body, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := collect(providers.Point{Lat: 38.8977, Lng: -77.0365}, 800, els, 0)
	want := map[string][]string{
		"schools":     {"Example Elementary School"},
		"hospitals":   {"Example Hospital"},
		"grocery":     {"Example Market"},
		"parks":       {"Example Square"},
		"transit":     {"15th St NW & H St NW", "Metro Center"},
		"restaurants": {"Example Coffee"},
		"banks":       {},
	}
	for cat, names := range want {
		items := got.Categories[cat]
		if len(items) != len(names) {
			t.Errorf("%s = %+v, want %v", cat, items, names)
			continue
		}
		for i, n := range names {
			if items[i].Name != n {
				t.Errorf("%s[%d] = %q, want %q", cat, i, items[i].Name, n)
			}
		}
	}
	if got.TotalCount != 7 {
		t.Errorf("total = %d, want 7", got.TotalCount)
	}
	if tr := got.Categories["transit"]; len(tr) == 2 && (tr[0].Type != "bus_stop" || tr[1].Type != "station" || tr[0].DistanceMiles != 0.06) {
		t.Errorf("transit = %+v", tr)
	}
}
