package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

func TestMigrateCreatesAndUpgrades(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "new", "folder", "p.db")
	code, out, errs := runCLI("migrate", "-database", dbPath)
	if code != exitOK || out != "created "+dbPath+": schema version 25\n" {
		t.Fatalf("fresh path: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	db, err := store.Open(context.Background(), dbPath, store.Options{})
	if err != nil {
		t.Fatalf("the migrated database does not open: %v", err)
	}
	if err := db.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	code, out, _ = runCLI("migrate", "-database", dbPath)
	if code != exitOK || out != dbPath+": schema version 25 (up to date)\n" {
		t.Fatalf("second run: exit %d, %q", code, out)
	}
}

func TestMigrateUsesTheConfiguredDatabase(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "from-config.db")
	t.Setenv("PROPERTYD_DATABASE", dbPath)
	code, out, errs := runCLI("migrate", "-config", filepath.Join("..", "..", "config.yaml"))
	if code != exitOK || !strings.Contains(out, dbPath) {
		t.Fatalf("exit %d, %q %q", code, out, errs)
	}
	if _, err := os.Stat(dbPath); err != nil {
		t.Fatalf("the configured database was not created: %v", err)
	}
}

func TestMigrateExitCodes(t *testing.T) {
	dir := t.TempDir()
	notADB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notADB, []byte("shopping list: eggs, flour, a much longer line to fill a page of text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"invalid config", []string{"-config", filepath.Join("testdata", "homes.csv")}, exitConfig, "config testdata/homes.csv"},
		{"not a database", []string{"-database", notADB}, exitError, notADB},
		{"stray argument", []string{"-database", filepath.Join(dir, "x.db"), "now"}, exitUsage, `unexpected argument "now"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"migrate"}, c.args...)...)
			if code != c.code || !strings.Contains(errs, c.want) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d mentioning %q", code, out, errs, c.code, c.want)
			}
		})
	}
}

// On PostgreSQL migrate creates the schema in an existing database, reports
// the same version as on SQLite, prints the URL without its password, and
// refuses a schema from a newer binary.
func TestMigrateOnPostgres(t *testing.T) {
	u := pgtest.Schema(t)
	name := engine.Describe(u)
	code, out, errs := runCLI("migrate", "-database", u)
	if code != exitOK || out != "created "+name+": schema version 25\n" {
		t.Fatalf("fresh schema: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCLI("migrate", "-database", u)
	if code != exitOK || out != name+": schema version 25 (up to date)\n" {
		t.Fatalf("second run: exit %d, %q", code, out)
	}
	pgtest.Exec(t, u, "INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')")
	code, out, errs = runCLI("migrate", "-database", u)
	if code != exitError || out != "" || !strings.Contains(errs, "newer than this binary") {
		t.Fatalf("a schema from a newer binary: exit %d, stdout %q, stderr %q; want exit 1 saying it is newer", code, out, errs)
	}
}

func TestMigrateOfAnUnreachablePostgresFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	u := "postgres://propertyd:s3cret@" + addr + "/propertyd?sslmode=disable"
	code, out, errs := runCLI("migrate", "-database", u)
	if code != exitError || out != "" || !strings.Contains(errs, "the database is unavailable") || strings.Contains(errs, "s3cret") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 saying the database is unavailable, without the password", code, out, errs)
	}
}
