package floodmap_test

import (
	"context"
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/floodmap"
	"github.com/propertyd/propertyd/providers/geofile"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
	_ "github.com/propertyd/propertyd/store/gpkg" // GeoPackage files
)

// The NFHL fixture of package geofile: four flood hazard areas of
// S_FLD_HAZ_AR (a floodway AE with a BFE; an AE around it with the floodway
// as its hole; a shaded X in two parts along the AE's sides; an AO with a
// DEPTH) and one FIRM panel of S_FIRM_PAN under them all, as GeoJSON (dates
// as text), as the shapefiles of one .zip (dBase dates) and as the tables of
// one GeoPackage (DATE). Its README says how each was made.
var nfhlDir = filepath.Join("..", "geofile", "testdata")

// fileSource is what differs by nature between the two paths: a section
// from the service names the fema-nfhl module (femanfhl.Name); one from a
// loaded map names the file path, with the map's effective date as its
// vintage (providers/decorators/floodfile, whose conformance test reads
// the map from the database). Everything else must be equal.
const fileSource = "fema-nfhl-file"

// holds reports whether a feature's polygon holds pt, edges included and a
// hole's inside excluded, as a loaded map will answer from its polygons.
func holds(g orb.Geometry, pt orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return planar.PolygonContains(g, pt)
	case orb.MultiPolygon:
		return planar.MultiPolygonContains(g, pt)
	}
	return false
}

// fromFile answers the flood section at p the way a loaded map will: the
// areas and panels whose polygons hold p, read with HazardAreaOf and
// PanelOf, through Section. It also says how many areas hold p.
func fromFile(t *testing.T, zones, panels []geofile.Feature, p providers.Point) (*providers.Flood, int) {
	t.Helper()
	pt := orb.Point{p.Lng, p.Lat}
	var areas []floodmap.HazardArea
	for _, f := range zones {
		if !holds(f.Geometry, pt) {
			continue
		}
		a, err := floodmap.HazardAreaOf(f.Properties)
		if err != nil {
			t.Fatalf("feature %d: %v", f.Index, err)
		}
		areas = append(areas, a)
	}
	var pans []floodmap.Panel
	for _, f := range panels {
		if !holds(f.Geometry, pt) {
			continue
		}
		pn, err := floodmap.PanelOf(f.Properties)
		if err != nil {
			t.Fatalf("panel %d: %v", f.Index, err)
		}
		pans = append(pans, pn)
	}
	s := floodmap.Section(areas, pans)
	s.Source = fileSource
	return s, len(areas)
}

// serviceAreas is a map as the service holds it: each feature of the
// GeoJSON files its polygon with its attributes, which the fake NFHL sends
// in Esri JSON (SFHA_TF "T" or "F", STATIC_BFE a double, EFF_DATE epoch
// milliseconds). The attributes are read by hand, not through the package
// under test.
func serviceAreas(t *testing.T, zonesPath, panelsPath string) []providertest.FloodArea {
	t.Helper()
	text := func(f geofile.Feature, name string) string {
		s, _ := f.Properties[name].(string)
		return s
	}
	var out []providertest.FloodArea
	for _, f := range providertest.Features(t, zonesPath, "") {
		bfe, ok := f.Properties["STATIC_BFE"].(float64)
		if !ok {
			t.Fatalf("zone %d: STATIC_BFE %v is not a double; the fake sends a double", f.Index, f.Properties["STATIC_BFE"])
		}
		out = append(out, providertest.FloodArea{Shape: f.Geometry,
			Zone: text(f, "FLD_ZONE"), Subtype: text(f, "ZONE_SUBTY"), SFHA: text(f, "SFHA_TF") == "T",
			StaticBFE: bfe, DFIRMID: text(f, "DFIRM_ID")})
	}
	for _, f := range providertest.Features(t, panelsPath, "") {
		eff, err := time.Parse(time.DateOnly, text(f, "EFF_DATE"))
		if err != nil {
			t.Fatalf("panel %d: %v", f.Index, err)
		}
		out = append(out, providertest.FloodArea{Shape: f.Geometry,
			Panel: text(f, "FIRM_PAN"), PanelType: text(f, "PANEL_TYP"), DFIRMID: text(f, "DFIRM_ID"), PanelEffective: eff})
	}
	return out
}

// mapFile is one file a loaded map is read from: the path and layer of its
// hazard areas and of its panels.
type mapFile struct {
	name                    string
	zonesPath, zonesLayer   string
	panelsPath, panelsLayer string
}

// pointCase is a point asked of both paths, how many areas of the map hold
// it, and the section the service path must give.
type pointCase struct {
	name  string
	p     providers.Point
	zones int
	want  providers.Flood
}

// TestTheLoadedMapAndTheServiceAnswerAlike serves each fixture map through
// the fake NFHL to the fema-nfhl module and reads it from each file format
// the loader will take, and asks both for the flood section at points
// inside a zone, inside a zone's hole, on the edge of two zones, on a county
// line, in a panel but no zone, and outside the map: zone, subtype, risk
// level, description, SFHA flag, BFE and panel must be equal; only the
// source differs (fileSource).
//
// One case is left out because the two would differ, by the test's
// containment and not by the mapping: a point on the edge of a hole.
// planar.PolygonContains counts it out of the polygon with the hole; the
// service's intersects query (and so the fake) counts it in. The loader's
// spatial look-up must count it in, as the service does.
func TestTheLoadedMapAndTheServiceAnswerAlike(t *testing.T) {
	panel := func(f providers.Flood) providers.Flood {
		f.PanelNumber, f.PanelEffectiveDate = str("1100010019C"), str("2010-09-27")
		return f
	}
	maps := []struct {
		name    string
		service [2]string // zones and panels, GeoJSON
		files   []mapFile
		points  []pointCase
	}{
		{
			name:    "geofile's NFHL fixture",
			service: [2]string{filepath.Join(nfhlDir, "flood.geojson"), filepath.Join(nfhlDir, "panels.geojson")},
			files: []mapFile{
				{"GeoJSON", filepath.Join(nfhlDir, "flood.geojson"), "", filepath.Join(nfhlDir, "panels.geojson"), ""},
				{"shapefiles in a .zip", filepath.Join(nfhlDir, "nfhl.zip"), "S_FLD_HAZ_AR", filepath.Join(nfhlDir, "nfhl.zip"), "S_FIRM_PAN"},
				{"GeoPackage", filepath.Join(nfhlDir, "nfhl.gpkg"), "S_FLD_HAZ_AR", filepath.Join(nfhlDir, "nfhl.gpkg"), "S_FIRM_PAN"},
			},
			points: []pointCase{
				{
					name: "in the floodway, the hole of the AE around it", p: providers.Point{Lat: 38.874, Lng: -77.038}, zones: 1,
					want: panel(providers.Flood{Zone: str("AE"), ZoneSubtype: str("FLOODWAY"), RiskLevel: providers.RiskHigh,
						Description: "1% annual chance flood", SpecialFloodHazard: boolean(true), StaticBFE: num(12.5)}),
				},
				{
					name: "in the AE, whose -9999 is no BFE", p: providers.Point{Lat: 38.866, Lng: -77.044}, zones: 1,
					want: panel(providers.Flood{Zone: str("AE"), RiskLevel: providers.RiskHigh,
						Description: "1% annual chance flood", SpecialFloodHazard: boolean(true)}),
				},
				{
					name: "in the second part of the shaded X", p: providers.Point{Lat: 38.87, Lng: -77.028}, zones: 1,
					want: panel(providers.Flood{Zone: str("X"), ZoneSubtype: str("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"),
						RiskLevel: providers.RiskModerate, Description: "0.2% annual chance flood", SpecialFloodHazard: boolean(false)}),
				},
				{
					name: "on the edge the AE and the X share, both holding it: the AE wins", p: providers.Point{Lat: 38.87, Lng: -77.046}, zones: 2,
					want: panel(providers.Flood{Zone: str("AE"), RiskLevel: providers.RiskHigh,
						Description: "1% annual chance flood", SpecialFloodHazard: boolean(true)}),
				},
				{
					name: "in the AO, whose DEPTH is not reported", p: providers.Point{Lat: 38.886, Lng: -77.016}, zones: 1,
					want: panel(providers.Flood{Zone: str("AO"), RiskLevel: providers.RiskHigh,
						Description: "1% annual chance flood", SpecialFloodHazard: boolean(true)}),
				},
				{
					name: "in the panel but no hazard area: unmapped, with its panel", p: providers.Point{Lat: 38.855, Lng: -77.01}, zones: 0,
					want: panel(providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point"}),
				},
				{
					name: "outside the map", p: providers.Point{Lat: 38.8, Lng: -77.1}, zones: 0,
					want: providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point"},
				},
			},
		},
		{
			name:    "an island in a hole and a county line",
			service: [2]string{filepath.Join("testdata", "zones.geojson"), filepath.Join("testdata", "panels.geojson")},
			files:   []mapFile{{"GeoJSON", filepath.Join("testdata", "zones.geojson"), "", filepath.Join("testdata", "panels.geojson"), ""}},
			points: []pointCase{
				{
					name: "on the island in the AE's hole: minimal X, not the AE", p: providers.Point{Lat: 39.9575, Lng: -83.0125}, zones: 1,
					want: providers.Flood{Zone: str("X"), ZoneSubtype: str("AREA OF MINIMAL FLOOD HAZARD"), RiskLevel: providers.RiskLow,
						Description: "Minimal flood hazard", SpecialFloodHazard: boolean(false),
						PanelNumber: str("39049C0327K"), PanelEffectiveDate: str("2008-06-17")},
				},
				{
					name: "on the county line: the AE, and its county's panel over the newer one", p: providers.Point{Lat: 39.965, Lng: -83.0}, zones: 2,
					want: providers.Flood{Zone: str("AE"), RiskLevel: providers.RiskHigh, Description: "1% annual chance flood",
						SpecialFloodHazard: boolean(true), StaticBFE: num(718.4),
						PanelNumber: str("39049C0327K"), PanelEffectiveDate: str("2008-06-17")},
				},
				{
					name: "across the line: the next county's X and panel", p: providers.Point{Lat: 39.965, Lng: -82.99}, zones: 1,
					want: providers.Flood{Zone: str("X"), ZoneSubtype: str("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"), RiskLevel: providers.RiskModerate,
						Description: "0.2% annual chance flood", SpecialFloodHazard: boolean(false),
						PanelNumber: str("39045C0091G"), PanelEffectiveDate: str("2016-02-04")},
				},
			},
		},
	}
	for _, m := range maps {
		mt := httpmock.NewMockTransport()
		providertest.RegisterFEMA(mt, femanfhl.DefaultBaseURL, serviceAreas(t, m.service[0], m.service[1])...)
		remote, err := femanfhl.New(providers.Settings{Client: &http.Client{Transport: mt}})
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range m.files {
			zones := providertest.Features(t, file.zonesPath, file.zonesLayer)
			panels := providertest.Features(t, file.panelsPath, file.panelsLayer)
			for _, pt := range m.points {
				t.Run(m.name+"/"+file.name+"/"+pt.name, func(t *testing.T) {
					before := mt.GetTotalCallCount()
					fromService, err := remote.Flood(context.Background(), pt.p)
					if err != nil {
						t.Fatalf("the service path: %v", err)
					}
					if n := mt.GetTotalCallCount() - before; n != 2 {
						t.Errorf("the service path made %d upstream calls, want 2 (zones and panels)", n)
					}
					fromMap, held := fromFile(t, zones, panels, pt.p)
					if held != pt.zones {
						t.Errorf("%d areas of the map hold the point, want %d", held, pt.zones)
					}

					// The one difference by nature, stated: the source.
					if fromService.Source != femanfhl.Name || fromMap.Source != fileSource {
						t.Errorf("sources %q and %q, want %q from the service and %q from the map",
							fromService.Source, fromMap.Source, femanfhl.Name, fileSource)
					}
					asFromMap := *fromService
					asFromMap.Source = fileSource
					if !reflect.DeepEqual(fromMap, &asFromMap) {
						t.Errorf("the two paths differ beyond the source\nfrom the map     %s\nfrom the service %s",
							asJSON(t, fromMap), asJSON(t, fromService))
					}

					want := pt.want
					want.Source = femanfhl.Name
					if g, w := asJSON(t, fromService), asJSON(t, &want); g != w {
						t.Errorf("flood section\n got %s\nwant %s", g, w)
					}
				})
			}
		}
	}
}
