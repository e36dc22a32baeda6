package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/store"
)

func TestMigrateCreatesAndUpgrades(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "new", "folder", "p.db")
	code, out, errs := runCLI("migrate", "-database", dbPath)
	if code != exitOK || out != "created "+dbPath+": schema version 3\n" {
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
	if code != exitOK || out != dbPath+": schema version 3 (up to date)\n" {
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
