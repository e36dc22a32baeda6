package osmextract

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/service"
)

// Extracts is the OpenStreetMap extracts' kind in the catalogue of
// datasets (dataload): its own command line ("propertyd data load osm",
// with a polygon file) and the drop of a retired generation of an
// extract's features. Its loads run Load, on the same lifecycle as every
// kind's: the same loads in progress, the same table of datasets served,
// the same dropper of retired generations.
var Extracts = dataload.Kind{
	Name:    providers.KindOSM,
	Short:   "OpenStreetMap extracts (.osm.pbf): amenities, buildings, addresses",
	Summary: "OpenStreetMap extracts (.osm.pbf, such as Geofabrik's per-state extracts)",
	Order:   -1,
	Usage:   "[-name NAME] [-poly FILE.poly] [-config PATH] FILE.osm.pbf...",
	Help: `Load OpenStreetMap extracts (.osm.pbf, such as Geofabrik's one per US
state) into the database: the places of the seven amenity categories (by
the same tag rules the overpass module queries), the buildings with their
footprints, levels, flats and start dates, and the address points. The
amenities and walk scores of a point whose 2,000 m circle lies inside a
loaded extract are then answered from it, with no Overpass call, and the
records inside a building take its facts (type, stories, units, year
built) after the import and every assessor dataset.

An extract's coverage is its bounding polygon when it is loaded with one:
the Osmosis polygon file (.poly) -poly names, else the one beside the
extract with its name (Geofabrik publishes <region>.poly beside
<region>-latest.osm.pbf); without one it is the file's bounding box. A
circle is answered from the extract only when it lies wholly inside. Every
polygon file is read before anything is loaded: a malformed one, or one
of another area, stops the command.

Each file is the extract named after it (-name names another); loading a
file of a name loaded before replaces that extract in one step, and the
file already loaded is not loaded again. The file is read twice,
streaming (the nodes' coordinates wait in a temporary file, in TMPDIR);
features are written 20,000 a transaction with a checkpoint, so
a killed load resumes where it stopped when run again with the same file.
A file that is not a readable extract (not PBF, truncated, not sorted)
stops the load and leaves the extract served before in place; a feature
with a broken geometry is skipped and counted.

exit codes: 0 ok (features skipped for a broken geometry are counted, not
failed: there is no failures file), 1 failure (database, a file that is no
extract), 2 usage
(a file missing, empty or a directory), 3 invalid config`,
	Drop: func(ctx context.Context, st providers.DatasetStore, name string, generation int64) error {
		os, ok := st.(providers.OSMStore)
		if !ok {
			return errors.New("osmextract: the store keeps no extracts to drop a generation from")
		}
		return os.DropOSM(ctx, name, generation)
	},
}

// init gives Extracts its command (which runs Load, which drops through
// Extracts: a cycle Go refuses in a variable's initializer) and registers
// it.
func init() {
	Extracts.Command = command
	dataload.Register(Extracts)
}

// HeapMB is the Go heap's soft limit for a load of extracts: the
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
func HeapMB(env *dataload.Env) int64 {
	if env.MemoryLimitDefault && env.Postgres {
		return 232
	}
	return env.MemoryLimitMB
}

// command declares the flags of "propertyd data load osm" and returns its
// load: each extract streamed into the database (Load), one after the
// other, resumable after a kill by running it again. Each is loaded with
// its bounding polygon: the file -poly names, else the .poly beside it
// (PolyBeside), else none (its bounding box is its coverage). Every
// polygon file is read before anything is loaded, and a malformed one
// stops the command.
func command(fs *flag.FlagSet) dataload.Load {
	name := fs.String("name", "", "`name` the extract is loaded under (default the file's name without .osm.pbf); one file only")
	poly := fs.String("poly", "", "the extract's bounding polygon, an Osmosis .poly `file` (default the <region>.poly beside it, if any); one file only")
	usage := func(format string, args ...any) error {
		return &dataload.UsageError{Err: fmt.Errorf(format, args...), Help: true}
	}
	var boundaries []*Boundary
	check := func(files []string) ([]string, error) {
		if len(files) == 0 {
			return nil, usage("give the extract file(s): .osm.pbf, such as Geofabrik's per-state extracts")
		}
		if *name != "" && len(files) > 1 {
			return nil, usage("-name names one extract; give one file with it, not %d", len(files))
		}
		if *poly != "" && len(files) > 1 {
			return nil, usage("-poly is one extract's polygon; give one file with it, not %d", len(files))
		}
		if *poly != "" {
			return append(slices.Clone(files), *poly), nil
		}
		return files, nil
	}
	run := func(env *dataload.Env, files []string) error {
		boundaries = make([]*Boundary, len(files))
		for i, f := range files {
			p := *poly
			if p == "" {
				p = PolyBeside(f)
			}
			if p == "" {
				continue
			}
			b, err := ReadPoly(p)
			if err != nil {
				return fmt.Errorf("%v (nothing was loaded)", err)
			}
			boundaries[i] = b
		}
		ctx, st, done, err := env.Open(HeapMB(env))
		if err != nil {
			return err
		}
		defer done()
		os, ok := st.(providers.OSMStore)
		if !ok {
			return errors.New("the database keeps no extracts")
		}
		for i, file := range files {
			if i > 0 {
				fmt.Fprintln(env.Stdout)
			}
			update, finish := env.Progress("elements")
			start := time.Now()
			res, err := Load(ctx, os, file, Options{Name: *name, Boundary: boundaries[i], Progress: update})
			finish()
			if errors.Is(err, ErrFormat) || errors.Is(err, ErrPoly) {
				return fmt.Errorf("%v (the extract served before stays)", err)
			}
			if err != nil {
				return fmt.Errorf("%s: %v (what was written stays; run the same command again to resume)", file, err)
			}
			x := res.Extract
			if res.AlreadyLoaded {
				fmt.Fprintf(env.Stdout, "extract %s is already loaded from %s (data of %s)\n", x.Name, file, x.Date())
				continue
			}
			resumed := ""
			if res.Resumed {
				resumed = " (resumed)"
			}
			took := time.Since(start)
			// A resumed load read part of the elements in a run before
			// this one: their count over this run's time would be no rate.
			rate := ""
			if !res.Resumed {
				rate = " (" + service.Thousands(int(float64(res.Elements)/max(took.Seconds(), 0.001))) + " elements/s)"
			}
			fmt.Fprintf(env.Stdout, "extract:        %s%s\ndata of:        %s\ncoverage:       %s\nelements read:  %s\nplaces:         %s\nbuildings:      %s\naddresses:      %s\nskipped:        %s (broken geometry)\ntook:           %s%s\n",
				x.Name, resumed, x.Timestamp.UTC().Format(time.RFC3339), coverage(x, boundaries[i]),
				service.Thousands(int(res.Elements)), service.Thousands(int(x.Places)), service.Thousands(int(x.Buildings)),
				service.Thousands(int(x.Addresses)), service.Thousands(int(x.Skipped)), took.Round(time.Millisecond), rate)
			if f := res.Facts; f != nil {
				fmt.Fprintf(env.Stdout, "facts:          %s buildings give facts, %s matched records (dataset %s)\n",
					service.Thousands(int(f.Rows)), service.Thousands(int(f.Matched)), f.Dataset)
			}
		}
		return nil
	}
	return dataload.Load{Check: check, Run: run}
}

// coverage says what an extract loaded with b (nil: none) covers: its
// polygon within its box, or its box alone.
func coverage(x providers.OSMExtract, b *Boundary) string {
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
