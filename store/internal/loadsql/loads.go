package loadsql

import (
	"context"
	"fmt"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// The loads in progress of every kind (dataset_loads): the kinds with
// their own tables of what they serve and their own numbering of
// generations (the assessor datasets' store/internal/factsql, the
// extracts' store/internal/osmsql) keep their loads here too, through
// these, and decide what a load does with Decide, as BeginDataset does.

// Step is what a load of some files does (Decide).
type Step int

// The steps.
const (
	// Start a new load under a new generation.
	Start Step = iota
	// Resume the load in progress of the same files at its checkpoint.
	Resume
	// Nothing: the dataset is served from the same files already.
	Nothing
)

// Decide says what a load of the files named fingerprint does, given the
// dataset's load in progress (found false for none) and the fingerprint
// it is served from (served false when it is not served): resume the load
// in progress of the same files; else abandon a load in progress of other
// files (abandon: the kind drops what it wrote, then End), and do nothing
// when the dataset is served from these files, or start a load.
func Decide(pending providers.DatasetLoad, found bool, fingerprint string, servedFP string, served bool) (step Step, abandon bool) {
	if found && pending.Fingerprint == fingerprint {
		return Resume, false
	}
	if served && servedFP == fingerprint {
		return Nothing, found
	}
	return Start, found
}

// Pending returns the load in progress of kind/name, with its checkpoint;
// found is false for none.
func (s *Statements) Pending(ctx context.Context, c sqlshared.Conn, kind, name string) (load providers.DatasetLoad, found bool, err error) {
	load = providers.DatasetLoad{Kind: kind, Name: name}
	found, err = sqlshared.QueryRow(ctx, c, s.pending, []any{kind, name},
		&load.Generation, &load.Fingerprint, &load.Done, &load.Failed, &load.FailuresSize)
	return load, found, err
}

// Begin records a load in progress of kind/name under generation from the
// files named fingerprint, at its start (no checkpoint yet), on c.
func (s *Statements) Begin(ctx context.Context, c sqlshared.Conn, kind, name string, generation int64, fingerprint string) error {
	_, err := c.Exec(ctx, s.insertLoad, kind, name, generation, fingerprint, stamp(timeNow()))
	return err
}

// End removes the load of kind/name under generation from the loads in
// progress, on c: it was published, or abandoned. It reports whether it
// was there.
func (s *Statements) End(ctx context.Context, c sqlshared.Conn, kind, name string, generation int64) (bool, error) {
	n, err := c.Exec(ctx, s.dropLoad, kind, name, generation)
	return n == 1, err
}

// Checkpoint writes the checkpoint cp of the load of kind/name under
// generation on c, the transaction that wrote the batch it counts. It
// fails with ErrSuperseded when that load is no longer in progress.
func (s *Statements) Checkpoint(ctx context.Context, c sqlshared.Conn, kind, name string, generation int64, cp providers.Checkpoint) error {
	n, err := c.Exec(ctx, s.checkpoint, cp.Done, cp.Failed, cp.FailuresSize, kind, name, generation)
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("%s %s: %w", kind, name, ErrSuperseded)
	}
	return nil
}
