package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/floodmap"
	"github.com/propertyd/propertyd/providers/kits/layergen"
	"github.com/propertyd/propertyd/providers/tiger"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/postgres"
)

// The targets of the polygons rows.
const (
	polyLoadTarget = ">= 1,000,000 vertices/s, peak resident memory < 300 MB, each load"
	polyAtTarget   = "p50 < 0.5 ms, p99 < 5 ms, each layer"
)

// tigerYear is the TIGER/Line year the generated tracts are named for.
const tigerYear = 2024

// polygonFiles are the generated layers as files, written once a run:
// the state's tracts as TIGER/Line's tract shapefile, and the county's
// flood map as the two shapefiles of an unpacked NFHL county download,
// in a folder of their own (a flood dataset is named after it).
type polygonFiles struct {
	tracts         layergen.Tracts
	flood          layergen.Flood
	tractShp       string
	floodShps      []string // S_FLD_HAZ_AR.shp, S_FIRM_PAN.shp
	tractN, floodN layergen.Written
	took           time.Duration
}

// polygonFiles writes the layers of the polygons rows, the first time it
// is called. Shapefiles, not GeoJSON: both the Census Bureau and FEMA ship
// their layers as shapefiles (a county's NFHL download is S_FLD_HAZ_AR.shp
// and S_FIRM_PAN.shp, zipped), so the rows measure the loader on what
// operators load; a GeoJSON text sequence would measure encoding/json's
// parse of 20 million coordinate pairs instead. They are written unzipped,
// as an unpacked download: the inflating of a .zip is not the loader's.
func (b *bench) polygonFiles() (*polygonFiles, error) {
	if b.polys != nil {
		return b.polys, nil
	}
	t0 := time.Now()
	f := &polygonFiles{tracts: layergen.NewTracts(b.o.polyTracts), flood: layergen.NewFlood(b.o.polyZones)}
	dir := filepath.Join(b.tmp, "polygons")
	floodDir := filepath.Join(dir, "NFHL_"+f.flood.DFIRMID)
	if err := os.MkdirAll(floodDir, 0o755); err != nil {
		return nil, err
	}
	b.logf("writing a generated state of %s tracts and a county's flood map of %s zones as shapefiles",
		thousands(int64(f.tracts.Len())), thousands(int64(f.flood.Zones())))
	tl := f.tracts.TractLayer(tigerYear)
	f.tractShp = filepath.Join(dir, tl.Name+".shp")
	var err error
	if f.tractN, err = layergen.WriteShapefile(strings.TrimSuffix(f.tractShp, ".shp"), tl); err != nil {
		return nil, err
	}
	for _, l := range []layergen.Layer{f.flood.HazardLayer(), f.flood.PanelLayer()} {
		base := filepath.Join(floodDir, l.Name)
		n, err := layergen.WriteShapefile(base, l)
		if err != nil {
			return nil, err
		}
		f.floodShps = append(f.floodShps, base+".shp")
		f.floodN.Features += n.Features
		f.floodN.Vertices += n.Vertices
	}
	f.took = time.Since(t0)
	b.logf("wrote %s + %s vertices in %s", thousands(f.tractN.Vertices), thousands(f.floodN.Vertices), f.took.Round(time.Millisecond))
	b.polys = f
	return f, nil
}

// polygons is the polygons scenario on SQLite, a fresh file for each load.
func (b *bench) polygons(ctx context.Context) error {
	n := 0
	return b.polygonsOn(ctx, "SQLite", func(context.Context) (string, func(), error) {
		n++
		path := filepath.Join(b.tmp, fmt.Sprintf("polygons-%d.db", n))
		return path, func() {
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				os.Remove(f)
			}
		}, nil
	})
}

// pgPolygons is the polygons scenario on PostgreSQL, a schema for each
// load, made after a CHECKPOINT (see pgOSM).
func (b *bench) pgPolygons(ctx context.Context) error {
	return b.polygonsOn(ctx, "PostgreSQL", func(ctx context.Context) (string, func(), error) {
		database, drop, err := b.pgSchema(ctx, "pg-polygons")
		if err == nil && database != "" {
			if cerr := postgres.Checkpoint(ctx, b.o.postgres); cerr != nil {
				b.logf("CHECKPOINT before the load: %v", cerr)
			}
		}
		return database, drop, err
	})
}

func (b *bench) polyLoadLabel(engineName string) string {
	tracts, flood := layergen.NewTracts(b.o.polyTracts), layergen.NewFlood(b.o.polyZones)
	return fmt.Sprintf("load a generated state of %s census tracts and a county's flood map of %s zones "+
		"(%s hazard areas with zone X, %d FIRM panels), shapefiles, with propertyd data load boundaries and data load flood, on %s",
		thousands(int64(tracts.Len())), thousands(int64(flood.Zones())), thousands(int64(flood.Zones()+16)),
		flood.Panels*flood.Panels, engineName)
}

func (b *bench) polyAtLabel(engineName string) string {
	tracts, flood := layergen.NewTracts(b.o.polyTracts), layergen.NewFlood(b.o.polyZones)
	return fmt.Sprintf("point in polygon at random points of the loaded tracts (%s) and flood hazard areas (%s), "+
		"through the store (PolygonsAt on the served generation), on %s",
		thousands(int64(tracts.Len())), thousands(int64(flood.Zones()+16)), engineName)
}

// loadOutcome is one data load measured.
type loadOutcome struct {
	took     time.Duration
	hwm      int64
	vertices int64
}

func (l loadOutcome) rate() float64 { return float64(l.vertices) / l.took.Seconds() }

// polygonsOn loads the generated layers b.o.polyRuns times, each into a
// database of its own that fresh makes ready (with what drops it; "" when
// the engine is not there, b.pgNone saying why), with propertyd's own
// commands, each a child process measured as the facts load is (wall
// time, peak resident memory), the rate from the vertices the bench wrote
// (the command prints its own, from what it read). The row reports each
// layer's median load, as the osm rows do (one load on this shared
// machine cannot tell 0.9 x of the target from 1.0 x), and the highest
// peak. The last database then serves the point-in-polygon row.
func (b *bench) polygonsOn(ctx context.Context, engineName string, fresh func(context.Context) (string, func(), error)) error {
	files, err := b.polygonFiles()
	if err != nil {
		return err
	}
	var (
		database string
		drop     func()
		tracts   []loadOutcome
		floods   []loadOutcome
		fail     string
	)
	defer func() {
		if drop != nil {
			drop()
		}
	}()
	for run := 1; run <= b.o.polyRuns && fail == ""; run++ {
		if drop != nil {
			drop()
		}
		if database, drop, err = fresh(ctx); err != nil {
			return err
		}
		if database == "" {
			b.skip(row{scenario: b.polyLoadLabel(engineName), target: polyLoadTarget}, b.pgNone)
			b.skip(row{scenario: b.polyAtLabel(engineName), target: polyAtTarget}, b.pgNone)
			return nil
		}
		cfg := filepath.Join(b.tmp, "polygons-"+strings.ToLower(engineName)+".yaml")
		if err := os.WriteFile(cfg, []byte(configYAML(database, b.sbRoot, b.o.cacheMB, b.o.batchConc)), 0o644); err != nil {
			return err
		}
		load := func(kind string, want layergen.Written, paths ...string) (loadOutcome, error) {
			b.logf("data load %s on %s (run %d of %d)", kind, engineName, run, b.o.polyRuns)
			args := append([]string{"data", "load", kind, "-config", cfg,
				"-failures", filepath.Join(b.tmp, "polygons-"+kind+".failures.csv")}, paths...)
			out, took, hwm, err := b.runMeasured(ctx, args...)
			if err != nil {
				return loadOutcome{}, err
			}
			if kept := outputField(out, "features kept:"); kept != thousands(want.Features) && fail == "" {
				fail = fmt.Sprintf("data load %s kept %s features of %s:\n%s", kind, kept, thousands(want.Features), out)
			}
			return loadOutcome{took: took, hwm: hwm, vertices: want.Vertices}, nil
		}
		tr, err := load("boundaries", files.tractN, files.tractShp)
		if err != nil {
			return err
		}
		fl, err := load("flood", files.floodN, files.floodShps...)
		if err != nil {
			return err
		}
		tracts, floods = append(tracts, tr), append(floods, fl)
	}
	tr, fl := medianLoad(tracts), medianLoad(floods)
	cell := func(name string, l loadOutcome, runs []loadOutcome) string {
		return fmt.Sprintf("%s: %s vertices in %s, %s vertices/s, peak resident memory %.0f MB%s", name,
			thousands(l.vertices), l.took.Round(time.Millisecond), thousands(int64(l.rate())), float64(l.hwm)/(1<<20), loadRuns(runs))
	}
	slower, higher := min(tr.rate(), fl.rate()), max(tr.hwm, fl.hwm)
	b.add(row{
		scenario: b.polyLoadLabel(engineName),
		target:   polyLoadTarget,
		measured: cell("tracts", tr, tracts) + "; " + cell("flood map", fl, floods) +
			fmt.Sprintf(" (the files written in %s)", files.took.Round(time.Millisecond)),
		ratio:   fmt.Sprintf("%.2f x 1,000,000 vertices/s; %.2f x 300 MB (the slower, the higher)", slower/1e6, float64(higher)/(300<<20)),
		met:     slower >= 1e6 && higher < 300<<20,
		failure: fail,
	})
	if fail != "" {
		return nil
	}
	return b.polygonsAt(ctx, engineName, database, files)
}

// medianLoad is the median of runs by time, with the highest peak of
// them.
func medianLoad(runs []loadOutcome) loadOutcome {
	sorted := slices.SortedFunc(slices.Values(runs), func(a, b loadOutcome) int { return int(a.took - b.took) })
	m := sorted[(len(sorted)-1)/2]
	for _, r := range runs {
		m.hwm = max(m.hwm, r.hwm)
	}
	return m
}

// loadRuns says which loads a cell's figures come from: nothing for one,
// else each load's time.
func loadRuns(runs []loadOutcome) string {
	if len(runs) < 2 {
		return ""
	}
	times := make([]string, len(runs))
	for i, r := range runs {
		times[i] = r.took.Round(time.Millisecond).String()
	}
	return fmt.Sprintf(" (the median of %d loads into a fresh database each: %s; the highest peak)", len(runs), strings.Join(times, ", "))
}

// outputField is the value of the line of out that starts with label.
func outputField(out, label string) string {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, label); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// servedGeneration is the generation of the one dataset of kind served.
func servedGeneration(ctx context.Context, db engine.Store, kind string) (int64, error) {
	ds, err := db.Datasets(ctx, kind)
	if err != nil {
		return 0, err
	}
	if len(ds) != 1 {
		return 0, fmt.Errorf("%d %s datasets served, want the one loaded", len(ds), kind)
	}
	return ds[0].Generation, nil
}

// polygonsAt times PolygonsAt at b.o.polyPoints random points of each
// layer (after 50 not counted), one call at a time, in the box where each
// tiles its area, on the generation served. Each point must be in exactly
// the polygon the generator put there: the row fails otherwise.
func (b *bench) polygonsAt(ctx context.Context, engineName, database string, files *polygonFiles) error {
	db, err := engine.Open(ctx, database, engine.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	tractGen, err := servedGeneration(ctx, db, providers.KindBoundaries)
	if err != nil {
		return err
	}
	floodGen, err := servedGeneration(ctx, db, providers.KindFlood)
	if err != nil {
		return err
	}
	rnd := rand.New(rand.NewPCG(5, 1000))
	fail := ""
	measure := func(layer string, gen int64, box orb.Bound, want func(orb.Point) string) []time.Duration {
		// The points and the polygons they are in first: the generator's
		// garbage is not to be collected while a call is timed.
		n := b.o.polyPoints + 50
		points, keys := make([]orb.Point, n), make([]string, n)
		for i := range points {
			points[i] = orb.Point{box.Min.Lon() + rnd.Float64()*(box.Max.Lon()-box.Min.Lon()), box.Min.Lat() + rnd.Float64()*(box.Max.Lat()-box.Min.Lat())}
			keys[i] = want(points[i])
		}
		runtime.GC()
		lat := make([]time.Duration, 0, b.o.polyPoints)
		for i, p := range points {
			if ctx.Err() != nil || fail != "" {
				break
			}
			t0 := time.Now()
			got, err := db.PolygonsAt(ctx, layer, gen, providers.Point{Lat: p.Lat(), Lng: p.Lon()})
			d := time.Since(t0)
			switch {
			case err != nil:
				fail = fmt.Sprintf("%s at %v: %v", layer, p, err)
			case len(got) != 1:
				fail = fmt.Sprintf("%s at %v: %d polygons, want exactly one", layer, p, len(got))
			case got[0].Key != keys[i]:
				fail = fmt.Sprintf("%s at %v: %s, want %s", layer, p, got[0].Key, keys[i])
			}
			if i >= 50 {
				lat = append(lat, d)
			}
		}
		slices.Sort(lat)
		return lat
	}
	tracts := measure(tiger.LayerTract, tractGen, files.tracts.Inner(), func(p orb.Point) string {
		t, _ := files.tracts.At(p)
		return t.Key
	})
	flood := measure(floodmap.LayerHazard, floodGen, files.flood.Box(), files.flood.AreaAt)
	if err := ctx.Err(); err != nil {
		return err
	}
	worst50, worst99 := max(percentile(tracts, 50), percentile(flood, 50)), max(percentile(tracts, 99), percentile(flood, 99))
	cell := func(name string, lat []time.Duration) string {
		return fmt.Sprintf("%s p50 %s, p99 %s", name, msPrecise(percentile(lat, 50)), msPrecise(percentile(lat, 99)))
	}
	b.add(row{
		scenario: b.polyAtLabel(engineName),
		target:   polyAtTarget,
		measured: fmt.Sprintf("%s; %s; over %s random points each, each found in the one polygon generated there",
			cell("tracts", tracts), cell("flood hazard areas", flood), thousands(int64(len(tracts)))),
		ratio: fmt.Sprintf("p50 %.2f x 0.5 ms, p99 %.2f x 5 ms (the slower layer)",
			float64(worst50)/float64(500*time.Microsecond), float64(worst99)/float64(5*time.Millisecond)),
		met:     worst50 < 500*time.Microsecond && worst99 < 5*time.Millisecond,
		failure: fail,
	})
	return nil
}

// msPrecise is d in milliseconds to the microsecond.
func msPrecise(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
}
