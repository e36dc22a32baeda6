package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/geographies"
	"github.com/propertyd/propertyd/providers/decorators/localmatch"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
)

// importCommand is "propertyd import"; its transport reaches the geocoder.
type importCommand struct{ console }

// importCmd serves "propertyd import".
func importCmd(args []string, stdout, stderr io.Writer) int {
	return (&importCommand{console{stdout: stdout, stderr: stderr}}).run(args)
}

func (c *importCommand) run(args []string) int {
	fs := newFlags("import")
	path := configFlag(fs)
	failuresPath := fs.String("failures", "", "write failed rows, each with its reason, to `file` (default FILE.failures.csv)")
	batchTimeout := fs.Duration("batch-timeout", 30*time.Minute, "how long one batch geocoder call (up to 10,000 addresses) may take")
	matchFlag := fs.String("match", "", "what a row accepts of the geocoder's answer, as lookup's match=: `best` (the first of several addresses) or strict (exact matches only)")
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	mode, ok := service.ParseMatchMode(*matchFlag)
	if !ok || (*matchFlag != "" && mode == service.MatchAuto) {
		return usageError(fs, c.stderr, "-match must be best or strict, not %q", *matchFlag)
	}
	switch {
	case fs.NArg() == 0:
		return usageError(fs, c.stderr, "missing the CSV file to import")
	case fs.NArg() > 1:
		return usageError(fs, c.stderr, "one file at a time, got %d", fs.NArg())
	}
	file := fs.Arg(0)
	if *failuresPath == "" {
		*failuresPath = strings.TrimSuffix(file, filepath.Ext(file)) + ".failures.csv"
	}
	if err := checkInputs(file); err != nil {
		return usageError(fs, c.stderr, "%v", err)
	}
	if sameFile(file, *failuresPath) {
		return usageError(fs, c.stderr, "the failures file would overwrite %s", file)
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(c.stderr, "propertyd import: "+format+"\n", args...)
		return code
	}

	cfg, err := LoadConfig(*path)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	in, err := os.Open(file)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer in.Close()
	r := newImportReader(in)
	names, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the file is empty; the first row must name the columns")
		}
		return fail(exitUsage, "%s: %v", file, err)
	}
	header, err := service.ParseImportHeader(names)
	if err != nil {
		return fail(exitUsage, "%s: %v", file, strings.ReplaceAll(err.Error(), "\n", "; "))
	}

	m := NewMain(cfg)
	m.HTTPTransport = c.transport
	m.Logger = slog.New(slog.DiscardHandler)
	defer m.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// With a Redis configured the geocoder's rate and concurrency cap are
	// the fleet's, shared with the instances serving meanwhile.
	if err := m.openFleet(ctx); err != nil {
		return fail(exitError, "%v", err)
	}
	geocoder, source, counties, err := c.geocoders(m)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	db, err := engine.Open(ctx, cfg.Database, engine.Options{})
	if err != nil {
		return fail(exitError, "opening database %s: %v", engine.Describe(cfg.Database), err)
	}
	defer db.Close()
	bounds := geographies.NewBoundaries(db)
	if counties != nil {
		// A county inside loaded TIGER/Line boundaries is named from
		// them, with no call.
		counties = geographies.NewReverse(bounds, counties, nil)
	}
	// Loaded address points and ranges match an address before the batch
	// geocoder is asked, their county and tract from the loaded
	// boundaries (or the geocoder's reverse), as a lookup's.
	var located providers.Geocoder
	if g, ok := geocoder.(providers.Geocoder); ok {
		located = geographies.NewGeocoder(bounds, g, nil)
	}
	geocoder = localmatch.New(db, located, cfg.Geocoding == geocodingLocal).Batch(geocoder)
	out, err := os.Create(*failuresPath)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	defer out.Close()
	// The failures file has the input's columns and a reason: the input's
	// own reason column when it has one (it is a failures file, fixed).
	failureNames := slices.Clone(names)
	reasonAt := slices.IndexFunc(names, func(n string) bool {
		return strings.EqualFold(strings.TrimSpace(n), service.FailureReasonColumn)
	})
	if reasonAt < 0 {
		reasonAt = len(names)
		failureNames = append(failureNames, service.FailureReasonColumn)
	}
	failures := csv.NewWriter(out)
	if err := failures.Write(failureNames); err != nil {
		return fail(exitError, "%s: %v", *failuresPath, err)
	}

	bar := c.progress(countRows(file))
	im := &service.Importer{
		Store: db, Geocoder: geocoder, Source: source, Mode: mode, Counties: counties, BatchTimeout: *batchTimeout,
		Fail: func(fields []string, reason string) error {
			row := make([]string, len(failureNames))
			copy(row, fields)
			row[reasonAt] = reason
			return failures.Write(row)
		},
		Progress: bar.update,
	}
	sum, runErr := im.Run(ctx, header, r)
	bar.finish()
	failures.Flush()
	if err := errors.Join(failures.Error(), out.Close()); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing %s: %w", *failuresPath, err)
	}
	fmt.Fprintf(c.stdout, "rows read:   %d\nmatched:     %d\n  created:   %d\n  updated:   %d\n  unchanged: %d\nfailed:      %d\nfailures:    %s\nmatches:     %s\n",
		sum.Read, sum.Matched, sum.Created, sum.Updated, sum.Unchanged, sum.Failed, *failuresPath, sum.MatchCounts())
	if err := db.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return fail(exitError, "stopped after reading %s: %v (rows saved so far stay saved; run the import again to resume)",
			service.CountOf(sum.Read, "row", "rows"), runErr)
	}
	if sum.Failed > 0 {
		return exitRowsFailed
	}
	return exitOK
}

// geocoders builds the configured geocoder, as a batch geocoder, and the
// reverse geocoder (nil when none is configured), which names the counties
// of imported records, with serve's builder (same retries and outbound
// rate limits). source is the geocoder module's name. The caller closes
// the modules built (m.Close), also when it fails.
func (c *importCommand) geocoders(m *Main) (bg providers.BatchGeocoder, source string, rg providers.ReverseGeocoder, err error) {
	mods, err := m.buildModules(nil, providers.RoleGeocoder, providers.RoleReverseGeocoder)
	if err != nil {
		return nil, "", nil, err
	}
	for _, b := range mods {
		switch b.role {
		case providers.RoleGeocoder:
			g, ok := b.value.(providers.BatchGeocoder)
			if !ok {
				return nil, "", nil, fmt.Errorf("geocoder module %s cannot geocode in batches; import needs one that can (census)", b.pc.Module)
			}
			bg, source = g, b.pc.Module
		case providers.RoleReverseGeocoder:
			r, ok := b.value.(providers.ReverseGeocoder)
			if !ok {
				return nil, "", nil, fmt.Errorf("reverse geocoder module %s cannot reverse geocode", b.pc.Module)
			}
			rg = r
		}
	}
	if bg == nil {
		return nil, "", nil, errors.New("no geocoder is configured")
	}
	return bg, source, rg, nil
}

// newImportReader reads an import file: fields may be quoted loosely, and
// every row must have as many fields as the header (others are failures).
func newImportReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.LazyQuotes = true
	return cr
}

// countRows counts the data rows of file for the progress bar; 0 when it
// cannot tell, which draws the bar without a total.
func countRows(file string) int {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := newImportReader(f)
	r.FieldsPerRecord = -1
	n := -1 // the header
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			return max(n, 0)
		}
		var perr *csv.ParseError
		if err != nil && !errors.As(err, &perr) {
			return 0
		}
		n++
	}
}

// sameFile reports whether a and b name the same file, existing or not.
func sameFile(a, b string) bool {
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
}
