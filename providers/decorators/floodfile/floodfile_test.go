package floodfile_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/floodfile"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// countedAround counts the calls that went through the module's breaker.
func countedAround(n *int) providers.Around {
	return func(ctx context.Context, call func(context.Context) error) error {
		*n++
		return call(ctx)
	}
}

// TestInsideTheLoadedPanelsFEMAIsNotAsked: a point in a zone and a point
// on the panel but in no zone are both answered from the map, with its
// source and effective date, and neither calls the module nor goes
// through its breaker.
func TestInsideTheLoadedPanelsFEMAIsNotAsked(t *testing.T) {
	db := openSQLite(t)
	load(t, db, "nfhl", nfhlZip)
	fema, around := &countingFEMA{}, 0
	f := floodfile.New(db, fema, countedAround(&around))

	got, err := f.Flood(context.Background(), inFloodway)
	if err != nil {
		t.Fatal(err)
	}
	if got.Zone == nil || *got.Zone != "AE" || got.ZoneSubtype == nil || *got.ZoneSubtype != "FLOODWAY" ||
		got.Source != floodfile.Source || got.Vintage != "2010-09-27" || got.PanelNumber == nil || *got.PanelNumber != "1100010019C" {
		t.Errorf("in the floodway: %s; want the AE FLOODWAY on panel 1100010019C from fema-nfhl-file of 2010-09-27", asJSON(t, got))
	}
	if src, vintage := got.Provenance(); src != floodfile.Source || vintage != "2010-09-27" {
		t.Errorf("provenance %q %q, want %q of 2010-09-27 (meta.sections.flood)", src, vintage, floodfile.Source)
	}

	got, err = f.Flood(context.Background(), inPanelOnly)
	if err != nil {
		t.Fatal(err)
	}
	want := providers.Flood{RiskLevel: providers.RiskUndetermined, Description: "No flood zone mapped at this point",
		PanelNumber: str("1100010019C"), PanelEffectiveDate: str("2010-09-27"), Source: floodfile.Source, Vintage: "2010-09-27"}
	if asJSON(t, got) != asJSON(t, &want) {
		t.Errorf("on the panel, in no zone:\n got %s\nwant %s", asJSON(t, got), asJSON(t, &want))
	}
	if n := fema.calls.Load(); n != 0 || around != 0 {
		t.Errorf("points inside the loaded panels made %d module calls (%d through its breaker), want 0", n, around)
	}
}

// TestOutsideThePanelsTheModuleAnswers: a point outside every map's box,
// and one inside a map's box but between its panels, where the map does
// not apply, are asked of the module, through its breaker, once each.
func TestOutsideThePanelsTheModuleAnswers(t *testing.T) {
	db := openSQLite(t)
	dir := t.TempDir()
	// Two panels with a gap between them: the box holds the gap, the map
	// does not.
	zones := writeGeoJSON(t, dir, "S_FLD_HAZ_AR.geojson", zone("X", "AREA OF MINIMAL FLOOD HAZARD", "F", box(-77.06, 38.85, -77.0, 38.89)))
	panels := writeGeoJSON(t, dir, "S_FIRM_PAN.geojson",
		panel("1100010018C", "2010-09-27", box(-77.06, 38.85, -77.03, 38.89)),
		panel("1100010019C", "2010-09-27", box(-77.02, 38.85, -77.0, 38.89)))
	load(t, db, "gap", zones, panels)
	fema, around := &countingFEMA{}, 0
	f := floodfile.New(db, fema, countedAround(&around))

	for i, p := range []providers.Point{outsideBoxes, {Lat: 38.87, Lng: -77.025}} {
		got, err := f.Flood(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if n := fema.calls.Load(); n != int64(i+1) || around != i+1 || got.Source != "fema-nfhl" {
			t.Errorf("point %v: %d module calls in all (%d through its breaker), source %q; want %d, answered by the module",
				p, n, around, got.Source, i+1)
		}
	}
	got, err := f.Flood(context.Background(), providers.Point{Lat: 38.87, Lng: -77.01})
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != floodfile.Source || got.Zone == nil || *got.Zone != "X" || *got.PanelNumber != "1100010019C" || fema.calls.Load() != 2 {
		t.Errorf("on the second panel: %s after %d module calls; want the map's X on 1100010019C, no call", asJSON(t, got), fema.calls.Load())
	}
}

// failingMaps is a store whose reads fail as a database that does not
// answer fails.
type failingMaps struct {
	floodfile.Maps
	polygons, version error
}

func (m failingMaps) PolygonsAt(ctx context.Context, layer string, gen int64, p providers.Point) ([]providers.LayerPolygon, error) {
	if m.polygons != nil {
		return nil, m.polygons
	}
	return m.Maps.PolygonsAt(ctx, layer, gen, p)
}

func (m failingMaps) DatasetsVersion(ctx context.Context) (string, error) {
	if m.version != nil {
		return "", m.version
	}
	return m.Maps.DatasetsVersion(ctx)
}

// TestAStoreThatFailsIsAnErrorNotFEMA: when the database cannot say
// whether a map holds the point, the section fails with
// database_unavailable, and FEMA is not asked in its place.
func TestAStoreThatFailsIsAnErrorNotFEMA(t *testing.T) {
	db := openSQLite(t)
	load(t, db, "nfhl", nfhlZip)
	down := providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable, "the database is unavailable")
	for _, c := range []struct {
		name string
		maps failingMaps
	}{
		{"the polygons", failingMaps{Maps: db, polygons: down}},
		{"the maps served", failingMaps{Maps: db, version: down}},
		{"a driver's own error", failingMaps{Maps: db, polygons: errors.New("disk I/O error")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fema := &countingFEMA{}
			got, err := floodfile.New(c.maps, fema, nil).Flood(context.Background(), inFloodway)
			if providers.KindOf(err) != providers.KindUnavailable || providers.CodeOf(err) != providers.CodeDatabaseUnavailable {
				t.Errorf("got %v, error %v; want database_unavailable", got, err)
			}
			if n := fema.calls.Load(); n != 0 {
				t.Errorf("a failing database sent %d calls to FEMA, want 0", n)
			}
		})
	}
}

// TestAnAnswerOfAMapNoLongerServedIsSuperseded: once the county's map is
// replaced by a newer one, a stored answer of the former (its effective
// date) is refreshed instead of served until its TTL, and the point is
// answered from the new map; answers of the map served, and from FEMA (no
// vintage), stay.
func TestAnAnswerOfAMapNoLongerServedIsSuperseded(t *testing.T) {
	db := openSQLite(t)
	load(t, db, "county", floodGeoJSON, panelsGeoJSON)
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	f := floodfile.New(db, &countingFEMA{}, nil)
	f.Now = func() time.Time { return clock }
	superseded := func(vintage string) bool {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !f.Supersedes(vintage) {
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(5 * time.Millisecond)
		}
		return true
	}
	if f.Supersedes("2008-06-17") {
		t.Error("superseded before the maps were listed; it cannot tell yet")
	}
	if !superseded("2008-06-17") {
		t.Fatal("an answer of 2008-06-17 is not superseded 5 s after the listing began; only 2010-09-27 is served")
	}
	if f.Supersedes("2010-09-27") || f.Supersedes("") {
		t.Error("an answer of the map served, or from FEMA (no vintage), is superseded")
	}

	// The county publishes a revised map: the floodway's panel, newer.
	dir := t.TempDir()
	revised := writeGeoJSON(t, dir, "S_FIRM_PAN.geojson", panel("1100010019D", "2016-02-04", box(-77.06, 38.85, -77.0, 38.89)))
	load(t, db, "county", floodGeoJSON, revised)
	got, err := f.Flood(context.Background(), inFloodway)
	if err != nil {
		t.Fatal(err)
	}
	if got.Vintage != "2016-02-04" || *got.PanelNumber != "1100010019D" {
		t.Errorf("after the reload: %s; want the revised map's panel of 2016-02-04 at once", asJSON(t, got))
	}
	clock = clock.Add(floodfile.ListEvery)
	if !superseded("2010-09-27") {
		t.Error("an answer of the replaced map (2010-09-27) is still served as fresh a listing after the reload")
	}
	if f.Supersedes("2016-02-04") {
		t.Error("an answer of the revised map is superseded")
	}
}

// TestTheNewestMapHoldingThePointAnswers: a county's map loaded beside an
// older one covering the same ground (the state's) answers alone where
// its panels are, as the NFHL holds only the newest map at a place.
func TestTheNewestMapHoldingThePointAnswers(t *testing.T) {
	db := openSQLite(t)
	load(t, db, "state", nfhlGPKG)
	dir := t.TempDir()
	zones := writeGeoJSON(t, dir, "S_FLD_HAZ_AR.geojson", zone("X", "AREA OF MINIMAL FLOOD HAZARD", "F", box(-77.05, 38.86, -77.03, 38.88)))
	panels := writeGeoJSON(t, dir, "S_FIRM_PAN.geojson", panel("1100010019D", "2016-02-04", box(-77.05, 38.86, -77.03, 38.88)))
	load(t, db, "county", zones, panels)
	f := floodfile.New(db, &countingFEMA{}, nil)
	for _, c := range []struct {
		p             providers.Point
		zone, vintage string
	}{
		{inFloodway, "X", "2016-02-04"},
		{providers.Point{Lat: 38.886, Lng: -77.016}, "AO", "2010-09-27"}, // the state's AO, off the county's panel
	} {
		got, err := f.Flood(context.Background(), c.p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Zone == nil || *got.Zone != c.zone || got.Vintage != c.vintage {
			t.Errorf("at %v: %s; want zone %s of the map of %s", c.p, asJSON(t, got), c.zone, c.vintage)
		}
	}
}

// TestFloodValuesOfAnOlderVersionStillUpgrade: wrapping the module keeps
// its rewriting of flood values stored by an older version.
func TestFloodValuesOfAnOlderVersionStillUpgrade(t *testing.T) {
	next, err := femanfhl.New(providers.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	old := []byte(`{"zone":"AE","zone_subtype":null,"risk_level":"high","special_flood_hazard_area":true,` +
		`"base_flood_elevation_feet":null,"firm_panel":"51760C0099Z","firm_panel_effective_date":"2009-07-16","source":"fema-nfhl"}`)
	got := string(floodfile.New(openSQLite(t), next, nil).UpgradeSection(old))
	if want := string(femanfhl.Upgrade(old)); got != want || got == string(old) {
		t.Errorf("upgraded through the decorator: %s; want the module's %s", got, want)
	}
}

// BenchmarkFloodFromALoadedMap times a flood section read from a loaded
// map on SQLite: the maps' version, the panels and the hazard areas at the
// point, the version again.
func BenchmarkFloodFromALoadedMap(b *testing.B) {
	db := openSQLite(b)
	load(b, db, "nfhl", nfhlZip)
	fema := &countingFEMA{}
	f := floodfile.New(db, fema, nil)
	ctx := context.Background()
	for b.Loop() {
		if _, err := f.Flood(ctx, inFloodway); err != nil {
			b.Fatal(err)
		}
	}
	if fema.calls.Load() != 0 {
		b.Fatal("FEMA was asked")
	}
}
