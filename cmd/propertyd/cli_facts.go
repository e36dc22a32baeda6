package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers/assessor"
	"github.com/propertyd/propertyd/providers/service"
)

// loadParcels serves "propertyd data load parcels -dataset NAME FILE...":
// it streams an assessor dataset's files into the database as facts (see
// providers/assessor.Load), resumable after a kill by running it again.
func (c *dataCommand) loadParcels(args []string) int {
	fs := newFlags("data load parcels")
	path := configFlag(fs)
	name := fs.String("dataset", "", "`name` of the dataset: one declared under facts.datasets in config.yaml, or any name with -preset")
	preset := fs.String("preset", "", "load the files as a known dataset needs no mapping: "+strings.Join(assessor.PresetNames(), ", "))
	asOf := fs.String("as-of", "", "`date` (YYYY-MM-DD) the data is as of; default the dataset's as_of, else today")
	failuresPath := fs.String("failures", "", "`file` the rows that failed are written to, with the reason (default NAME.failures.csv)")
	force := fs.Bool("force", false, "load the files even when the dataset is already loaded from them")
	inPlace := fs.Bool("in-place", false, "merge the records a few thousand a transaction even when most records change, where SQLite would rebuild its search indexes around one transaction: slower, but the server's writes never wait long")
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	files := fs.Args()
	if *name == "" {
		*name = *preset
	}
	if *name == "" {
		return usageError(fs, c.stderr, "-dataset is required (or -preset)")
	}
	if len(files) == 0 {
		return usageError(fs, c.stderr, "give the dataset's file(s): CSV or GeoJSON, either gzipped")
	}
	if err := checkInputs(files...); err != nil {
		return usageError(fs, c.stderr, "%v", err)
	}
	if _, err := time.Parse(time.DateOnly, *asOf); *asOf != "" && (err != nil || len(*asOf) != len(time.DateOnly)) {
		return usageError(fs, c.stderr, "-as-of %q is not a date (YYYY-MM-DD, a day the month has)", *asOf)
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(c.stderr, "propertyd data load parcels: "+format+"\n", args...)
		return code
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	d, priority, declared, err := cfg.Facts.dataset(*name)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	switch {
	case declared && *preset != "" && d.Preset != *preset:
		return fail(exitUsage, "dataset %s is declared in %s as %s; drop -preset or load it under another name", *name, *path, describe(d))
	case !declared && *preset == "":
		return fail(exitUsage, "no dataset %q under facts.datasets in %s; declare it, or give -preset (%s)",
			*name, *path, strings.Join(assessor.PresetNames(), ", "))
	case !declared:
		d, err = assessor.Dataset{Name: *name, Preset: *preset}.Resolve()
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	if *asOf != "" {
		d.AsOf = *asOf
		if err := d.Validate(); err != nil {
			return usageError(fs, c.stderr, "-as-of: %v", err)
		}
	}
	if *failuresPath == "" {
		*failuresPath = *name + ".failures.csv"
	}

	ctx, db, done, err := openForLoad(cfg, 0)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	defer done()

	bar := c.progress(0)
	start := time.Now()
	res, err := assessor.Load(ctx, db, d, files, assessor.Options{
		Priority: priority, Failures: *failuresPath, Force: *force, InPlace: *inPlace,
		Progress: func(rows int64, phase string, force bool) { bar.update(int(rows), phase, force) },
	})
	bar.finish()
	if errors.Is(err, assessor.ErrMissingColumn) || errors.Is(err, assessor.ErrFiles) || errors.Is(err, assessor.ErrNotText) {
		return fail(exitUsage, "%v", err)
	}
	if err != nil {
		return fail(exitError, "%v (rows written so far stay; run the same command again to resume)", err)
	}
	if res.AlreadyLoaded {
		fmt.Fprintf(c.stdout, "dataset %s is already loaded from these files (as of %s, %s rows); -force loads them again\n",
			d.Name, res.Set.AsOf, service.Thousands(int(res.Set.Rows)))
		return exitOK
	}
	took := time.Since(start)
	resumed := ""
	if res.Resumed {
		resumed = " (resumed)"
	}
	fmt.Fprintf(c.stdout, "dataset:        %s%s\nsource:         %s\nas of:          %s\nrows read:      %s\nrows kept:      %s\nrows matched:   %s\nrows failed:    %s (see %s)\ntook:           %s\n",
		d.Name, resumed, res.Set.Source, res.Set.AsOf, service.Thousands(int(res.Read)), service.Thousands(int(res.Set.Rows)),
		service.Thousands(int(res.Set.Matched)), service.Thousands(int(res.Failed)), *failuresPath, took.Round(time.Millisecond))
	if res.Failed > 0 {
		return exitRowsFailed
	}
	return exitOK
}

func describe(d assessor.Dataset) string {
	if d.Preset != "" {
		return "preset " + d.Preset
	}
	return "its own mapping"
}
