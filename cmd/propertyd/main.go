// Command propertyd serves the property API: lookups by address and by
// coordinates, records by id, batches and search, with enrichment sections
// from provider modules, behind per-key rate limits.
//
// Usage:
//
//	propertyd [serve] [-config config.yaml]
//	propertyd check-config | keys new | migrate | import FILE.csv | copy | data load acs | help [command] | version
//
// The config file is also taken from $PROPERTYD_CONFIG.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/propertyd/propertyd/providers/modules/all"
)

// Exit codes scripts can rely on.
const (
	exitOK     = 0
	exitError  = 1 // runtime failure
	exitUsage  = 2 // bad command line
	exitConfig = 3 // invalid configuration
	// exitRowsFailed: import or data load parcels finished, and what
	// it kept is published, but some rows failed (see the failures file).
	// A load of extracts writes no failures file: a feature skipped for
	// its broken geometry is counted, as osm2pgsql does, and exits 0.
	exitRowsFailed = 4
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd, args = "help", nil
	}
	if len(args) > 0 && (args[0] == "-version" || args[0] == "--version") {
		cmd, args = "version", args[1:]
	}
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdout, stderr)
	case "check-config":
		return checkConfig(args, stdout, stderr)
	case "keys":
		return keysCmd(args, stdout, stderr)
	case "migrate":
		return migrateCmd(args, stdout, stderr)
	case "import":
		return importCmd(args, stdout, stderr)
	case "copy":
		return copyCmd(args, stdout, stderr)
	case "data":
		return dataCmd(args, stdout, stderr)
	case "help":
		return help(args, stdout, stderr)
	case "version":
		return version(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "propertyd: unknown command %q\n", cmd)
		usage(stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: propertyd [command] [flags]

commands:
  serve              run the API server (default)
  check-config       validate the configuration and print the effective settings, secrets masked
  keys new           generate an API key and its config.yaml entry
  migrate            create or upgrade the database schema and print its version
  import FILE.csv    bulk-load addresses and their attributes from a CSV file
  copy               copy records and sections from one database to another (SQLite, PostgreSQL)
  data load acs      preload the ACS figures of every tract of some states (-states CA,TX) or all
  data load parcels  load an assessor dataset's files as property facts
  data load osm      load OpenStreetMap extracts (.osm.pbf): amenities, buildings, addresses
%s  data status        list every dataset loaded (assessor files, extracts, ACS states, boundaries, flood maps)
  help [command]     show this help, or a command's (same as: propertyd <command> --help)
  version            print the version, the commit built and its date (same as: propertyd --version)

flags:
  -config PATH   configuration file (default $PROPERTYD_CONFIG or config.yaml)

exit codes: 0 ok, 1 runtime failure, 2 usage, 3 invalid configuration,
4 import or data load parcels finished but some rows failed (see the failures file)
`, kindLines("  data load ", 21))
}

func configFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("PROPERTYD_CONFIG")
	if def == "" {
		def = "config.yaml"
	}
	return fs.String("config", def, "configuration `file`")
}

func serve(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve")
	path := configFlag(fs)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		if _, isCommand := helps[fs.Arg(0)]; isCommand {
			return usageError(fs, stderr, "unexpected argument %q (the command comes first: propertyd %s -config PATH)", fs.Arg(0), fs.Arg(0))
		}
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		fmt.Fprintf(stderr, "propertyd: %v\n", err)
		return exitConfig
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := NewMain(cfg)
	// The request log is buffered: a line per request must not cost a
	// write(2) on the hot path. Flushed every 200 ms and when serve returns.
	logs := newLogBuffer(stderr, 64<<10, 200*time.Millisecond)
	defer logs.Close()
	m.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	m.AccessLog = logs
	if err := m.Run(ctx); err != nil {
		// Whatever Run built before failing is released: a store opened,
		// a Redis client probing, modules holding connections.
		m.Close()
		if isConfigError(err) {
			fmt.Fprintf(stderr, "propertyd: config %s: %v\n", *path, err)
			return exitConfig
		}
		fmt.Fprintf(stderr, "propertyd: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "propertyd listening on http://%s\n", m.Addr())
	if a := m.DebugAddr(); a != "" {
		fmt.Fprintf(stdout, "propertyd profiles on http://%s/debug/pprof/\n", a)
	}
	select {
	case <-ctx.Done():
	case err := <-m.served:
		if err != nil {
			fmt.Fprintf(stderr, "propertyd: %v\n", err)
			m.Close()
			return exitError
		}
	}
	fmt.Fprintln(stdout, "propertyd shutting down")
	if err := m.Close(); err != nil {
		fmt.Fprintf(stderr, "propertyd: %v\n", err)
		return exitError
	}
	return exitOK
}
