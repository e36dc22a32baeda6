package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/providers/tiger"
	"github.com/propertyd/propertyd/store/engine"
)

// statusRow is one dataset of any kind in the table "data status" opens
// with.
type statusRow struct {
	kind, name, vintage, coverage, failures string
	rows, failed                            int64
	loaded                                  time.Time
	took                                    time.Duration
}

// status serves "propertyd data status": one table of every dataset loaded,
// whatever its kind (the datasets served of every kind of the loading
// lifecycle: assessor files, OpenStreetMap extracts, boundaries, flood
// maps; then the import and the ACS states), then what each kind says
// besides, then a
// warning for each boundaries dataset whose tracts are not those of the
// ACS release the demographics use.
func (c *dataCommand) status(args []string) int {
	fs := newFlags("data status")
	path := configFlag(fs)
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, c.stderr, "unexpected argument %q", fs.Arg(0))
	}
	fail := func(err error) int {
		fmt.Fprintf(c.stderr, "propertyd data status: %v\n", err)
		return exitError
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		fmt.Fprintf(c.stderr, "propertyd data status: %v\n", err)
		return exitConfig
	}
	ctx := context.Background()
	db, err := engine.Open(ctx, cfg.Database, engine.Options{})
	if err != nil {
		return fail(fmt.Errorf("opening database %s: %v", engine.Describe(cfg.Database), err))
	}
	defer db.Close()
	sets, err := db.FactSets(ctx)
	if err != nil {
		return fail(err)
	}
	extracts, err := db.OSMExtracts(ctx)
	if err != nil {
		return fail(err)
	}
	acs, err := acsStatus(ctx, db)
	if err != nil {
		return fail(err)
	}
	datasets, err := db.Datasets(ctx, "")
	if err != nil {
		return fail(err)
	}

	// Every dataset loaded from files, of every kind, is a row of one
	// table (DatasetStore.Datasets); the operator's import, which is no
	// dataset of files, and the ACS states, fetched into the records,
	// are listed beside them.
	var rows []statusRow
	for _, d := range datasets {
		rows = append(rows, statusRow{kind: d.Kind, name: d.Name, vintage: d.Vintage, rows: d.Rows, failed: d.Failed, loaded: d.LoadedAt,
			coverage: coverageText(d), took: d.Took, failures: d.FailuresFile})
	}
	for _, s := range sets {
		if s.Dataset == "import" {
			rows = append(rows, statusRow{kind: providers.KindParcels, name: s.Dataset, vintage: s.AsOf, rows: s.Rows, failed: s.Failed, loaded: s.LoadedAt, coverage: "-"})
		}
	}
	for _, a := range acs {
		rows = append(rows, statusRow{kind: "acs", name: a.section, vintage: strings.Join(a.vintages, ", "), rows: int64(len(a.states)),
			coverage: strings.Join(a.states, " "), failed: 0})
	}
	tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tROWS\tFAILED\tVINTAGE\tLOADED\tTOOK\tCOVERAGE\tFAILURES FILE")
	for _, r := range rows {
		loaded, took := "-", "-"
		if !r.loaded.IsZero() {
			loaded = r.loaded.Format(time.RFC3339)
		}
		if r.took > 0 {
			took = r.took.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.kind, r.name, service.Thousands(int(r.rows)), service.Thousands(int(r.failed)),
			orDash(r.vintage), loaded, took, r.coverage, orDash(r.failures))
	}
	if len(rows) == 0 {
		var kinds []string
		for _, k := range dataload.Kinds() {
			kinds = append(kinds, k.Name)
		}
		fmt.Fprintf(tw, "(none loaded: propertyd data load %s)\n", strings.Join(kinds, "|"))
	}
	tw.Flush()
	if line, err := geocodingLine(ctx, db, cfg); err != nil {
		return fail(err)
	} else {
		fmt.Fprintln(c.stdout, line)
	}
	fmt.Fprintln(c.stdout)

	tw = tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DATASET\tSOURCE\tPRECEDENCE\tROWS\tMATCHED\tFAILED\tAS OF\tLOADED")
	for _, s := range sets {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", s.Dataset, s.Source, s.Priority, service.Thousands(int(s.Rows)),
			service.Thousands(int(s.Matched)), service.Thousands(int(s.Failed)), s.AsOf, s.LoadedAt.Format(time.RFC3339))
	}
	if len(sets) == 0 {
		fmt.Fprintln(tw, "(none loaded)")
	}
	tw.Flush()
	fmt.Fprintln(c.stdout)
	if len(extracts) == 0 {
		fmt.Fprintln(c.stdout, "OpenStreetMap extracts loaded: none (propertyd data load osm)")
	} else {
		tw = tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EXTRACT\tDATA OF\tPLACES\tBUILDINGS\tADDRESSES\tSKIPPED\tLOADED\tCOVERAGE")
		for _, x := range extracts {
			// A polygon when the extract was loaded with its .poly,
			// else its bounding box.
			cov := "box"
			if x.Boundary != nil {
				cov = "polygon"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.Name, x.Date(), service.Thousands(int(x.Places)),
				service.Thousands(int(x.Buildings)), service.Thousands(int(x.Addresses)), service.Thousands(int(x.Skipped)),
				x.LoadedAt.Format(time.RFC3339), cov)
		}
		tw.Flush()
	}
	fmt.Fprintln(c.stdout)
	if len(acs) == 0 {
		fmt.Fprintln(c.stdout, "ACS states loaded: none (propertyd data load acs)")
	} else {
		fmt.Fprintln(c.stdout, "ACS states loaded:")
		for _, a := range acs {
			fmt.Fprintf(c.stdout, "  %s\n", a.line())
		}
	}
	// What the kinds that have no table of their own besides keep.
	var contents []providers.Dataset
	for _, d := range datasets {
		if d.Kind != providers.KindParcels && d.Kind != providers.KindOSM {
			contents = append(contents, d)
		}
	}
	if len(contents) > 0 {
		fmt.Fprintln(c.stdout)
		tw = tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tNAME\tCONTENTS")
		for _, d := range contents {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Kind, d.Name, d.Meta)
		}
		tw.Flush()
	}
	for _, w := range vintageWarnings(datasets, acsYear(cfg, acs)) {
		fmt.Fprintf(c.stdout, "\nwarning: %s\n", w)
	}
	return exitOK
}

// acsYear is the last year of the ACS 5-year release the demographics
// use: the year option of census-acs when it pins one, else the newest
// release among the ACS states loaded, else the release the module asks
// for before it learns the newest (censusacs.DefaultYear).
func acsYear(cfg *Config, acs []acsLoaded) int {
	if p, ok := cfg.enabled(providers.RoleDemographics); ok {
		if y, err := strconv.Atoi(p.Options["year"]); err == nil {
			return y
		}
	}
	year := 0
	for _, a := range acs {
		for _, v := range a.vintages {
			if y, err := strconv.Atoi(strings.Fields(v + " ")[0]); err == nil && y > year {
				year = y
			}
		}
	}
	if year == 0 {
		year, _ = strconv.Atoi(censusacs.DefaultYear)
	}
	return year
}

// vintageWarnings says, for each boundaries dataset whose tracts are not
// those the ACS release ending acsEnd is tabulated by (tiger.SameTracts),
// why: its lookups would name tracts the demographics do not have.
func vintageWarnings(datasets []providers.Dataset, acsEnd int) []string {
	var out []string
	for _, d := range datasets {
		if d.Kind != providers.KindBoundaries {
			continue
		}
		var meta tiger.BoundariesMeta
		_ = json.Unmarshal(d.Meta, &meta)
		if meta.Tracts == 0 {
			continue
		}
		if meta.Year == 0 {
			out = append(out, fmt.Sprintf("boundaries %s: its TIGER/Line year is unknown; it cannot be checked against the ACS 5-year release ending %d", d.Name, acsEnd))
			continue
		}
		states := meta.States
		if len(states) != 1 {
			states = []string{""}
		}
		if same, reason := tiger.SameTracts(meta.Year, acsEnd, states[0]); !same {
			out = append(out, fmt.Sprintf("boundaries %s: %s", d.Name, reason))
		}
	}
	return out
}

// coverageText is a dataset's coverage in the table of every dataset: its
// box, "-" for none, and for an extract loaded with its polygon
// "polygon in" the box.
func coverageText(d providers.Dataset) string {
	if d.Coverage == (providers.BBox{}) {
		return "-"
	}
	var meta struct {
		Polygon bool `json:"polygon"`
	}
	if d.Kind == providers.KindOSM && json.Unmarshal(d.Meta, &meta) == nil && meta.Polygon {
		return "polygon in " + boxText(d.Coverage)
	}
	return boxText(d.Coverage)
}

func boxText(b providers.BBox) string {
	return fmt.Sprintf("%.4f,%.4f,%.4f,%.4f", b.West, b.South, b.East, b.North)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// acsLoaded is what is loaded by state of one section: the states (USPS
// codes) and the ACS vintages they hold.
type acsLoaded struct {
	section  string
	states   []string
	vintages []string
}

// line is "demographics: CA TX (2023 ACS 5-year)".
func (a acsLoaded) line() string {
	line := a.section + ": " + strings.Join(a.states, " ")
	if len(a.vintages) > 0 {
		line += " (" + strings.Join(a.vintages, ", ") + ")"
	}
	return line
}

// acsStatus lists, for each section loaded by state, the states loaded
// (LoadRegion records each under the section "loaded:<section>"), with
// the ACS vintages they hold.
func acsStatus(ctx context.Context, db engine.Store) ([]acsLoaded, error) {
	byFIPS := map[string]string{}
	for _, code := range address.States() {
		if f, ok := address.StateFIPS(code); ok {
			byFIPS[f] = code
		}
	}
	var out []acsLoaded
	afterSection, afterKey := "loaded:", ""
	var cur *acsLoaded
	vintages := map[string]bool{}
	flush := func() {
		if cur == nil {
			return
		}
		for v := range vintages {
			if v != "" {
				cur.vintages = append(cur.vintages, v)
			}
		}
		slices.Sort(cur.vintages)
		out = append(out, *cur)
		cur = nil
	}
	for {
		recs, err := db.ListSections(ctx, afterSection, afterKey, 500)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if !strings.HasPrefix(r.Section, "loaded:") {
				flush()
				return out, nil
			}
			if name := strings.TrimPrefix(r.Section, "loaded:"); cur == nil || cur.section != name {
				flush()
				cur, vintages = &acsLoaded{section: name}, map[string]bool{}
			}
			code := byFIPS[r.Key]
			if code == "" {
				code = r.Key
			}
			cur.states = append(cur.states, code)
			vintages[r.Vintage] = true
		}
		if len(recs) < 500 {
			flush()
			return out, nil
		}
		afterSection, afterKey = recs[len(recs)-1].Section, recs[len(recs)-1].Key
	}
}

// geocodingLine says what share of the addresses the serving instances
// geocoded since each started (the lookups of a spelling not yet known:
// a known one asks no geocoder) were matched from loaded address points
// and ranges, from the counts they report every facts.refresh: those
// that reported within three refreshes (at least a minute) are counted.
func geocodingLine(ctx context.Context, db engine.Store, cfg *Config) (string, error) {
	window := max(3*cfg.Facts.Refresh.D(), time.Minute)
	counts, err := db.GeocodeCounts(ctx, time.Now().Add(-window))
	if err != nil {
		return "", err
	}
	var local, all int64
	for _, c := range counts {
		local, all = local+c.Local, all+c.Local+c.Remote
	}
	switch {
	case len(counts) == 0:
		return fmt.Sprintf("Addresses geocoded since start: none reported (no instance served within %s; geocoding: %s)",
			window, cfg.Geocoding), nil
	case all == 0:
		return fmt.Sprintf("Addresses geocoded since start: none yet (%s reporting; geocoding: %s)",
			service.CountOf(len(counts), "instance", "instances"), cfg.Geocoding), nil
	}
	return fmt.Sprintf("Addresses geocoded since start: %s of %s from loaded address files (%.1f%%), by %s (geocoding: %s)",
		service.Thousands(int(local)), service.Thousands(int(all)), 100*float64(local)/float64(all),
		service.CountOf(len(counts), "instance", "instances"), cfg.Geocoding), nil
}
