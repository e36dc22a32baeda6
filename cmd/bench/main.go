// Command bench measures propertyd against the targets of BENCHMARKS.md and
// prints one table: scenario, target, measured, ratio, met?.
//
// Usage:
//
//	go run ./cmd/bench [-smoke] [-duration 10s] [-rounds 2] [-rows 1000000] [-conns 32] [-open-conns 64]
//	    [-latency 100ms] [-cache-mb 64] [-batch-concurrency N] [-propertyd BIN]
//	    [-postgres URL] [-redis URL] [-env KEY=VALUE] [-count-requests 25000] [-only warm,memory]
//	    [-osm-features 1000000] [-osm-points 500] [-osm-runs 3]
//	    [-polygon-tracts 5000] [-polygon-zones 100000] [-polygon-points 2000] [-polygon-runs 3]
//	    [-address-points 1000000] [-address-ranges 100000] [-address-lookups 2000] [-address-runs 3]
//	    [-local-lookups 5000] [-local-osm-features 250000]
//	    [-out BENCHMARKS.md] [-keep]
//
// Run it from inside the module: it builds cmd/propertyd (unless -propertyd
// names a binary). One run:
//
//  1. seeds -rows records into a temporary SQLite file through the store
//     package (store.SeedProperties in chunks), not through the API;
//  2. starts the upstream sandbox in this process, with the shipped sample
//     places plus generated neighbours of them (new addresses the geocoder
//     matches, each with its own point and tract, so a lookup of one is cold
//     for every section);
//  3. starts propertyd as a child process on that database (so its start-up
//     time and resident memory are its own), configured for the sandbox,
//     and, as the physical baseline, a bare Fiber app in another child
//     process (this binary with -serve-bare) that answers with the very
//     bytes propertyd sent for each scenario, its headers included, to the
//     same request headers, and does nothing else, and
//     for the warm GET, which propertyd answers in front of Fiber, a bare
//     fasthttp server too (-serve-bare-fasthttp);
//  4. drives them with fasthttp's client from this process, side by side
//     in the same run, and measures latency-bound scenarios with the
//     sandbox's added latency and call counts;
//  5. counts the instructions of a warm GET in each server's own process
//     under valgrind's callgrind (skipped without valgrind);
//  6. with -postgres (default $PROPERTYD_TEST_POSTGRES), measures the warm
//     GET, the cold lookup and the search again on PostgreSQL, each in a
//     schema of its own that it drops afterwards, and, with -redis too
//     (default $PROPERTYD_TEST_REDIS), the herd spread over three
//     instances sharing one schema and one Redis; without them, or when
//     the server does not answer, those rows are listed as skipped.
//  7. writes a generated state of -polygon-tracts census tracts and a
//     county's flood map of -polygon-zones zones as shapefiles (package
//     layergen), loads them with propertyd data load boundaries and data
//     load flood as child processes (wall time, peak resident memory; the
//     median of -polygon-runs loads), and reads each layer through the
//     store at -polygon-points random points (the polygons rows, on both
//     engines); county-cold loads a small county (tracts, counties, a
//     flood map) and counts the upstream calls of cold lookups with
//     include=flood in it: no FEMA call and no Census geographies call.
//
// On a two-core machine the load generator, propertyd and the bare app share
// the same two cores: throughput figures are what this machine gives with the
// client on it, and the ratios compare the two servers under the same
// handicap (the generator is fasthttp's client because it costs little CPU
// per request). -smoke runs everything with tiny sizes in well under a minute to
// prove the suite works; its timings mean nothing. The exit status is 1 when
// a scenario failed (a request answered other than expected), not when a
// target is missed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/store/engine"
)

// options are the flags.
type options struct {
	smoke         bool
	duration      time.Duration // of one closed-loop throughput run
	rounds        int           // alternating bare/propertyd runs per throughput scenario
	rows          int
	conns         int
	openConns     int
	latency       time.Duration // the upstream latency L of the cold scenarios
	cold          int           // cold lookups sampled
	batches       int           // batches of 25 sampled
	searches      int           // searches per page sampled
	loadRows      int           // assessor rows of the facts-load rows
	osmFeatures   int           // features of the generated extract of the osm rows
	osmPoints     int           // records read with amenities from the extract
	osmRuns       int           // loads of the extract, each into a fresh database: the row reports the median
	polyTracts    int           // tracts of the generated state of the polygons rows
	polyZones     int           // flood zones of the generated county of the polygons rows
	polyPoints    int           // random points each layer is read at
	polyRuns      int           // loads of the layers, each into a fresh database: the row reports the median
	addrPoints    int           // address points of the generated county of the addresses rows
	addrRanges    int           // address ranges of that county (four a block)
	addrLookups   int           // new addresses looked up one at a time in the addresses rows
	addrRuns      int           // loads of the county's files, each into a fresh database: the row reports the median
	localLookups  int           // new addresses looked up with every section in the county-cold-local rows
	localFeatures int           // features of the extract the county-cold-local rows load
	cacheMB       int
	batchConc     int // propertyd's batch_concurrency
	fill          int // records read to fill the cache (0: enough to overflow it)
	propertyd     string
	postgres      string          // URL of the PostgreSQL server of the pg-* and fleet rows ("": skip them)
	redis         string          // URL of the Redis of the fleet row ("": skip it)
	env           []string        // extra environment of propertyd, KEY=VALUE
	only          map[string]bool // scenarios to run; nil: all
	out           string
	keep          bool
	countRequests int    // requests of the instructions row's longer counted stretch
	profile       string // folder for propertyd's CPU profile and trace of the warm GET's open loop ("": none)

	serveBare     string   // internal: run the bare Fiber baseline on this address
	serveBareFast string   // internal: run the bare fasthttp baseline on this address
	bodies        string   // internal: the folder of its bodies
	bareTimeouts  timeouts // internal: its server's timeouts
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if o.serveBare != "" {
		if err := serveBare(o.serveBare, o.bodies, o.bareTimeouts); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare fiber:", err)
			os.Exit(1)
		}
		return
	}
	if o.serveBareFast != "" {
		if err := serveBareFasthttp(o.serveBareFast, o.bodies, o.bareTimeouts); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare fasthttp:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	command := "go run ./cmd/bench"
	if len(os.Args) > 1 {
		command += " " + strings.Join(os.Args[1:], " ")
	}
	ok, err := run(ctx, o, command, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if !ok {
		fmt.Fprintln(os.Stderr, "bench: some scenarios failed (see the ERROR cells)")
		os.Exit(1)
	}
}

func parseFlags(args []string, errOut io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var o options
	fs.BoolVar(&o.smoke, "smoke", false, "tiny sizes and durations (under a minute): proves the suite runs; timings mean nothing")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "length of one throughput run")
	fs.IntVar(&o.rounds, "rounds", 2, "throughput runs per target, alternating bare Fiber and propertyd")
	fs.IntVar(&o.rows, "rows", 1_000_000, "records seeded into the database")
	fs.IntVar(&o.conns, "conns", 32, "connections kept busy by the throughput runs")
	fs.IntVar(&o.openConns, "open-conns", 64, "connections of the open loop that measures the warm GET's p99 at half the bare rate")
	fs.DurationVar(&o.latency, "latency", 100*time.Millisecond, "added latency L of every upstream in the cold scenarios")
	fs.IntVar(&o.cold, "cold", 100, "cold lookups sampled")
	fs.IntVar(&o.batches, "batches", 5, "batches of 25 new addresses sampled")
	fs.IntVar(&o.searches, "searches", 200, "searches sampled per page")
	fs.IntVar(&o.loadRows, "load-rows", 1_000_000, "assessor rows loaded by the facts-load rows (half join records seeded for them)")
	fs.IntVar(&o.osmFeatures, "osm-features", 1_000_000, "features of the generated OpenStreetMap extract the osm rows load")
	fs.IntVar(&o.osmPoints, "osm-points", 500, "records read once each with amenities and walk score from the loaded extract")
	fs.IntVar(&o.osmRuns, "osm-runs", 3, "loads of the generated extract on each engine, each into a fresh database; the osm rows report the median")
	fs.IntVar(&o.polyTracts, "polygon-tracts", 5_000, "census tracts of the generated state the polygons rows load (601 vertices each)")
	fs.IntVar(&o.polyZones, "polygon-zones", 100_000, "flood zones of the generated county the polygons rows load (200 vertices each, with its hole in zone X)")
	fs.IntVar(&o.polyPoints, "polygon-points", 2_000, "random points each polygon layer is read at")
	fs.IntVar(&o.polyRuns, "polygon-runs", 3, "loads of the generated layers on each engine, each into a fresh database; the polygons rows report the median")
	fs.IntVar(&o.addrPoints, "address-points", 1_000_000, "address points of the generated county the addresses rows load (OpenAddresses CSV)")
	fs.IntVar(&o.addrRanges, "address-ranges", 100_000, "address ranges of that county (TIGER/Line ADDRFEAT shapefile; four a block of 200 by 100 m)")
	fs.IntVar(&o.addrLookups, "address-lookups", 2_000, "new addresses the addresses rows look up one at a time (half address points, half numbers only a range holds)")
	fs.IntVar(&o.addrRuns, "address-runs", 3, "loads of the county's files on each engine, each into a fresh database; the addresses rows report the median")
	fs.IntVar(&o.localLookups, "local-lookups", 5_000, "new addresses the county-cold-local rows look up with every section, -conns at a time")
	fs.IntVar(&o.localFeatures, "local-osm-features", 250_000, "features of the generated extract around the county-cold-local rows' addresses")
	fs.IntVar(&o.cacheMB, "cache-mb", 64, "propertyd's cache.max_mb")
	fs.IntVar(&o.batchConc, "batch-concurrency", 0, "propertyd's batch_concurrency (0: propertyd's default)")
	fs.IntVar(&o.fill, "fill", 0, "records read by id to fill the cache before measuring memory (0: enough to overflow cache-mb)")
	fs.StringVar(&o.propertyd, "propertyd", "", "propertyd binary to measure (default: build ./cmd/propertyd)")
	fs.StringVar(&o.postgres, "postgres", os.Getenv(postgresEnv), "PostgreSQL `URL` of the pg-* and fleet-herd rows, each in a schema of its own, dropped afterwards (default $"+postgresEnv+"; unset: those rows are skipped)")
	fs.StringVar(&o.redis, "redis", os.Getenv(redisEnv), "Redis `URL` of the fleet-herd row, under a key prefix of the run's own (default $"+redisEnv+"; unset: the row is skipped)")
	fs.Func("env", "extra `KEY=VALUE` in propertyd's environment, e.g. GOMEMLIMIT=200MiB or GOGC=50 (repeatable)", func(s string) error {
		if k, _, ok := strings.Cut(s, "="); !ok || k == "" {
			return fmt.Errorf("%q is not KEY=VALUE", s)
		}
		o.env = append(o.env, s)
		return nil
	})
	only := fs.String("only", "", "run only these comma-separated `scenarios` ("+strings.Join(scenarioNames, ", ")+
		"; and, only when named, "+strings.Join(optionalScenarios, ", ")+"); start-up is always measured")
	fs.StringVar(&o.out, "out", "", "also write the table into this Markdown `file`, between its bench markers")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary folder (database, config, logs)")
	fs.IntVar(&o.countRequests, "count-requests", 25_000, "requests of the instructions row's longer counted stretch under callgrind (the shorter sends a fifth as many)")
	fs.StringVar(&o.profile, "profile", "", "write propertyd's CPU profile and execution trace of the warm GET's open loop into this `folder` (go tool pprof, go tool trace), taken through its debug_listen")
	fs.StringVar(&o.serveBare, "serve-bare", "", "internal: serve the bare Fiber baseline on `addr`")
	fs.StringVar(&o.serveBareFast, "serve-bare-fasthttp", "", "internal: serve the bare fasthttp baseline on `addr`")
	fs.StringVar(&o.bodies, "bodies", "", "internal: folder of the baseline's bodies")
	fs.DurationVar(&o.bareTimeouts.io, "io-timeout", 0, "internal: the baseline server's read and write timeout")
	fs.DurationVar(&o.bareTimeouts.idle, "idle-timeout", 0, "internal: the baseline server's keep-alive idle timeout")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *only != "" {
		o.only = map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			name = strings.TrimSpace(name)
			if !slices.Contains(scenarioNames, name) && !slices.Contains(optionalScenarios, name) {
				return options{}, fmt.Errorf("-only: unknown scenario %q (known: %s)", name, strings.Join(slices.Concat(scenarioNames, optionalScenarios), ", "))
			}
			o.only[name] = true
		}
	}
	if o.smoke {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		small := func(name string, dst *int, v int) {
			if !set[name] {
				*dst = v
			}
		}
		if !set["duration"] {
			o.duration = time.Second
		}
		small("rounds", &o.rounds, 1)
		small("rows", &o.rows, 20_000)
		small("cold", &o.cold, 5)
		small("batches", &o.batches, 1)
		small("searches", &o.searches, 20)
		small("load-rows", &o.loadRows, 10_000)
		small("osm-features", &o.osmFeatures, 20_000)
		small("osm-points", &o.osmPoints, 20)
		small("osm-runs", &o.osmRuns, 1)
		small("polygon-tracts", &o.polyTracts, 200)
		small("polygon-zones", &o.polyZones, 1_000)
		small("polygon-points", &o.polyPoints, 200)
		small("polygon-runs", &o.polyRuns, 1)
		small("address-points", &o.addrPoints, 20_000)
		small("address-ranges", &o.addrRanges, 2_000)
		small("address-lookups", &o.addrLookups, 100)
		small("address-runs", &o.addrRuns, 1)
		small("local-lookups", &o.localLookups, 200)
		small("local-osm-features", &o.localFeatures, 20_000)
		small("fill", &o.fill, 5_000)
		small("count-requests", &o.countRequests, 2_500)
	}
	switch {
	case o.duration <= 0, o.rounds < 1, o.rows < 1, o.conns < 1, o.openConns < 1, o.cold < 1, o.batches < 1, o.searches < 1, o.cacheMB < 1, o.fill < 0, o.batchConc < 0, o.countRequests < 5, o.loadRows < 2, o.osmFeatures < 10, o.osmPoints < 1, o.osmRuns < 1,
		o.polyTracts < 1, o.polyZones < 1, o.polyPoints < 1, o.polyRuns < 1,
		o.addrPoints < 1, o.addrRanges < 4, o.addrLookups < 1, o.addrRuns < 1, o.localLookups < 1, o.localFeatures < 10:
		return options{}, errors.New("sizes and durations must be positive")
	case o.latency <= 0:
		return options{}, errors.New("-latency must be positive")
	case o.postgres != "" && !engine.IsPostgres(o.postgres):
		return options{}, errors.New("-postgres: want a postgres:// URL")
	}
	if o.redis != "" {
		if err := fleet.CheckURL(o.redis); err != nil {
			return options{}, fmt.Errorf("-redis: %w", err)
		}
	}
	return o, nil
}
