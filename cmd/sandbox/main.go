// Command sandbox serves fakes of every upstream propertyd calls (Census
// geocoder, FEMA NFHL, Census ACS, Overpass, Walk Score, HUD FMR) on one
// local port, from a file of sample places, so propertyd can be tried and
// benchmarked without the internet. Point each provider's base_url in
// config.yaml at the URL printed for its role.
//
// Usage:
//
//	go run ./cmd/sandbox [-listen 127.0.0.1:9090] [-places FILE.json] [-seed 1]
//	    [-latency [UPSTREAM=]DURATION] [-jitter [UPSTREAM=]DURATION]
//	    [-error-rate [UPSTREAM=]RATE] [-status [UPSTREAM=]CODE] [-retry-after [UPSTREAM=]VALUE]
//	    [-hang UPSTREAM] [-malformed UPSTREAM] [-arcgis-error] [-hud-token TOKEN] [-v]
//
// UPSTREAM is census, fema, acs, overpass, walkscore, hud or * (all, also
// when left out); the fault flags repeat, e.g.
// -latency 20ms -latency census=100ms -error-rate fema=0.3 -status fema=503.
// The same knobs can be changed while it runs through
// POST/DELETE /_sandbox/faults; GET /_sandbox/stats counts the calls.
// See package providers/kits/providertest/sandbox for the routes and knobs.
// It stops cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/service"
)

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	listen   string
	places   string // "" means the built-in places
	seed     int64
	hudToken string
	verbose  bool
	faults   map[string]sandbox.Faults // by upstream, All already merged in
}

// assignment is one fault flag: knob set to value on upstream.
type assignment struct{ upstream, knob, value string }

// knobFlag collects the [UPSTREAM=]VALUE flags of one knob, in order.
type knobFlag struct {
	knob string
	list *[]assignment
	// nameOnly flags (hang, malformed) take an upstream name as value.
	nameOnly bool
}

func (k knobFlag) String() string { return "" }

func (k knobFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	if k.nameOnly {
		if s != sandbox.All && !known(s) {
			return fmt.Errorf("unknown upstream %q (known: %s, or *)", s, strings.Join(sandbox.Upstreams(), ", "))
		}
		*k.list = append(*k.list, assignment{s, k.knob, "true"})
		return nil
	}
	up, value := sandbox.All, s
	if name, v, ok := strings.Cut(s, "="); ok {
		name = strings.TrimSpace(name)
		if name != sandbox.All && !known(name) {
			return fmt.Errorf("unknown upstream %q in %q (known: %s, or *)", name, s, strings.Join(sandbox.Upstreams(), ", "))
		}
		up, value = name, strings.TrimSpace(v)
	}
	// Check the value now, so the error names the flag.
	var f sandbox.Faults
	if err := apply(&f, k.knob, value); err != nil {
		return err
	}
	*k.list = append(*k.list, assignment{up, k.knob, value})
	return nil
}

func known(name string) bool {
	for _, u := range sandbox.Upstreams() {
		if u == name {
			return true
		}
	}
	return false
}

// apply sets one knob of f from its flag text.
func apply(f *sandbox.Faults, knob, value string) error {
	var err error
	switch knob {
	case "latency", "jitter":
		d, err := parseDuration(value)
		if err != nil {
			return err
		}
		if knob == "latency" {
			f.Latency = d
		} else {
			f.Jitter = d
		}
	case "error-rate":
		f.ErrorRate, err = strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("%q is not a rate between 0 and 1", value)
		}
	case "status":
		f.Status, err = strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("%q is not an HTTP status", value)
		}
	case "retry-after":
		f.RetryAfter = value
	case "hang":
		f.Hang = true
	case "malformed":
		f.Malformed = true
	case "arcgis-error":
		f.ArcGISError = true
	default:
		return fmt.Errorf("unknown knob %q", knob)
	}
	return nil
}

// parseDuration reads a non-negative duration such as "100ms".
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration such as 100ms", s)
	}
	return d, nil
}

// parseFlags reads the command line; usage and errors go to errOut.
func parseFlags(args []string, errOut io.Writer) (config, error) {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var cfg config
	var list []assignment
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:9090", "address to listen on (keep it on loopback)")
	fs.StringVar(&cfg.places, "places", "", "places file (JSON, in the form of providers/kits/providertest/sandbox/places.json); empty: the built-in places")
	fs.Int64Var(&cfg.seed, "seed", 1, "seed of the random draws (jitter, error rates), for repeatable runs")
	fs.StringVar(&cfg.hudToken, "hud-token", sandbox.HUDToken, "bearer token the HUD FMR API accepts")
	fs.BoolVar(&cfg.verbose, "v", false, "log every upstream call to stderr")
	fs.Var(knobFlag{knob: "latency", list: &list}, "latency", "added latency, `[UPSTREAM=]DURATION` (repeatable)")
	fs.Var(knobFlag{knob: "jitter", list: &list}, "jitter", "uniform random extra latency up to `[UPSTREAM=]DURATION`")
	fs.Var(knobFlag{knob: "error-rate", list: &list}, "error-rate", "fraction of calls that fail, `[UPSTREAM=]RATE` from 0 to 1")
	fs.Var(knobFlag{knob: "status", list: &list}, "status", "HTTP status of failing calls, `[UPSTREAM=]CODE` (default 503)")
	fs.Var(knobFlag{knob: "retry-after", list: &list}, "retry-after", "Retry-After header of failing calls, `[UPSTREAM=]VALUE` (seconds or HTTP date)")
	fs.Var(knobFlag{knob: "hang", list: &list, nameOnly: true}, "hang", "failing calls of `UPSTREAM` never answer (all calls when no -error-rate)")
	fs.Var(knobFlag{knob: "malformed", list: &list, nameOnly: true}, "malformed", "failing calls of `UPSTREAM` get a truncated body (all calls when no -error-rate)")
	arcgis := fs.Bool("arcgis-error", false, "failing fema calls get ArcGIS's error envelope with HTTP 200 (all calls when no -error-rate)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *arcgis {
		list = append(list, assignment{sandbox.UpstreamFEMA, "arcgis-error", "true"})
	}
	faults, err := mergeFaults(list)
	if err != nil {
		return config{}, err
	}
	cfg.faults = faults
	return cfg, nil
}

// mergeFaults turns the flags into each upstream's faults: the * flags
// first, then the upstream's own, each in command-line order.
func mergeFaults(list []assignment) (map[string]sandbox.Faults, error) {
	out := map[string]sandbox.Faults{}
	for _, up := range sandbox.Upstreams() {
		var f sandbox.Faults
		set := false
		for _, pass := range []string{sandbox.All, up} {
			for _, a := range list {
				if a.upstream == pass {
					if err := apply(&f, a.knob, a.value); err != nil {
						return nil, err
					}
					set = true
				}
			}
		}
		if !set {
			continue
		}
		if err := sandbox.CheckFaults(up, f); err != nil {
			return nil, fmt.Errorf("faults of %s: %w", up, err)
		}
		out[up] = f
	}
	return out, nil
}

// run serves until ctx ends, printing the URLs to out and, with -v, the
// calls to errOut.
func run(ctx context.Context, cfg config, out, errOut io.Writer) error {
	places := sandbox.DefaultPlaces()
	if cfg.places != "" {
		var err error
		if places, err = sandbox.LoadPlaces(cfg.places); err != nil {
			return err
		}
	}
	opts := sandbox.Options{Seed: cfg.seed, Faults: cfg.faults, HUDToken: cfg.hudToken}
	if cfg.verbose {
		opts.Logf = log.New(errOut, "", log.Ltime|log.Lmicroseconds).Printf
	}
	srv := sandbox.New(places, opts)
	root, err := srv.Start(cfg.listen)
	if err != nil {
		return err
	}
	defer srv.Close()

	fmt.Fprintf(out, "sandbox listening on %s (%d places, seed %d)\n", root, len(places), cfg.seed)
	fmt.Fprintln(out, "upstreams:")
	urls := sandbox.UpstreamURLs(root)
	for _, up := range sandbox.Upstreams() {
		fmt.Fprintf(out, "  %-10s %s\n", up, urls[up])
	}
	fmt.Fprintf(out, "base_url per propertyd provider role (walkscore: module walkscore-api; hud-fmr token %q; any ACS/Walk Score key):\n", cfg.hudToken)
	base := sandbox.BaseURLs(root)
	for _, role := range service.Roles() {
		fmt.Fprintf(out, "  %-17s %s\n", role, base[string(role)])
	}
	fmt.Fprintf(out, "control: GET/POST/DELETE %s/_sandbox/faults, GET %s/_sandbox/stats, POST %s/_sandbox/stats/reset\n", root, root, root)
	names := make([]string, 0, len(cfg.faults))
	for up := range cfg.faults {
		names = append(names, up)
	}
	sort.Strings(names)
	for _, up := range names {
		fmt.Fprintf(out, "faults of %s: %s\n", up, cfg.faults[up])
	}

	<-ctx.Done()
	srv.Close()
	fmt.Fprintln(out, "sandbox stopped")
	return nil
}
