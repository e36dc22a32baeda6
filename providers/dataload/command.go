package dataload

import (
	"context"
	"errors"
	"io"

	"github.com/propertyd/propertyd/providers"
)

// Load is the command line of a kind with its own (Kind.Command), its
// flags declared: what "propertyd data load KIND" runs once they are
// parsed. The command line does the rest alike for every kind: the flags,
// the files checked (missing, empty, a directory: a usage error), the
// configuration read, the database opened, the errors told and turned into
// exit codes.
type Load struct {
	// Check checks the command line before the configuration is read or
	// anything opened, and returns every file the command reads (the
	// files, and any other a flag names), each of which must exist and
	// not be empty. A *UsageError is a mistake of the command line (exit
	// 2); any other error fails the command (exit 1).
	Check func(files []string) (inputs []string, err error)
	// Run loads, printing its summary on env.Stdout. Its error is told on
	// the standard error after the command's name; a *UsageError, a
	// *ConfigError and ErrSomeFailed (the summary was printed; nothing
	// more is told) are exits 2, 3 and 4, any other 1.
	Run func(env *Env, files []string) error
}

// Env is what the command line gives a kind's own load (Load.Run). Its
// functions are not safe for concurrent use.
type Env struct {
	// Stdout takes the load's summary; Stderr its warnings.
	Stdout, Stderr io.Writer
	// ConfigPath is the configuration file read, for messages.
	ConfigPath string
	// MemoryLimitMB is the memory limit of the configuration
	// (memory_limit_mb), which MemoryLimitDefault says was not given: it
	// is then the server's, and a load may set its own (Open).
	MemoryLimitMB      int64
	MemoryLimitDefault bool
	// Postgres says the configured database is a PostgreSQL server.
	Postgres bool
	// Declared finds a dataset of the kind the configuration declares by
	// name: its declaration (of the kind's own type: an assessor.Dataset
	// for parcels), its rank among those declared (1 for the first; one
	// after the last when none is) and whether it is declared. A kind the
	// configuration declares nothing of finds nothing. An error is one of
	// the configuration.
	Declared func(name string) (decl any, rank int, ok bool, err error)
	// Open opens the configured database for the load, under a context
	// the interrupt and terminate signals cancel (the load then stops
	// after the batch it is writing, and the same command resumes it),
	// with the Go heap's soft limit at heapMB unless GOMEMLIMIT is set (0:
	// none). done closes the database.
	Open func(heapMB int64) (ctx context.Context, st providers.DatasetStore, done func(), err error)
	// Progress draws a progress bar of unit ("rows", "elements") on a
	// terminal: update tells it the count so far and the step (force
	// redraws now); finish ends it. Both do nothing off a terminal.
	Progress func(unit string) (update func(n int64, phase string, force bool), finish func())
}

// UsageError is a mistake of the command line: the command says it with
// its help (Help) or without, and exits 2; nothing was changed.
type UsageError struct {
	Err  error
	Help bool
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ConfigError is a fault of the configuration (exit 3).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ErrSomeFailed is what a kind's load returns when it finished and
// published what it kept but some rows failed (see its failures file): its
// summary says so, and the command exits 4.
var ErrSomeFailed = errors.New("some rows failed")
