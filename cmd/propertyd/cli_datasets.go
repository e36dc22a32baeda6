package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
	// GeoPackage files (a flood map made from FEMA's File Geodatabase) are
	// read through SQLite: the reader registers itself with geofile.
	_ "github.com/propertyd/propertyd/store/gpkg"
)

// init gives each kind of the catalogue its help, "data load KIND", and
// its lines in the helps that list the datasets ("data", "data load").
func init() {
	var names []string
	for _, k := range dataload.Kinds() {
		names = append(names, k.Name)
	}
	list := strings.Join(names, "|")
	for _, name := range []string{"data", "data load"} {
		h := helps[name]
		h.usage = fmt.Sprintf(h.usage, list)
		lines := kindLines("  load ", 17)
		if name == "data load" {
			lines = kindLines("  ", 14)
		}
		h.about = fmt.Sprintf(h.about, lines, strings.Join(names, ", "))
		helps[name] = h
	}
	for _, k := range dataload.Kinds() {
		if k.Help != "" {
			helps["data load "+k.Name] = commandHelp{usage: "data load " + k.Name + " " + k.Usage, about: k.Help}
			continue
		}
		helps["data load "+k.Name] = commandHelp{
			usage: "data load " + k.Name + " [-name NAME] [-failures FILE] [-force] [-config PATH] FILE...",
			about: "Load " + k.Summary + `.

Each file is a dataset named after it (-name loads them all as one), loaded
on the one lifecycle of every dataset: staged unseen, a batch a transaction
with its checkpoint, then served in one step in place of the dataset's
former load, which is dropped. Every instance sharing the database serves
it within facts.refresh. A load cut short (kill -9) resumes where it
stopped when the same command runs again; the same files again are nothing
to do. A file that is not of this kind, projected, truncated, or a
shapefile without its .dbf stops the command before its dataset is written:
what is served stays. A feature that cannot be loaded (a broken geometry, a
code of the wrong width) is skipped and written to the failures file.

exit codes: 0 ok, 1 failure (a refused file, the database), 2 usage,
3 configuration, 4 loaded but some features failed`,
		}
	}
}

// kindLines lists the kinds of the catalogue, one a line: prefix and the
// name padded to width, then what loading it gives.
func kindLines(prefix string, width int) string {
	var b strings.Builder
	for _, k := range dataload.Kinds() {
		fmt.Fprintf(&b, "%s%-*s%s\n", prefix, max(width-len(prefix), len(k.Name)+1), k.Name, k.Short)
	}
	return b.String()
}

// datasetLoads are the subcommands of "propertyd data load" for the kinds
// of the catalogue (package dataload): one each, by the kind's name, its
// own command line (Kind.Command) or the one of every kind of Run. A new
// kind of dataset is a subcommand without a line here.
func (c *dataCommand) datasetLoads() []subcommand {
	var out []subcommand
	for _, k := range dataload.Kinds() {
		run := func(args []string) int { return c.loadKind(k, args) }
		if k.Command != nil {
			run = func(args []string) int { return c.loadCommand(k, args) }
		}
		out = append(out, subcommand{k.Name, run})
	}
	return out
}

// loadCommand serves "propertyd data load KIND" of a kind with its own
// command line (dataload.Kind.Command): the kind declares its flags and
// checks its arguments; this reads the flags, checks the files (exit 2
// before the configuration is read), reads the configuration (exit 3),
// gives the kind what it needs of it and of the terminal (dataload.Env),
// and turns what the kind's load returns into a message and an exit code.
func (c *dataCommand) loadCommand(k dataload.Kind, args []string) int {
	fs := newFlags("data load " + k.Name)
	path := configFlag(fs)
	load := k.Command(fs)
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	fail := func(err error) int {
		var usage *dataload.UsageError
		var config *dataload.ConfigError
		switch {
		case errors.Is(err, dataload.ErrSomeFailed):
			return exitRowsFailed
		case errors.As(err, &usage) && usage.Help:
			return usageError(fs, c.stderr, "%v", err)
		}
		fmt.Fprintf(c.stderr, "propertyd data load %s: %v\n", k.Name, err)
		switch {
		case errors.As(err, &usage):
			return exitUsage
		case errors.As(err, &config):
			return exitConfig
		}
		return exitError
	}
	files := fs.Args()
	inputs, err := load.Check(files)
	if err != nil {
		return fail(err)
	}
	if err := checkInputs(inputs...); err != nil {
		return usageError(fs, c.stderr, "%v", err)
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		return fail(&dataload.ConfigError{Err: err})
	}
	env := &dataload.Env{
		Stdout: c.stdout, Stderr: c.stderr, ConfigPath: *path,
		MemoryLimitMB: cfg.MemoryLimitMB, MemoryLimitDefault: cfg.memoryLimitDefault,
		Postgres: engine.IsPostgres(cfg.Database),
		Declared: func(name string) (any, int, bool, error) { return cfg.declared(k.Name, name) },
		Open: func(heapMB int64) (context.Context, providers.DatasetStore, func(), error) {
			return openForLoad(cfg, heapMB)
		},
		Progress: func(unit string) (func(int64, string, bool), func()) {
			bar := c.progress(0)
			if bar != nil && unit != "" {
				bar.unit = unit
			}
			return func(n int64, phase string, force bool) { bar.update(int(n), phase, force) }, bar.finish
		},
	}
	if err := load.Run(env, files); err != nil {
		return fail(err)
	}
	return exitOK
}

// datasetLoadHeapMB is the Go heap's soft limit for a load of datasets
// from files: the configured memory_limit_mb, or where it is the serve
// process's default, 128. A load's live heap is some 55 MB at a county's
// flood map of 20 million points (a batch being read, one being written,
// one waiting, and a zone X polygon of 10 MB with its bands); without a
// limit the collector let the heap reach 150 MB, and on SQLite, whose
// page caches and copies of the large shapes add some 100 MB outside the
// heap, the load peaked at 268 to 311 MB resident, over the 300 MB a load
// is allowed. At 128 the same load peaked at 245 MB for 2% more time.
func datasetLoadHeapMB(cfg *Config) int64 {
	if cfg.memoryLimitDefault {
		return 128
	}
	return cfg.MemoryLimitMB
}

// loadKind serves "propertyd data load KIND FILE...": each dataset of the
// files (dataload.Kind.Datasets) loaded on the one lifecycle, one after
// the other, each resumable after a kill by running the same command
// again. A file that is not of the kind, in a projected coordinate system,
// truncated or missing a part stops the command before that dataset is
// written (exit 1), leaving what is served as it was; a feature that
// cannot be loaded is skipped and written to the failures file (exit 3).
func (c *dataCommand) loadKind(k dataload.Kind, args []string) int {
	fs := newFlags("data load " + k.Name)
	path := configFlag(fs)
	name := fs.String("name", "", "`name` to load all the files under, as one dataset (default each file's own name; a flood map's loose layers their folder's)")
	failuresPath := fs.String("failures", "", "`file` the features that failed are written to, with the reason (default NAME.failures.csv)")
	force := fs.Bool("force", false, "load the files even when the dataset is already loaded from them")
	if k.Flags != nil {
		// The kind's own options: its Open reads them once parsed.
		k.Open = k.Flags(fs)
	}
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageError(fs, c.stderr, "give the file(s): %s", k.Summary)
	}
	if err := checkInputs(files...); err != nil {
		return usageError(fs, c.stderr, "%v", err)
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(c.stderr, "propertyd data load "+k.Name+": "+format+"\n", args...)
		return code
	}
	inputs, err := k.Datasets(files, *name)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	if *failuresPath != "" && len(inputs) > 1 {
		return usageError(fs, c.stderr, "-failures names one dataset's file; the files make %d datasets (give -name to load them as one)", len(inputs))
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	ctx, db, done, err := openForLoad(cfg, datasetLoadHeapMB(cfg))
	if err != nil {
		return fail(exitError, "%v", err)
	}
	defer done()

	code := exitOK
	var loaded []providers.Dataset
	for i, in := range inputs {
		if i > 0 {
			fmt.Fprintln(c.stdout)
		}
		failures := *failuresPath
		if failures == "" {
			failures = in.Name + ".failures.csv"
		}
		bar := c.progress(0)
		if bar != nil {
			bar.unit = "features"
		}
		start := time.Now()
		res, err := dataload.Run(ctx, db, k, in, dataload.Options{Failures: failures, Force: *force,
			Progress: func(n int64, phase string, force bool) { bar.update(int(n), phase, force) }})
		bar.finish()
		for _, w := range res.Warnings {
			fmt.Fprintf(c.stderr, "propertyd data load %s: warning: %s\n", k.Name, w)
		}
		if err != nil {
			var refused *dataload.Refused
			if errors.As(err, &refused) {
				return fail(exitError, "%v (nothing of %s was written; what is served stays)", err, in.Name)
			}
			return fail(exitError, "%s: %v (what is served stays; what was written waits unserved, and the same command resumes it)", in.Name, err)
		}
		d := res.Dataset
		loaded = append(loaded, d)
		if res.AlreadyLoaded {
			fmt.Fprintf(c.stdout, "%s %s is already loaded from these files (%s features, vintage %s); -force loads them again\n",
				k.Name, d.Name, service.Thousands(int(d.Rows)), orUnknown(d.Vintage))
			continue
		}
		took := time.Since(start)
		resumed, rate := "", ""
		if res.Resumed {
			resumed = " (resumed)"
		} else {
			rate = " (" + service.Thousands(int(float64(res.Vertices)/max(took.Seconds(), 0.001))) + " points/s)"
			if res.Vertices == 0 {
				// A kind of rows (address points and ranges): rows a second.
				rate = " (" + service.Thousands(int(float64(res.Read)/max(took.Seconds(), 0.001))) + " features/s)"
			}
		}
		fmt.Fprintf(c.stdout, "%-16s%s%s\nfiles:          %s\nvintage:        %s\ncoverage:       %.4f,%.4f,%.4f,%.4f (west,south,east,north)\nfeatures read:  %s\nfeatures kept:  %s\nfailed:         %s (see %s)\ncontents:       %s\ntook:           %s%s\n",
			k.Name+":", d.Name, resumed, strings.Join(in.Files, ", "), orUnknown(d.Vintage),
			d.Coverage.West, d.Coverage.South, d.Coverage.East, d.Coverage.North,
			service.Thousands(int(res.Read)), service.Thousands(int(d.Rows)), service.Thousands(int(d.Failed)), failures,
			string(d.Meta), took.Round(time.Millisecond), rate)
		if d.Failed > 0 {
			code = exitRowsFailed
		}
	}
	// Tracts of another decade than the ACS release's: said now, as data
	// status says it.
	if acs, err := acsStatus(ctx, db); err == nil {
		for _, w := range vintageWarnings(loaded, acsYear(cfg, acs)) {
			fmt.Fprintf(c.stderr, "propertyd data load %s: warning: %s\n", k.Name, w)
		}
	}
	return code
}

// orUnknown is a vintage, or "unknown" for none.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
