package floodfile_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	_ "github.com/propertyd/propertyd/providers/floodmap" // the flood kind of dataload
	"github.com/propertyd/propertyd/store"
	_ "github.com/propertyd/propertyd/store/gpkg" // GeoPackage files
	"github.com/propertyd/propertyd/store/postgres"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// The NFHL fixture of package geofile (its README says how each file was
// made): four flood hazard areas (a floodway AE with a BFE; an AE with the
// floodway as its hole; a shaded X in two parts along the AE's sides; an
// AO) on one FIRM panel, 1100010019C effective 2010-09-27, from -77.06 to
// -77.00 and 38.85 to 38.89; as GeoJSON, as the shapefiles of one .zip
// and as the tables of one GeoPackage.
var (
	nfhlDir       = filepath.Join("..", "..", "geofile", "testdata")
	floodGeoJSON  = filepath.Join(nfhlDir, "flood.geojson")
	panelsGeoJSON = filepath.Join(nfhlDir, "panels.geojson")
	nfhlZip       = filepath.Join(nfhlDir, "nfhl.zip")
	nfhlGPKG      = filepath.Join(nfhlDir, "nfhl.gpkg")
)

// Points of the fixture.
var (
	inFloodway   = providers.Point{Lat: 38.874, Lng: -77.038}
	inPanelOnly  = providers.Point{Lat: 38.855, Lng: -77.01}
	outsideBoxes = providers.Point{Lat: 38.8, Lng: -77.1}
)

// mapStore is what a test loads maps into and the decorator reads them
// from: either engine.
type mapStore interface {
	dataload.Store
}

func openSQLite(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openPostgres opens a schema of the test's own, or skips the test without
// a server.
func openPostgres(t *testing.T) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), pgtest.Schema(t), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// load loads files as the flood map name, as propertyd data load flood
// does.
func load(t testing.TB, st mapStore, name string, files ...string) providers.Dataset {
	t.Helper()
	k, ok := dataload.Lookup(providers.KindFlood)
	if !ok {
		t.Fatal("no flood kind in the catalogue")
	}
	res, err := dataload.Run(context.Background(), st, k, dataload.Input{Name: name, Files: files}, dataload.Options{})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return res.Dataset
}

// feature is a GeoJSON feature to write: its properties and a polygon's
// rings of [lng, lat].
type feature struct {
	props map[string]any
	rings [][][2]float64
}

// writeGeoJSON writes features as a GeoJSON FeatureCollection into dir and
// returns its path.
func writeGeoJSON(t *testing.T, dir, name string, fs ...feature) string {
	t.Helper()
	type geom struct {
		Type        string         `json:"type"`
		Coordinates [][][2]float64 `json:"coordinates"`
	}
	type feat struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Geometry   geom           `json:"geometry"`
	}
	out := struct {
		Type     string `json:"type"`
		Features []feat `json:"features"`
	}{Type: "FeatureCollection"}
	for _, f := range fs {
		out.Features = append(out.Features, feat{Type: "Feature", Properties: f.props, Geometry: geom{Type: "Polygon", Coordinates: f.rings}})
	}
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// box is the counter-clockwise ring of a rectangle.
func box(west, south, east, north float64) [][][2]float64 {
	return [][][2]float64{{{west, south}, {east, south}, {east, north}, {west, north}, {west, south}}}
}

// panel is a FIRM panel feature of S_FIRM_PAN.
func panel(number, effective string, rings [][][2]float64) feature {
	return feature{props: map[string]any{"DFIRM_ID": number[:6], "FIRM_PAN": number, "PANEL_TYP": "COUNTYWIDE, PRINTED FIRM",
		"EFF_DATE": effective}, rings: rings}
}

// zone is a flood hazard area feature of S_FLD_HAZ_AR.
func zone(fld, subtype, sfha string, rings [][][2]float64) feature {
	var sub any
	if subtype != "" {
		sub = subtype
	}
	return feature{props: map[string]any{"FLD_ZONE": fld, "ZONE_SUBTY": sub, "SFHA_TF": sfha, "STATIC_BFE": -9999.0,
		"DEPTH": -9999.0}, rings: rings}
}

// countingFEMA is the flood module behind the decorator: it counts its
// calls and answers as the service answers a point with no map.
type countingFEMA struct{ calls atomic.Int64 }

var _ providers.FloodProvider = (*countingFEMA)(nil)

func (c *countingFEMA) Flood(context.Context, providers.Point) (*providers.Flood, error) {
	c.calls.Add(1)
	return &providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point", Source: "fema-nfhl"}, nil
}

func str(s string) *string { return &s }

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
