package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
)

// copyChunk is how many records or section values one read and one write
// transaction of a copy hold: large enough that a million records take a
// few hundred round trips, small enough that an interrupted copy loses
// little and a transaction never holds the destination's writer for long.
const copyChunk = 1000

// copyCommand is "propertyd copy"; it reaches no upstream.
type copyCommand struct{ console }

// copyCmd serves "propertyd copy".
func copyCmd(args []string, stdout, stderr io.Writer) int {
	return (&copyCommand{console{stdout: stdout, stderr: stderr}}).run(args)
}

// copySummary counts what a copy did.
type copySummary struct {
	Records, RecordsAdded, KeysAdded, Sections, SectionsWritten int
}

func (c *copyCommand) run(args []string) int {
	fs := newFlags("copy")
	from := fs.String("from", "", "the database to copy from: a SQLite `file` or a postgres:// URL")
	to := fs.String("to", "", "the database to copy into: a SQLite `file` (created when missing) or a postgres:// URL")
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return usageError(fs, c.stderr, "unexpected argument %q", fs.Arg(0))
	case *from == "" || *to == "":
		return usageError(fs, c.stderr, "both -from and -to are required")
	case *from == *to:
		return usageError(fs, c.stderr, "-from and -to name the same database")
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(c.stderr, "propertyd copy: "+format+"\n", args...)
		return exitError
	}
	if !engine.IsPostgres(*from) {
		// Opening a missing SQLite file would create an empty one.
		if _, err := os.Stat(*from); err != nil {
			return fail("%v", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	src, err := engine.Open(ctx, *from, engine.Options{})
	if err != nil {
		return fail("opening %s: %v", engine.Describe(*from), err)
	}
	defer src.Close()
	dst, err := engine.Open(ctx, *to, engine.Options{})
	if err != nil {
		return fail("opening %s: %v", engine.Describe(*to), err)
	}
	defer dst.Close()

	records, sections, err := src.Counts(ctx)
	if err != nil {
		return fail("counting %s: %v", engine.Describe(*from), err)
	}
	bar := c.progress(records + sections)
	sum, runErr := copyAll(ctx, src, dst, bar.update)
	bar.finish()
	fmt.Fprintf(c.stdout, "records:   %s read, %s added\nkeys:      %s added\nsections:  %s read, %s written\n",
		service.Thousands(sum.Records), service.Thousands(sum.RecordsAdded), service.Thousands(sum.KeysAdded),
		service.Thousands(sum.Sections), service.Thousands(sum.SectionsWritten))
	if runErr == nil {
		runErr = c.notCopied(ctx, src)
	}
	if err := dst.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return fail("stopped: %v (what was copied stays copied; run the copy again to finish)", runErr)
	}
	return exitOK
}

// copyAll copies every record, then every section value, from src to dst
// in chunks, telling progress how many of them are done.
func copyAll(ctx context.Context, src, dst engine.Store, progress func(done int, phase string, force bool)) (copySummary, error) {
	var sum copySummary
	progress(0, "copying records", true)
	for after := int64(0); ; {
		recs, err := src.ListRecords(ctx, after, copyChunk)
		if err != nil {
			return sum, fmt.Errorf("reading records: %w", err)
		}
		if len(recs) == 0 {
			break
		}
		added, keys, err := dst.CopyRecords(ctx, recs)
		if err != nil {
			return sum, fmt.Errorf("writing records: %w", err)
		}
		sum.Records += len(recs)
		sum.RecordsAdded += added
		sum.KeysAdded += keys
		after = recs[len(recs)-1].Property.ID
		progress(sum.Records, "copying records", false)
	}
	progress(sum.Records, "copying sections", true)
	for section, key := "", ""; ; {
		recs, err := src.ListSections(ctx, section, key, copyChunk)
		if err != nil {
			return sum, fmt.Errorf("reading sections: %w", err)
		}
		if len(recs) == 0 {
			break
		}
		n, err := dst.CopySections(ctx, recs)
		if err != nil {
			return sum, fmt.Errorf("writing sections: %w", err)
		}
		sum.Sections += len(recs)
		sum.SectionsWritten += n
		last := recs[len(recs)-1]
		section, key = last.Section, last.Key
		progress(sum.Records+sum.Sections, "copying sections", false)
	}
	return sum, nil
}

// notCopied says which of src's assessor datasets and OpenStreetMap
// extracts a copy leaves behind: their rows and features are not copied
// (only the facts each record holds, and the import's rows, travel with
// the records), so the destination does not list them in data status, a
// later load there does not weigh them, and amenities are asked of
// Overpass until they are loaded again there.
func (c *copyCommand) notCopied(ctx context.Context, src engine.Store) error {
	sets, err := src.FactSets(ctx)
	if err != nil {
		return fmt.Errorf("listing the datasets: %w", err)
	}
	extracts, err := src.OSMExtracts(ctx)
	if err != nil {
		return fmt.Errorf("listing the extracts: %w", err)
	}
	var datasets, names []string
	for _, s := range sets {
		// The import's rows travel with the records; an extract's
		// facts are its buildings, told with the extract.
		if s.Dataset != "import" && s.Source != osmextract.FactsSource {
			datasets = append(datasets, s.Dataset)
		}
	}
	for _, x := range extracts {
		names = append(names, x.Name)
	}
	if len(datasets) > 0 {
		fmt.Fprintf(c.stdout, "not copied: the assessor datasets %s (their rows; the records keep the facts they had): load them again on the destination with propertyd data load parcels\n",
			strings.Join(datasets, ", "))
	}
	if len(names) > 0 {
		fmt.Fprintf(c.stdout, "not copied: the OpenStreetMap extracts %s (their places, buildings and addresses): load them again on the destination with propertyd data load osm\n",
			strings.Join(names, ", "))
	}
	return nil
}
