package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
)

// ErrSchemaTooNew is the cause of the error an engine's Open returns for a
// database whose schema was written by a newer propertyd: reading it with
// older code could silently lose data, so the old binary refuses it. Each
// engine exports it under its own name; test with errors.Is.
var ErrSchemaTooNew = errors.New("store: database schema is newer than this binary")

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads NNNN_name.sql files from fsys sorted by number. A
// file that does not start with a positive number, or two files with the
// same number, are programming errors reported as errors. Both engines
// number their migrations alike, so a schema version means the same on each.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".sql" {
			continue
		}
		num, _, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration %q is not named NNNN_name.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("store: migrations %q and %q share version %d", other, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// Latest is the version of the last of ms, 0 for none.
func Latest(ms []Migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// TooNew is the error for a database at schema version current when this
// binary knows up to known: KindInternal, code schema_too_new, wrapping
// ErrSchemaTooNew.
func TooNew(current, known int) error {
	return providers.Wrap(fmt.Errorf("%w: version %d, this binary knows up to %d", ErrSchemaTooNew, current, known),
		providers.KindInternal, providers.CodeSchemaTooNew,
		fmt.Sprintf("store: database schema version %d is newer than this binary supports (%d); run a newer propertyd", current, known))
}
