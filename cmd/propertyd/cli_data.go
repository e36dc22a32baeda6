package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
)

// dataCommand is "propertyd data load acs"; its transport reaches the ACS.
type dataCommand struct{ console }

// dataCmd serves "propertyd data <subcommand>".
func dataCmd(args []string, stdout, stderr io.Writer) int {
	return (&dataCommand{console{stdout: stdout, stderr: stderr}}).run(args)
}

func (c *dataCommand) run(args []string) int {
	return group{"data", "subcommand", []subcommand{{"load", c.load}, {"status", c.status}}}.dispatch(args, c.stdout, c.stderr)
}

// load serves "propertyd data load <dataset>".
func (c *dataCommand) load(args []string) int {
	return group{"data load", "dataset", append([]subcommand{{"acs", c.loadACS}}, c.datasetLoads()...)}.dispatch(args, c.stdout, c.stderr)
}

// openForLoad opens the configured database for a load under a context
// that SIGINT and SIGTERM cancel (a load then stops after the batch it is
// writing, and the same command resumes it), with the Go heap's soft limit
// at heapMB unless GOMEMLIMIT is set (0: none). done closes the database
// and lets the signals go.
func openForLoad(cfg *Config, heapMB int64) (ctx context.Context, db engine.Store, done func(), err error) {
	if heapMB > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(heapMB << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	db, err = engine.Open(ctx, cfg.Database, engine.Options{})
	if err != nil {
		stop()
		return nil, nil, nil, fmt.Errorf("opening database %s: %v", engine.Describe(cfg.Database), err)
	}
	return ctx, db, func() { db.Close(); stop() }, nil
}

// checkInputs refuses the files a data command (import, data load parcels,
// data load osm) was given when one cannot be read at all: missing, a
// directory, or empty. It is a mistake of the command line, told before
// the configuration is read or anything is opened (exit 2), and running
// the command again would not help.
func checkInputs(files ...string) error {
	for _, f := range files {
		st, err := os.Stat(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: no such file", f)
		case err != nil:
			return err
		case st.IsDir():
			return fmt.Errorf("%s: a directory, not a file", f)
		case st.Size() == 0:
			return fmt.Errorf("%s: the file is empty", f)
		}
	}
	return nil
}

// acsStates returns the USPS codes of the states whose tracts the ACS
// publishes (the 50 states, DC and Puerto Rico), in FIPS order: what
// "-states all" loads.
func acsStates() []string {
	var out []string
	for _, code := range address.States() {
		if fips, _ := address.StateFIPS(code); censusacs.Covers(fips) {
			out = append(out, code)
		}
	}
	return out
}

// parseStates reads -states: "all", or USPS codes separated by commas in
// any case, each a state the ACS covers. Duplicates count once; the order
// given is kept.
func parseStates(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "all") {
		return acsStates(), nil
	}
	if s == "" {
		return nil, fmt.Errorf("-states is empty; give USPS codes such as CA,TX, or all")
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		code := strings.ToUpper(strings.TrimSpace(part))
		fips, ok := address.StateFIPS(code)
		switch {
		case code == "":
			return nil, fmt.Errorf("-states %q has an empty entry; give USPS codes such as CA,TX, or all", s)
		case !ok:
			return nil, fmt.Errorf("-states: unknown state %q; give USPS codes such as CA,TX, or all", strings.TrimSpace(part))
		case !censusacs.Covers(fips):
			return nil, fmt.Errorf("-states: the ACS publishes no tract figures for %s (it covers the 50 states, DC and PR)", code)
		}
		if !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	return out, nil
}

// loadACS serves "propertyd data load acs": it stores every tract of each
// listed state, for each configured section whose module answers by state
// (demographics and housing), as the first need of a tract there would.
func (c *dataCommand) loadACS(args []string) int {
	fs := newFlags("data load acs")
	path := configFlag(fs)
	statesFlag := fs.String("states", "all", "USPS `codes` of the states to load, comma-separated (CA,TX), or all: the 50 states, DC and PR")
	if code, ok := parseFlags(fs, args, c.stdout, c.stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, c.stderr, "unexpected argument %q", fs.Arg(0))
	}
	states, err := parseStates(*statesFlag)
	if err != nil {
		return usageError(fs, c.stderr, "%v", err)
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(c.stderr, "propertyd data load acs: "+format+"\n", args...)
		return code
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := engine.Open(ctx, cfg.Database, engine.Options{})
	if err != nil {
		return fail(exitError, "opening database %s: %v", engine.Describe(cfg.Database), err)
	}
	defer db.Close()
	m := NewMain(cfg)
	m.HTTPTransport = c.transport
	m.Logger = slog.New(slog.DiscardHandler)
	defer m.Close()
	svc, err := c.service(ctx, m, db)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	sections := svc.RegionSections(service.RegionState)
	if len(sections) == 0 {
		return fail(exitConfig, "no configured section loads by state: configure demographics (census-acs) or housing (census-acs-housing)")
	}

	bar := c.progress(len(states) * len(sections))
	if bar != nil {
		bar.unit = "loads"
	}
	calls, stored, done := 0, 0, 0
	var runErr error
loop:
	for _, code := range states {
		fips, _ := address.StateFIPS(code)
		for _, sec := range sections {
			bar.update(done, "loading "+code+" "+sec, true)
			l, err := svc.LoadRegion(ctx, sec, fips)
			if err != nil {
				runErr = fmt.Errorf("%s %s: %w", code, sec, err)
				break loop
			}
			done++
			line := "already loaded"
			if l.Called {
				calls++
				stored += l.Keys
				line = service.CountOf(l.Keys, "tract", "tracts") + " stored"
			}
			bar.finish()
			fmt.Fprintf(c.stdout, "%s  %-13s %s\n", code, sec, line)
		}
	}
	bar.finish()
	fmt.Fprintf(c.stdout, "states:         %d\nupstream calls: %d\ntracts stored:  %s\n",
		len(states), calls, service.Thousands(stored))
	if err := db.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return fail(exitError, "stopped at %v (states loaded so far stay loaded; run it again to finish)", runErr)
	}
	return exitOK
}

// service builds the sections that load by state (the demographics and
// housing roles) with serve's builder, so the load honours their retries,
// outbound rate limits, breakers and TTLs, over db. With a Redis
// configured it joins the fleet as an instance does: a state that an
// instance (or another load) is fetching meanwhile is waited for, not
// fetched again, and the upstreams' rates and concurrency caps are the
// fleet's. m.Close closes what it built, the service included.
func (c *dataCommand) service(ctx context.Context, m *Main, db providers.Store) (*service.Service, error) {
	if err := m.openFleet(ctx); err != nil {
		return nil, err
	}
	mods, err := m.buildModules(nil, providers.RoleDemographics, providers.RoleHousing)
	if err != nil {
		return nil, err
	}
	svcCfg := service.Config{Store: db, Sections: map[string]*service.Section{}, Logger: m.Logger, Leases: m.leases()}
	for _, b := range mods {
		mod := service.Module{Name: b.pc.Module, Value: b.value, Around: b.breaker.Around, TTL: b.pc.TTL.D(), Refresh: b.pc.Refresh}
		if err := svcCfg.Add(b.role, mod); err != nil {
			return nil, fmt.Errorf("providers.%s: %w", b.role, err)
		}
	}
	m.svc = service.New(svcCfg)
	return m.svc, nil
}
