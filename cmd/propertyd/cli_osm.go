package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
)

// osmLoadHeapMB is the Go heap's soft limit for a load of extracts: the
// configured memory_limit_mb, or where it is the serve process's default
// (twice the cache, which a load never opens, plus 72: 200 MB), the
// load's own. Without a limit the collector would let garbage grow the
// heap to twice what is live. A load's live heap is about 120 MB: the PBF
// decoder's read-ahead (ten decoded blocks and its 32 MiB buffer), the
// node cache and a few batches; the collector runs each time garbage
// fills the room left under the limit, so that room is the load's CPU.
// A load is allowed 300 MB resident. On SQLite the database's page caches
// and sorter share the process, and the heap keeps 200 MB (a million
// features peaked at 226 to 284 MB). On PostgreSQL the server holds the
// pages and the heap takes 232 MB: a million features took 35 collections
// instead of 59, the loader's CPU 3.5-3.9 s instead of 4.2-4.6, at 220 to
// 245 MB resident (255 MB at five million; 256 MB of heap took 279).
func osmLoadHeapMB(cfg *Config) int64 {
	if cfg.memoryLimitDefault && engine.IsPostgres(cfg.Database) {
		return 232
	}
	return cfg.MemoryLimitMB
}

// loadOSM serves "propertyd data load osm FILE.osm.pbf...": it streams
// each OpenStreetMap extract into the database (see
// providers/osmextract.Load), one after the other, resumable after a kill
// by running it again. Each is loaded with its bounding polygon: the file
// -poly names, else the .poly beside it (osmextract.PolyBeside), else none
// (its bounding box is its coverage). Every polygon file is read before
// anything is loaded, and a malformed one stops the command.
func (c *dataCommand) loadOSM(args []string) int {
	fs := newFlags("data load osm")
	path := configFlag(fs)
	name := fs.String("name", "", "`name` the extract is loaded under (default the file's name without .osm.pbf); one file only")
	poly := fs.String("poly", "", "the extract's bounding polygon, an Osmosis .poly `file` (default the <region>.poly beside it, if any); one file only")
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageError(fs, c.stderr, "give the extract file(s): .osm.pbf, such as Geofabrik's per-state extracts")
	}
	if *name != "" && len(files) > 1 {
		return usageError(fs, c.stderr, "-name names one extract; give one file with it, not %d", len(files))
	}
	if *poly != "" && len(files) > 1 {
		return usageError(fs, c.stderr, "-poly is one extract's polygon; give one file with it, not %d", len(files))
	}
	inputs := files
	if *poly != "" {
		inputs = append(slices.Clone(files), *poly)
	}
	if err := checkInputs(inputs...); err != nil {
		return usageError(fs, c.stderr, "%v", err)
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(c.stderr, "propertyd data load osm: "+format+"\n", args...)
		return code
	}
	boundaries := make([]*osmextract.Boundary, len(files))
	for i, f := range files {
		p := *poly
		if p == "" {
			p = osmextract.PolyBeside(f)
		}
		if p == "" {
			continue
		}
		b, err := osmextract.ReadPoly(p)
		if err != nil {
			return fail(exitError, "%v (nothing was loaded)", err)
		}
		boundaries[i] = b
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	ctx, db, done, err := openForLoad(cfg, osmLoadHeapMB(cfg))
	if err != nil {
		return fail(exitError, "%v", err)
	}
	defer done()

	for i, file := range files {
		if i > 0 {
			fmt.Fprintln(c.stdout)
		}
		bar := c.progress(0)
		if bar != nil {
			bar.unit = "elements"
		}
		start := time.Now()
		res, err := osmextract.Load(ctx, db, file, osmextract.Options{Name: *name, Boundary: boundaries[i],
			Progress: func(n int64, phase string, force bool) { bar.update(int(n), phase, force) }})
		bar.finish()
		if errors.Is(err, osmextract.ErrFormat) || errors.Is(err, osmextract.ErrPoly) {
			return fail(exitError, "%v (the extract served before stays)", err)
		}
		if err != nil {
			return fail(exitError, "%s: %v (what was written stays; run the same command again to resume)", file, err)
		}
		x := res.Extract
		if res.AlreadyLoaded {
			fmt.Fprintf(c.stdout, "extract %s is already loaded from %s (data of %s)\n", x.Name, file, x.Date())
			continue
		}
		resumed := ""
		if res.Resumed {
			resumed = " (resumed)"
		}
		took := time.Since(start)
		// A resumed load read part of the elements in a run before this
		// one: their count over this run's time would be no rate.
		rate := ""
		if !res.Resumed {
			rate = " (" + service.Thousands(int(float64(res.Elements)/max(took.Seconds(), 0.001))) + " elements/s)"
		}
		fmt.Fprintf(c.stdout, "extract:        %s%s\ndata of:        %s\ncoverage:       %s\nelements read:  %s\nplaces:         %s\nbuildings:      %s\naddresses:      %s\nskipped:        %s (broken geometry)\ntook:           %s%s\n",
			x.Name, resumed, x.Timestamp.UTC().Format(time.RFC3339), coverage(x, boundaries[i]),
			service.Thousands(int(res.Elements)), service.Thousands(int(x.Places)), service.Thousands(int(x.Buildings)),
			service.Thousands(int(x.Addresses)), service.Thousands(int(x.Skipped)), took.Round(time.Millisecond), rate)
		if f := res.Facts; f != nil {
			fmt.Fprintf(c.stdout, "facts:          %s buildings give facts, %s matched records (dataset %s)\n",
				service.Thousands(int(f.Rows)), service.Thousands(int(f.Matched)), f.Dataset)
		}
	}
	return exitOK
}

// coverage says what an extract loaded with b (nil: none) covers: its
// polygon within its box, or its box alone.
func coverage(x providers.OSMExtract, b *osmextract.Boundary) string {
	box := fmt.Sprintf("%.4f,%.4f,%.4f,%.4f (west,south,east,north)", x.Coverage.West, x.Coverage.South, x.Coverage.East, x.Coverage.North)
	if x.Boundary == nil || b == nil {
		return "box " + box
	}
	return fmt.Sprintf("polygon of %s (%s, %s, %s points) within %s", b.File,
		plural(b.Areas, "area"), plural(b.Holes, "hole"), service.Thousands(b.Points), box)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return service.Thousands(n) + " " + what + "s"
}
