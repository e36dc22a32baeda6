package floodfile_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/floodfile"
	"github.com/propertyd/propertyd/providers/geofile"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// serviceAreas is a map as FEMA's service holds it: each feature of the
// GeoJSON files its polygon with its attributes, which the fake NFHL sends
// in Esri JSON (SFHA_TF "T" or "F", STATIC_BFE a double, EFF_DATE epoch
// milliseconds). The attributes are read by hand, not through package
// floodmap, which both paths share.
func serviceAreas(t *testing.T, zonesPath, panelsPath string) []providertest.FloodArea {
	t.Helper()
	read := func(path string) []geofile.Feature { return providertest.Features(t, path, "") }
	text := func(f geofile.Feature, name string) string {
		s, _ := f.Properties[name].(string)
		return s
	}
	var out []providertest.FloodArea
	for _, f := range read(zonesPath) {
		bfe, ok := f.Properties["STATIC_BFE"].(float64)
		if !ok {
			t.Fatalf("zone %d: STATIC_BFE %v is not a double; the fake sends a double", f.Index, f.Properties["STATIC_BFE"])
		}
		out = append(out, providertest.FloodArea{Shape: f.Geometry,
			Zone: text(f, "FLD_ZONE"), Subtype: text(f, "ZONE_SUBTY"), SFHA: text(f, "SFHA_TF") == "T",
			StaticBFE: bfe, DFIRMID: text(f, "DFIRM_ID")})
	}
	for _, f := range read(panelsPath) {
		eff, err := time.Parse(time.DateOnly, text(f, "EFF_DATE"))
		if err != nil {
			t.Fatalf("panel %d: %v", f.Index, err)
		}
		out = append(out, providertest.FloodArea{Shape: f.Geometry,
			Panel: text(f, "FIRM_PAN"), PanelType: text(f, "PANEL_TYP"), DFIRMID: text(f, "DFIRM_ID"), PanelEffective: eff})
	}
	return out
}

// conformancePoint is a point asked of both paths.
type conformancePoint struct {
	name string
	p    providers.Point
	// zone is the zone both must report ("" for none).
	zone string
	// outside is set for a point on no loaded panel: the decorator asks
	// the service, and answers as it does, source and all.
	outside bool
}

// TestTheLoadedMapAndTheServiceAnswerAlike serves one NFHL fixture through
// the fake ArcGIS service to the fema-nfhl module, and loads the same
// fixture with dataload.Run, in each form the loader takes, into each
// database engine (PostgreSQL when one is configured), to be read through
// the decorator: at every point the two give the same flood section but
// for the source and the map's effective date, and the decorator calls
// FEMA for none of the points on the map's panel and for each point off
// it (two calls: zones and panels), answering as the service does.
func TestTheLoadedMapAndTheServiceAnswerAlike(t *testing.T) {
	maps := []struct {
		name    string
		service [2]string // zones and panels, GeoJSON
		vintage string
		files   map[string][]string // the forms the map is loaded from
		points  []conformancePoint
	}{
		{
			name: "geofile's NFHL fixture", service: [2]string{floodGeoJSON, panelsGeoJSON}, vintage: "2010-09-27",
			files: map[string][]string{
				"GeoJSON": {floodGeoJSON, panelsGeoJSON}, "shapefiles in a .zip": {nfhlZip}, "GeoPackage": {nfhlGPKG},
			},
			points: []conformancePoint{
				{name: "in the floodway, the hole of the AE around it", p: inFloodway, zone: "AE"},
				{name: "in the AE, whose -9999 is no BFE", p: providers.Point{Lat: 38.866, Lng: -77.044}, zone: "AE"},
				{name: "in the second part of the shaded X", p: providers.Point{Lat: 38.87, Lng: -77.028}, zone: "X"},
				{name: "on the edge the AE and the X share", p: providers.Point{Lat: 38.87, Lng: -77.046}, zone: "AE"},
				{name: "on the edge of the floodway and the AE's hole, west", p: providers.Point{Lat: 38.874, Lng: -77.04}, zone: "AE"},
				{name: "in the AO, whose DEPTH is not reported", p: providers.Point{Lat: 38.886, Lng: -77.016}, zone: "AO"},
				{name: "on the panel but in no hazard area", p: inPanelOnly},
				{name: "off the map", p: outsideBoxes, outside: true},
			},
		},
		{
			name:    "an island in a hole beside a county line",
			service: [2]string{filepath.Join("..", "..", "floodmap", "testdata", "zones.geojson"), filepath.Join("..", "..", "floodmap", "testdata", "panels.geojson")},
			vintage: "2016-02-04",
			files: map[string][]string{"GeoJSON": {
				filepath.Join("..", "..", "floodmap", "testdata", "zones.geojson"), filepath.Join("..", "..", "floodmap", "testdata", "panels.geojson"),
			}},
			points: []conformancePoint{
				{name: "on the island in the AE's hole", p: providers.Point{Lat: 39.9575, Lng: -83.0125}, zone: "X"},
				{name: "in the AE, its county's panel", p: providers.Point{Lat: 39.965, Lng: -83.01}, zone: "AE"},
				{name: "across the line, the next county's X and panel", p: providers.Point{Lat: 39.965, Lng: -82.99}, zone: "X"},
			},
		},
	}
	engines := []struct {
		name string
		open func(t *testing.T) mapStore
	}{
		{"SQLite", func(t *testing.T) mapStore { return openSQLite(t) }},
		{"PostgreSQL", func(t *testing.T) mapStore { return openPostgres(t) }},
	}
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			for _, m := range maps {
				mt := httpmock.NewMockTransport()
				providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, serviceAreas(t, m.service[0], m.service[1])...)
				remote, err := femanfhl.New(providers.Settings{Client: &http.Client{Transport: mt}})
				if err != nil {
					t.Fatal(err)
				}
				for form, files := range m.files {
					db := eng.open(t)
					load(t, db, "map", files...)
					local := floodfile.New(db, remote, nil)
					for _, pt := range m.points {
						t.Run(m.name+"/"+form+"/"+pt.name, func(t *testing.T) {
							ctx := context.Background()
							fromService, err := remote.Flood(ctx, pt.p)
							if err != nil {
								t.Fatalf("the service: %v", err)
							}
							before := mt.GetTotalCallCount()
							fromMap, err := local.Flood(ctx, pt.p)
							if err != nil {
								t.Fatalf("the loaded map: %v", err)
							}
							calls := mt.GetTotalCallCount() - before

							if pt.outside {
								if calls != 2 || asJSON(t, fromMap) != asJSON(t, fromService) {
									t.Errorf("off the map: %d FEMA calls, %s; want 2 and the service's answer %s",
										calls, asJSON(t, fromMap), asJSON(t, fromService))
								}
								return
							}
							if calls != 0 {
								t.Errorf("a point on the loaded panel made %d FEMA calls, want 0", calls)
							}
							// The one difference by nature, stated: where it was read.
							if fromService.Source != femanfhl.Name || fromService.Vintage != "" ||
								fromMap.Source != floodfile.Source || fromMap.Vintage != m.vintage {
								t.Errorf("provenance: the service %q %q, the map %q %q; want %q and %q of %s",
									fromService.Source, fromService.Vintage, fromMap.Source, fromMap.Vintage, femanfhl.Name, floodfile.Source, m.vintage)
							}
							asFromMap := *fromService
							asFromMap.Source, asFromMap.Vintage = fromMap.Source, fromMap.Vintage
							if g, w := asJSON(t, fromMap), asJSON(t, &asFromMap); g != w {
								t.Errorf("the two paths differ beyond the source\nfrom the map     %s\nfrom the service %s", g, asJSON(t, fromService))
							}
							if z := fromMap.Zone; (z == nil) != (pt.zone == "") || z != nil && *z != pt.zone {
								t.Errorf("zone %s, want %q", asJSON(t, z), pt.zone)
							}
							if fromMap.PanelNumber == nil {
								t.Errorf("no panel in %s", asJSON(t, fromMap))
							}
						})
					}
				}
			}
		})
	}
}

// TestOnACountyLineTheEastSideAnswers states the one place the two paths
// part: a point exactly on an edge that two areas share. The service
// counts it in both and reports the riskier, with its county's panel; the
// polygon store counts it in the one east of the edge only (see
// providers.PolygonStore), so the loaded map reports that one. Here the
// line is a county line with an AE to the west and a shaded X to the east.
func TestOnACountyLineTheEastSideAnswers(t *testing.T) {
	zones := filepath.Join("..", "..", "floodmap", "testdata", "zones.geojson")
	panels := filepath.Join("..", "..", "floodmap", "testdata", "panels.geojson")
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, serviceAreas(t, zones, panels)...)
	remote, err := femanfhl.New(providers.Settings{Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	db := openSQLite(t)
	load(t, db, "map", zones, panels)
	onTheLine := providers.Point{Lat: 39.965, Lng: -83.0}
	fromService, err := remote.Flood(context.Background(), onTheLine)
	if err != nil {
		t.Fatal(err)
	}
	fromMap, err := floodfile.New(db, remote, nil).Flood(context.Background(), onTheLine)
	if err != nil {
		t.Fatal(err)
	}
	if *fromService.Zone != "AE" || *fromService.PanelNumber != "39049C0327K" {
		t.Errorf("the service on the line: %s; want the AE with its county's panel", asJSON(t, fromService))
	}
	if *fromMap.Zone != "X" || !strings.HasPrefix(*fromMap.ZoneSubtype, "0.2 PCT") || *fromMap.PanelNumber != "39045C0091G" {
		t.Errorf("the loaded map on the line: %s; want the east side's shaded X and panel", asJSON(t, fromMap))
	}
}
