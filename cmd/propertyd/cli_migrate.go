package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/propertyd/propertyd/store/engine"
)

// migrateCmd serves "propertyd migrate".
func migrateCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("migrate")
	path := configFlag(fs)
	database := fs.String("database", "", "the SQLite `file` or postgres:// URL to migrate, instead of the configured database")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	db := *database
	if db == "" {
		cfg, err := LoadConfig(*path)
		if err != nil {
			fmt.Fprintf(stderr, "propertyd migrate: %v\n", err)
			return exitConfig
		}
		db = cfg.Database
	}
	name := engine.Describe(db)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// A SQLite file that is not (yet) a propertyd database, or a PostgreSQL
	// database without its schema, counts as version 0; Open reports
	// anything worse.
	before, existed := engine.Version(ctx, db)
	st, err := engine.Open(ctx, db, engine.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "propertyd migrate: %s: %v\n", name, err)
		return exitError
	}
	if err := st.Close(); err != nil {
		fmt.Fprintf(stderr, "propertyd migrate: %s: %v\n", name, err)
		return exitError
	}
	after, err := engine.VersionOf(ctx, db)
	if err != nil {
		fmt.Fprintf(stderr, "propertyd migrate: %s: reading the schema version: %v\n", name, err)
		return exitError
	}
	switch {
	case !existed:
		fmt.Fprintf(stdout, "created %s: schema version %d\n", name, after)
	case after != before:
		fmt.Fprintf(stdout, "migrated %s: schema version %d -> %d\n", name, before, after)
	default:
		fmt.Fprintf(stdout, "%s: schema version %d (up to date)\n", name, after)
	}
	return exitOK
}
