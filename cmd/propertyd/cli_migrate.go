package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/propertyd/propertyd/store"
)

// migrateCmd serves "propertyd migrate".
func migrateCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("migrate")
	path := configFlag(fs)
	database := fs.String("database", "", "the SQLite `file` to migrate, instead of the one in the configuration")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	dbPath := *database
	if dbPath == "" {
		cfg, err := LoadConfig(*path)
		if err != nil {
			fmt.Fprintf(stderr, "propertyd migrate: %v\n", err)
			return exitConfig
		}
		dbPath = cfg.Database
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	before := 0
	_, statErr := os.Stat(dbPath)
	existed := statErr == nil
	if existed {
		// A file that is not (yet) a propertyd database counts as version 0;
		// Open reports anything worse.
		before, _ = store.VersionAt(ctx, dbPath)
	}
	db, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "propertyd migrate: %s: %v\n", dbPath, err)
		return exitError
	}
	if err := db.Close(); err != nil {
		fmt.Fprintf(stderr, "propertyd migrate: %s: %v\n", dbPath, err)
		return exitError
	}
	after, err := store.VersionAt(ctx, dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "propertyd migrate: %s: reading the schema version: %v\n", dbPath, err)
		return exitError
	}
	switch {
	case !existed:
		fmt.Fprintf(stdout, "created %s: schema version %d\n", dbPath, after)
	case after != before:
		fmt.Fprintf(stdout, "migrated %s: schema version %d -> %d\n", dbPath, before, after)
	default:
		fmt.Fprintf(stdout, "%s: schema version %d (up to date)\n", dbPath, after)
	}
	return exitOK
}
