package assessor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/service"
)

// Parcels is the assessor datasets' kind in the catalogue of datasets
// (dataload): its own command line ("propertyd data load parcels", with a
// preset or the configuration's mapping) and the drop of a retired
// generation of its rows. Its loads run Load, on the same lifecycle as
// every kind's: the same loads in progress, the same table of datasets
// served, the same dropper of retired generations.
var Parcels = dataload.Kind{
	Name:    providers.KindParcels,
	Short:   "an assessor dataset (CSV or GeoJSON files): property facts",
	Summary: "the files of an assessor dataset (CSV, or GeoJSON FeatureCollection, either gzipped)",
	Order:   -2,
	Usage:   "-dataset NAME [-preset P] [-as-of DATE] [-failures FILE] [-force] [-in-place] [-config PATH] FILE...",
	Help: `Load the files of an assessor dataset (CSV, or GeoJSON FeatureCollection,
either gzipped) as property facts: bedrooms, bathrooms, areas, year built,
stories, units and property type. The dataset is declared under
facts.datasets in config.yaml (a preset, or its own column mapping), or
named here with -preset (cook-county, nyc-pluto, allegheny). A two-file
dataset (cook-county: characteristics and addresses, joined on pin) takes
both files in either order.

Rows stream in constant memory, 5,000 a transaction with a checkpoint:
a killed load resumes where it stopped when run again with the same files,
writing no row twice; the same files once loaded are not loaded again
(-force does). Records see the new rows all at once when the load ends,
and serving instances show them within facts.refresh. On SQLite, a load
that changes most records rebuilds the search indexes around one
transaction: reads go on, writes wait for it; -in-place merges a few
thousand records a transaction instead, slower. Rows that fail
(no key, no usable address or point, no facts) and values dropped (out of
bounds, unreadable, unknown codes) are written to the failures file with
the reason and never stop the run. Columns the mapping names that a file
lacks stop the load before any row, each named, and so does a file that
is neither CSV text nor GeoJSON.

exit codes: 0 ok (every row kept whole, or the files already loaded), 4 the
load finished but some rows failed or lost a value (see the failures file),
1 failure (database, unreadable file), 2 usage (unknown dataset or preset, a file missing, empty or a directory, missing columns,
a file that is no CSV text, wrong number of files), 3 invalid config`,
	Drop: func(ctx context.Context, st providers.DatasetStore, name string, generation int64) error {
		fs, ok := st.(providers.FactStore)
		if !ok {
			return errors.New("assessor: the store keeps no facts to drop a generation from")
		}
		return fs.DropFacts(ctx, name, generation)
	},
}

// init gives Parcels its command (which runs Load, which drops through
// Parcels: a cycle Go refuses in a variable's initializer) and registers it.
func init() {
	Parcels.Command = parcelsCommand
	dataload.Register(Parcels)
}

// parcelsCommand declares the flags of "propertyd data load parcels" and
// returns its load: an assessor dataset's files streamed into the database
// as facts (Load), resumable after a kill by running it again.
func parcelsCommand(fs *flag.FlagSet) dataload.Load {
	name := fs.String("dataset", "", "`name` of the dataset: one declared under facts.datasets in config.yaml, or any name with -preset")
	preset := fs.String("preset", "", "load the files as a known dataset needs no mapping: "+strings.Join(PresetNames(), ", "))
	asOf := fs.String("as-of", "", "`date` (YYYY-MM-DD) the data is as of; default the dataset's as_of, else today")
	failuresPath := fs.String("failures", "", "`file` the rows that failed are written to, with the reason (default NAME.failures.csv)")
	force := fs.Bool("force", false, "load the files even when the dataset is already loaded from them")
	inPlace := fs.Bool("in-place", false, "merge the records a few thousand a transaction even when most records change, where SQLite would rebuild its search indexes around one transaction: slower, but the server's writes never wait long")
	usage := func(help bool, format string, args ...any) error {
		return &dataload.UsageError{Err: fmt.Errorf(format, args...), Help: help}
	}
	check := func(files []string) ([]string, error) {
		if *name == "" {
			*name = *preset
		}
		if *name == "" {
			return nil, usage(true, "-dataset is required (or -preset)")
		}
		if len(files) == 0 {
			return nil, usage(true, "give the dataset's file(s): CSV or GeoJSON, either gzipped")
		}
		if _, err := time.Parse(time.DateOnly, *asOf); *asOf != "" && (err != nil || len(*asOf) != len(time.DateOnly)) {
			return nil, usage(true, "-as-of %q is not a date (YYYY-MM-DD, a day the month has)", *asOf)
		}
		return files, nil
	}
	run := func(env *dataload.Env, files []string) error {
		decl, priority, declared, err := env.Declared(*name)
		if err != nil {
			return &dataload.ConfigError{Err: err}
		}
		d, _ := decl.(Dataset)
		switch {
		case declared && *preset != "" && d.Preset != *preset:
			return usage(false, "dataset %s is declared in %s as %s; drop -preset or load it under another name", *name, env.ConfigPath, describe(d))
		case !declared && *preset == "":
			return usage(false, "no dataset %q under facts.datasets in %s; declare it, or give -preset (%s)",
				*name, env.ConfigPath, strings.Join(PresetNames(), ", "))
		case !declared:
			d, err = Dataset{Name: *name, Preset: *preset}.Resolve()
			if err != nil {
				return &dataload.UsageError{Err: err}
			}
		}
		if *asOf != "" {
			d.AsOf = *asOf
			if err := d.Validate(); err != nil {
				return usage(true, "-as-of: %v", err)
			}
		}
		if *failuresPath == "" {
			*failuresPath = *name + ".failures.csv"
		}
		ctx, st, done, err := env.Open(0)
		if err != nil {
			return err
		}
		defer done()
		fs, ok := st.(providers.FactStore)
		if !ok {
			return errors.New("the database keeps no facts")
		}
		update, finish := env.Progress("")
		start := time.Now()
		res, err := Load(ctx, fs, d, files, Options{
			Priority: priority, Failures: *failuresPath, Force: *force, InPlace: *inPlace, Progress: update,
		})
		finish()
		if errors.Is(err, ErrMissingColumn) || errors.Is(err, ErrFiles) || errors.Is(err, ErrNotText) {
			return &dataload.UsageError{Err: err}
		}
		if err != nil {
			return fmt.Errorf("%v (rows written so far stay; run the same command again to resume)", err)
		}
		if res.AlreadyLoaded {
			fmt.Fprintf(env.Stdout, "dataset %s is already loaded from these files (as of %s, %s rows); -force loads them again\n",
				d.Name, res.Set.AsOf, service.Thousands(int(res.Set.Rows)))
			return nil
		}
		took := time.Since(start)
		resumed := ""
		if res.Resumed {
			resumed = " (resumed)"
		}
		fmt.Fprintf(env.Stdout, "dataset:        %s%s\nsource:         %s\nas of:          %s\nrows read:      %s\nrows kept:      %s\nrows matched:   %s\nrows failed:    %s (see %s)\ntook:           %s\n",
			d.Name, resumed, res.Set.Source, res.Set.AsOf, service.Thousands(int(res.Read)), service.Thousands(int(res.Set.Rows)),
			service.Thousands(int(res.Set.Matched)), service.Thousands(int(res.Failed)), *failuresPath, took.Round(time.Millisecond))
		if res.Failed > 0 {
			return dataload.ErrSomeFailed
		}
		return nil
	}
	return dataload.Load{Check: check, Run: run}
}

func describe(d Dataset) string {
	if d.Preset != "" {
		return "preset " + d.Preset
	}
	return "its own mapping"
}
