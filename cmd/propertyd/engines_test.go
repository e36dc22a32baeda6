package main

import (
	"path/filepath"
	"testing"

	"github.com/propertyd/propertyd/internal/pgtest"
)

// eachEngine runs fn as one subtest per store engine, each on a database of
// its own: a SQLite file in a temporary folder, and a fresh schema on the
// PostgreSQL server of PROPERTYD_TEST_POSTGRES (skipped without one).
func eachEngine(t *testing.T, fn func(t *testing.T, database string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "p.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.Schema(t)) })
}
