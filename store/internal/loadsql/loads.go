package loadsql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// The loads in progress of every kind (dataset_loads): the kinds with
// their own tables of what they serve besides and their own numbering of
// generations (the assessor datasets' store/internal/factsql, the
// extracts' store/internal/osmsql) keep their loads here too, through
// these, decide what a load does with Decide, as BeginDataset does, and
// publish their row of the datasets served (Serve) and retire their
// former generations (Retire) in the transactions that serve them.

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

// Retire lists the generation of the dataset kind/name as retired, on c:
// no reader reads it, and the loader drops it (dataload.DropRetired).
func (s *Statements) Retire(ctx context.Context, c sqlshared.Conn, kind, name string, generation int64) error {
	_, err := c.Exec(ctx, s.retire, kind, name, generation)
	return err
}

// Serve writes d as the dataset served of its kind and name, on c, the
// transaction that serves its generation in the kind's own tables:
// Datasets lists it and DatasetsVersion moves. d is Served's.
func (s *Statements) Serve(ctx context.Context, c sqlshared.Conn, d providers.Dataset) error {
	if err := check(d.Kind, d.Name); err != nil {
		return err
	}
	return s.serve(ctx, c, d)
}

func (s *Statements) serve(ctx context.Context, c sqlshared.Conn, d providers.Dataset) error {
	cv := d.Coverage
	_, err := c.Exec(ctx, s.publish, d.Kind, d.Name, d.Generation, d.Fingerprint, d.Rows, d.Failed, d.Vintage,
		cv.South, cv.North, cv.West, cv.East, string(d.Meta), d.FailuresFile, d.Took.Milliseconds(), stamp(d.LoadedAt))
	return err
}

// Served readies d to be served: loaded now, its meta a JSON object ({}
// for none). It refuses meta that is no JSON object.
func Served(d providers.Dataset) (providers.Dataset, error) {
	d.LoadedAt = time.Now().UTC().Truncate(time.Millisecond)
	meta := "{}"
	if len(d.Meta) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(d.Meta, &m); err != nil || m == nil {
			return providers.Dataset{}, providers.Invalid("meta", "must be a JSON object")
		}
		meta = string(d.Meta)
	}
	d.Meta = json.RawMessage(meta)
	return d, nil
}

// DropRetired drops every retired generation of kind with drop, then
// forgets it; one drop refuses with providers.ErrKeep stays retired for
// a later drop. It is providers/dataload.DropRetired within the store:
// the publications of the kinds with their own tables (the facts', the
// extracts') drop what they retire at once through it, as their callers
// (the loaders, the store's own tests) expect of a publication, and
// dataload.DropRetired, which the loaders run after them, finds only what
// was kept.
func (s *Statements) DropRetired(ctx context.Context, db sqlshared.DB, kind string,
	drop func(ctx context.Context, name string, generation int64) error) error {
	rows, err := db.Query(ctx, s.retired, kind)
	if err != nil {
		return db.Err(ctx, err)
	}
	var gens []providers.Retired
	for rows.Next() {
		var r providers.Retired
		if err := rows.Scan(&r.Name, &r.Generation); err != nil {
			rows.Close()
			return db.Err(ctx, err)
		}
		gens = append(gens, r)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return db.Err(ctx, err)
	}
	for _, g := range gens {
		err := drop(ctx, g.Name, g.Generation)
		if errors.Is(err, providers.ErrKeep) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := db.Exec(ctx, s.forget, kind, g.Name, g.Generation); err != nil {
			return db.Err(ctx, err)
		}
	}
	return nil
}
