// Command propertyd serves the property API: lookups by address and by
// coordinates, records by id, batches and search, with enrichment sections
// from provider modules, behind per-key rate limits.
//
// Usage:
//
//	propertyd [serve] [-config config.yaml]
//
// The config file is also taken from $PROPERTYD_CONFIG.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/propertyd/propertyd/providers/all"
)

// Exit codes scripts can rely on.
const (
	exitOK     = 0
	exitError  = 1 // runtime failure
	exitUsage  = 2 // bad command line
	exitConfig = 3 // invalid configuration
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdout, stderr)
	case "help":
		usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "propertyd: unknown command %q\n", cmd)
		usage(stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: propertyd [command] [flags]

commands:
  serve   run the API server (default)
  help    show this help

flags:
  -config PATH   configuration file (default $PROPERTYD_CONFIG or config.yaml)
`)
}

func configFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("PROPERTYD_CONFIG")
	if def == "" {
		def = "config.yaml"
	}
	return fs.String("config", def, "configuration `file`")
}

func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := configFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		fmt.Fprintf(stderr, "propertyd: %v\n", err)
		return exitConfig
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := NewMain(cfg)
	if err := m.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "propertyd: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "propertyd listening on http://%s\n", m.Addr())
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
