package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers/kits/layergen"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// The county-cold row: a county whose boundaries and flood map are loaded
// from files, looked up with include=flood at new addresses in it. It is
// met when the loaded flood map answers the flood section before FEMA and
// the loaded boundaries the geographies before the Census geocoder,
// leaving the geocoder's address match alone.

// countyLookups is how many new addresses the county-cold row looks up.
const countyLookups = 20

const countyTarget = "0 FEMA calls, 0 Census geographies calls (the geocoder's address match alone remains)"

// countyLayers are the layers of the county-cold row: small (the row
// counts calls, not time), the flood map inside the state.
func countyLayers() (layergen.Tracts, layergen.Flood) {
	return layergen.NewTracts(200), layergen.NewFlood(1000)
}

// countyPlaces are the addresses of the county-cold row, each at the
// centre of a flood zone spread over the generated county, with the
// county, tract and flood zone the generated files put there: the
// sandbox's geocoder and FEMA answer what the loaded files hold, so a
// lookup that still calls them gets the same answer, counted.
func countyPlaces() []sandbox.Place {
	tracts, flood := countyLayers()
	out := make([]sandbox.Place, 0, countyLookups)
	for k := range countyLookups {
		i, j := (2*k+1)*flood.N/(2*countyLookups), (k*37+5)%flood.N
		p := flood.ZoneCentre(i, j)
		tract, ok := tracts.At(p)
		if !ok {
			panic(fmt.Sprintf("zone %d,%d of the generated flood map is outside the generated state", i, j))
		}
		attrs := tract.Attrs(layergen.TractColumns)
		countyFP := attrs["COUNTYFP"].(string)
		var county layergen.Feature
		for c := range tracts.Counties() {
			if layergen.CountyFP(c) == countyFP {
				county = tracts.County(c)
			}
		}
		zone := flood.Zone(i, j).Attrs(layergen.HazardColumns)
		panel := flood.Panel(panelAt(flood, p.Lat(), p.Lon())).Attrs(layergen.PanelColumns)
		area := sandbox.FloodArea{
			Zone: zone["FLD_ZONE"].(string), SFHA: zone["SFHA_TF"] == "T", DFIRMID: flood.DFIRMID,
			Panel: panel["FIRM_PAN"].(string), PanelType: panel["PANEL_TYP"].(string),
			PanelEffective: flood.Effective.Format(time.DateOnly),
			Box:            &sandbox.Box{MinLat: p.Lat() - 1e-4, MinLng: p.Lon() - 1e-4, MaxLat: p.Lat() + 1e-4, MaxLng: p.Lon() + 1e-4},
		}
		if s, ok := zone["ZONE_SUBTY"].(string); ok {
			area.Subtype = s
		}
		if bfe := zone["STATIC_BFE"].(float64); bfe != -9999 {
			area.StaticBFE = &bfe
		}
		out = append(out, sandbox.Place{
			ID:     fmt.Sprintf("county-%d", k),
			Street: fmt.Sprintf("%d FLOODPLAIN RD", 100+2*k), City: "LEESBURG", State: "VA", Zip: "20175",
			Lat: p.Lat(), Lng: p.Lon(),
			CountyName: county.Attrs(layergen.CountyColumns)["NAMELSAD"].(string),
			StateFIPS:  attrs["STATEFP"].(string), CountyFIPS: countyFP, Tract: attrs["TRACTCE"].(string), Block: "1000",
			Flood: []sandbox.FloodArea{area},
		})
	}
	return out
}

// panelAt is the index of the generated panel holding (lat, lng).
func panelAt(f layergen.Flood, lat, lng float64) int {
	side := f.Size / float64(f.Panels)
	return int((lat-f.South)/side)*f.Panels + int((lng-f.West)/side)
}

// countyCold writes the county's files (the state's tracts and its
// counties as TIGER/Line shapefiles, the flood map as an unpacked NFHL
// download), loads them into a database of their own with propertyd data
// load, serves it, and looks up each of countyPlaces with include=flood,
// counting the sandbox's calls.
func (b *bench) countyCold(ctx context.Context) error {
	tracts, flood := countyLayers()
	dir := filepath.Join(b.tmp, "county")
	floodDir := filepath.Join(dir, "NFHL_"+flood.DFIRMID)
	if err := os.MkdirAll(floodDir, 0o755); err != nil {
		return err
	}
	var boundaries, floodFiles []string
	for _, w := range []struct {
		dir   string
		layer layergen.Layer
		into  *[]string
	}{
		{dir, tracts.TractLayer(tigerYear), &boundaries}, {dir, tracts.CountyLayer(tigerYear), &boundaries},
		{floodDir, flood.HazardLayer(), &floodFiles}, {floodDir, flood.PanelLayer(), &floodFiles},
	} {
		base := filepath.Join(w.dir, w.layer.Name)
		if _, err := layergen.WriteShapefile(base, w.layer); err != nil {
			return err
		}
		*w.into = append(*w.into, base+".shp")
	}
	database := filepath.Join(b.tmp, "county.db")
	cfg := filepath.Join(b.tmp, "county-load.yaml")
	if err := os.WriteFile(cfg, []byte(configYAML(database, b.sbRoot, b.o.cacheMB, b.o.batchConc)), 0o644); err != nil {
		return err
	}
	for _, load := range [][]string{append([]string{"boundaries"}, boundaries...), append([]string{"flood"}, floodFiles...)} {
		args := append([]string{"data", "load", load[0], "-config", cfg}, load[1:]...)
		if _, _, _, err := b.runMeasured(ctx, args...); err != nil {
			return err
		}
	}
	in, err := b.startInstance("propertyd-county", database, "", "")
	if err != nil {
		return err
	}
	defer in.stop(b)

	b.sb.ResetCalls()
	fail := ""
	sources := map[string]int{}
	for _, pl := range b.county {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		source, err := lookupFlood(in.c, pl)
		if err != nil && fail == "" {
			fail = err.Error()
		}
		if err == nil {
			sources[source]++
		}
	}
	var answered []string
	for source, n := range sources {
		answered = append(answered, fmt.Sprintf("%s %d", source, n))
	}
	slices.Sort(answered)
	fema := b.sb.Calls(sandbox.UpstreamFEMA)
	census := b.sb.RouteCalls(sandbox.UpstreamCensus)
	geographies := 0
	var routes []string
	for route, n := range census {
		if strings.Contains(route, "/geographies/") {
			geographies += n
		}
		routes = append(routes, fmt.Sprintf("%s %d", route, n))
	}
	slices.Sort(routes)
	if len(routes) == 0 {
		routes = []string{"none"}
	}
	b.add(row{
		scenario: fmt.Sprintf("%d cold lookups with include=flood at new addresses of a county whose boundaries (%s tracts, %d counties) and flood map (%s zones) are loaded from files",
			len(b.county), thousands(int64(tracts.Len())), tracts.Counties(), thousands(int64(flood.Zones()))),
		target: countyTarget,
		measured: fmt.Sprintf("%d FEMA calls, %d Census geographies calls; Census calls by route: %s; flood sections by source: %s",
			fema, geographies, strings.Join(routes, ", "), strings.Join(answered, ", ")),
		ratio:   fmt.Sprintf("%d + %d calls", fema, geographies),
		met:     fema == 0 && geographies == 0,
		failure: fail,
	})
	return nil
}

// lookupFlood looks up pl with include=flood through c: a new record in
// the county and tract the generated boundaries put at its point, whose
// flood section is ok and names the zone the generated map put there. It
// returns the section's source.
func lookupFlood(c *client, pl sandbox.Place) (string, error) {
	status, body, err := c.do(get(lookupPath(pl, "flood")))
	if err != nil {
		return "", err
	}
	if status != 200 {
		return "", fmt.Errorf("%s: HTTP %d: %.300s", pl.ID, status, body)
	}
	var out struct {
		Data struct {
			County string `json:"county"`
			FIPS   string `json:"fips_code"`
			Tract  string `json:"census_tract"`
			Flood  struct {
				Zone   *string `json:"zone_code"`
				Source string  `json:"source"`
			} `json:"flood"`
		} `json:"data"`
		Meta struct {
			Created  *bool `json:"created"`
			Sections map[string]struct {
				Status string `json:"status"`
				Error  string `json:"error"`
			} `json:"sections"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("%s: %w", pl.ID, err)
	}
	s, f := out.Meta.Sections["flood"], out.Data.Flood
	switch {
	case out.Meta.Created == nil || !*out.Meta.Created:
		return "", fmt.Errorf("%s was not created by its first lookup", pl.ID)
	case out.Data.County != pl.CountyName || out.Data.FIPS != pl.FIPS() || out.Data.Tract != pl.Tract:
		return "", fmt.Errorf("%s: in %s (%s), tract %s; the boundaries put it in %s (%s), tract %s", pl.ID,
			out.Data.County, out.Data.FIPS, out.Data.Tract, pl.CountyName, pl.FIPS(), pl.Tract)
	case s.Status != "ok":
		return "", fmt.Errorf("%s: flood section %q (%s)", pl.ID, s.Status, s.Error)
	case f.Zone == nil || *f.Zone != pl.Flood[0].Zone:
		zone := "null"
		if f.Zone != nil {
			zone = *f.Zone
		}
		return "", fmt.Errorf("%s: flood zone %s, the map puts %s there", pl.ID, zone, pl.Flood[0].Zone)
	}
	return f.Source, nil
}
