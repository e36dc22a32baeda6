package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers/kits/layergen"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// The county-cold-local rows (issue 39): cold lookups of new addresses
// with every section, in a county where everything a lookup needs is
// loaded from files: the state's boundaries, a flood map, the county's
// address points and ranges, an OpenStreetMap extract around the
// addresses looked up, and the state's ACS tracts (data load acs, which
// fetches them from the sandbox into the database: the load calls the
// sandbox, the lookups must not). The row counts lookups a second and
// every upstream call made while they run.
const localTarget = ">= 2,000 lookups/s, 0 remote calls during the lookups"

// localWindow is the part of the county the rows look addresses up in,
// about 8.8 by 8.6 km around layergen.Centre, and localMargin how far the
// extract reaches beyond it: more than the 2,000 m of the amenities'
// circle, so that every circle is the extract's to answer.
var localWindow = orb.Bound{Min: orb.Point{layergen.Centre.Lon() - 0.05, layergen.Centre.Lat() - 0.04},
	Max: orb.Point{layergen.Centre.Lon() + 0.05, layergen.Centre.Lat() + 0.04}}

const localMargin = 0.03

// countyACSPlaces are places of the sandbox, one in each tract of the
// generated state (countyLayers), holding the ACS figures of base, so
// that data load acs stores a value for every tract a lookup can be in.
func countyACSPlaces(base sandbox.Place) []sandbox.Place {
	tracts, _ := countyLayers()
	names := map[string]string{}
	for c := range tracts.Counties() {
		names[layergen.CountyFP(c)] = tracts.County(c).Attrs(layergen.CountyColumns)["NAMELSAD"].(string)
	}
	var out []sandbox.Place
	for r := range tracts.Rows {
		for c := range tracts.Cols {
			t := tracts.Tract(r, c)
			a := t.Attrs(layergen.TractColumns)
			centre := t.Polygon.Bound().Center()
			out = append(out, sandbox.Place{
				ID:     "local-acs-" + t.Key,
				Street: fmt.Sprintf("%d TRACT RD", 1+r*tracts.Cols+c), City: "BENCHTON", State: "VA", Zip: "20101",
				Lat: centre.Lat(), Lng: centre.Lon(),
				CountyName: names[a["COUNTYFP"].(string)], StateFIPS: a["STATEFP"].(string), CountyFIPS: a["COUNTYFP"].(string),
				Tract: a["TRACTCE"].(string), Block: "1000",
				ACS: maps.Clone(base.ACS),
			})
		}
	}
	return out
}

// localFiles are the files the county-cold-local rows load besides the
// addresses': the flood map (countyLayers) and the extract.
type localFiles struct {
	flood   []string
	extract string
}

func (b *bench) localFiles() (*localFiles, error) {
	if b.local != nil {
		return b.local, nil
	}
	_, flood := countyLayers()
	dir := filepath.Join(b.tmp, "local")
	floodDir := filepath.Join(dir, "NFHL_"+flood.DFIRMID)
	if err := os.MkdirAll(floodDir, 0o755); err != nil {
		return nil, err
	}
	f := &localFiles{extract: filepath.Join(dir, "benchton.osm.pbf")}
	for _, l := range []layergen.Layer{flood.HazardLayer(), flood.PanelLayer()} {
		base := filepath.Join(floodDir, l.Name)
		if _, err := layergen.WriteShapefile(base, l); err != nil {
			return nil, err
		}
		f.flood = append(f.flood, base+".shp")
	}
	box := [4]float64{localWindow.Min.Lat() - localMargin, localWindow.Max.Lat() + localMargin,
		localWindow.Min.Lon() - localMargin, localWindow.Max.Lon() + localMargin}
	b.logf("writing a generated extract of %s features around the county's addresses", thousands(int64(b.o.localFeatures)))
	if err := writeExtractIn(f.extract, b.o.localFeatures, box); err != nil {
		return nil, err
	}
	b.local = f
	return f, nil
}

// countyColdLocal is the county-cold-local scenario on SQLite.
func (b *bench) countyColdLocal(ctx context.Context) error {
	database, drop, _ := b.sqliteFile("county-local.db")
	defer drop()
	return b.countyLocalOn(ctx, "SQLite", database)
}

// pgCountyColdLocal is the county-cold-local scenario on PostgreSQL.
func (b *bench) pgCountyColdLocal(ctx context.Context) error {
	database, drop, err := b.pgFresh("pg-county-cold-local")(ctx)
	if err != nil {
		return err
	}
	if database == "" {
		b.skip(row{scenario: b.localLabel("PostgreSQL"), target: localTarget}, b.pgNone)
		return nil
	}
	defer drop()
	return b.countyLocalOn(ctx, "PostgreSQL", database)
}

func (b *bench) localLabel(engineName string) string {
	return fmt.Sprintf("cold lookups of new addresses with every section (%s) from loaded data: boundaries, a flood map, "+
		"the county's address points and ranges, an OpenStreetMap extract of %s features, the state's ACS tracts; %d at a time, on %s",
		allSections, thousands(int64(b.o.localFeatures)), b.o.conns, engineName)
}

// countyLocalOn loads every file into database (each load timed, not
// judged), serves it, sends b.o.localLookups lookups of new addresses of
// localWindow with every section, b.o.conns at a time, each once, then as
// many others with the sections not read from the extract and as many
// with none (where the time goes), and counts the sandbox's calls; then
// it looks 20 of the first up again and checks that every section is ok
// and where each came from.
func (b *bench) countyLocalOn(ctx context.Context, engineName, database string) error {
	files, err := b.addressFiles()
	if err != nil {
		return err
	}
	lf, err := b.localFiles()
	if err != nil {
		return err
	}
	cfg := filepath.Join(b.tmp, "county-local-"+strings.ToLower(engineName)+".yaml")
	if err := os.WriteFile(cfg, []byte(configYAML(database, b.sbRoot, b.o.cacheMB, b.o.batchConc)), 0o644); err != nil {
		return err
	}
	b.sb.ResetCalls()
	var loads []string
	for _, l := range []struct {
		name string
		args []string
	}{
		{"boundaries", append([]string{"boundaries"}, files.boundaries...)},
		{"flood map", append([]string{"flood"}, lf.flood...)},
		{"addresses", []string{"addresses", files.files.Points, files.files.Ranges}},
		{"extract", []string{"osm", lf.extract}},
		{"ACS", []string{"acs", "-states", files.county.State}},
	} {
		b.logf("county-cold-local on %s: data load %s", engineName, l.args[0])
		args := append([]string{"data", "load", l.args[0], "-config", cfg}, l.args[1:]...)
		_, took, _, err := b.runMeasured(ctx, args...)
		if err != nil {
			return err
		}
		loads = append(loads, fmt.Sprintf("%s %s", l.name, took.Round(100*time.Millisecond)))
	}
	loading := formatCounts(b.callCounts())
	n := b.o.localLookups
	ls, err := files.lookups(3*n, 2, &localWindow)
	if err != nil {
		return err
	}
	in, err := b.startInstance("propertyd-county-local-"+strings.ToLower(engineName), database, "", "")
	if err != nil {
		return err
	}
	defer in.stop(b)
	city, state := files.county.City, files.county.State
	// The same loop over other new addresses with fewer sections, to say
	// where the time goes: without the two read from the extract, and
	// with none.
	loop := func(ls []addrLookup, include string) result {
		reqs := make([]request, len(ls))
		for i, l := range ls {
			reqs[i] = get(l.path(city, state, include))
		}
		return in.c.closedLoop(reqs, b.o.conns, time.Hour, true)
	}
	b.sb.ResetCalls()
	res := loop(ls[:n], allSections)
	fewer := loop(ls[n:2*n], "flood,demographics,housing")
	none := loop(ls[2*n:], "")
	calls := b.callCounts()
	fail := failure(res, fewer, none)

	// Again, answered from what the first lookups stored: each section ok,
	// and from where.
	sources := map[string]map[string]bool{}
	for _, l := range ls[:min(20, n)] {
		status, body, err := in.c.do(get(l.path(city, state, allSections)))
		var a addrAnswer
		if err == nil {
			a, err = l.check(status, body, true)
		}
		if err == nil {
			for name, s := range a.Meta.Sections {
				if s.Status != "ok" {
					err = fmt.Errorf("%s %s: section %s is %q (%s)", l.street, l.zip, name, s.Status, s.Error)
				}
				if sources[name] == nil {
					sources[name] = map[string]bool{}
				}
				sources[name][s.Source] = true
			}
			if a.Data.Flood.Source != "fema-nfhl-file" && err == nil {
				err = fmt.Errorf("%s %s: flood from %q, not the loaded map", l.street, l.zip, a.Data.Flood.Source)
			}
		}
		if err != nil && fail == "" {
			fail = err.Error()
		}
	}
	for up, n := range b.callCounts() {
		calls[up] = max(calls[up], n)
	}
	var from []string
	for _, name := range strings.Split(allSections, ",") {
		from = append(from, name+" "+strings.Join(slices.Sorted(maps.Keys(sources[name])), "/"))
	}
	remote := "no upstream call"
	if len(calls) > 0 {
		remote = "upstream calls: " + formatCounts(calls)
	}
	if loading == "" {
		loading = "none"
	}
	rate := res.rate()
	b.add(row{
		scenario: b.localLabel(engineName),
		target:   localTarget,
		measured: fmt.Sprintf("%s lookups in %s: %.0f lookups/s (p50 %s, p99 %s per lookup); as many other new addresses with "+
			"flood, demographics and housing alone (nothing from the extract): %.0f lookups/s (p50 %s); with no section: %.0f lookups/s (p50 %s); "+
			"%s during the lookups and 20 lookups again; the sections' sources: %s; the loads: %s (their calls to the sandbox: %s)",
			thousands(int64(res.requests)), res.elapsed.Round(time.Millisecond), rate, ms(res.percentile(50)), ms(res.percentile(99)),
			fewer.rate(), ms(fewer.percentile(50)), none.rate(), ms(none.percentile(50)),
			remote, strings.Join(from, ", "), strings.Join(loads, ", "), loading),
		ratio:   fmt.Sprintf("%.2f x 2,000 lookups/s; %d remote calls", rate/2000, sum(calls)),
		met:     rate >= 2000 && len(calls) == 0,
		failure: fail,
	})
	return nil
}
