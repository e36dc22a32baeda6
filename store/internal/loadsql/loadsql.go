// Package loadsql is the one loading lifecycle both database engines share
// (providers.DatasetStore): a load begun or resumed under a generation,
// its checkpoint, its publication in one step, the former generation
// retired for the loader to drop, and the datasets served. A kind of
// dataset adds only its own tables, written a batch a transaction with
// Checkpoint in the same transaction (store/internal/polysql's
// StagePolygons). The statements are the same in both engines but for
// their placeholders.
package loadsql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
)

// Statements are the lifecycle's statements in one engine's placeholders.
type Statements struct {
	nextGeneration, served, pending, insertLoad, dropLoad, retire, checkpoint,
	publish, list, listKind, retired, forget, version string
	// The geocoder's counts of the serving instances (counts.go).
	putCount, listCounts, pruneCounts string
}

const datasetColumns = `kind, name, generation, fingerprint, row_count, failed, vintage,
	min_lat, max_lat, min_lng, max_lng, meta, failures, took_ms, loaded_at`

// Build binds the statements with param, the engine's placeholder of the
// n-th argument.
func Build(param func(n int) string) *Statements {
	b := func(s string) string { return sqlshared.Bind(s, param) }
	return &Statements{
		// Generations are numbered across kinds and datasets, so a
		// generation alone names one load.
		nextGeneration: `UPDATE dataset_generations SET n = n + 1 RETURNING n`,
		served:         b(`SELECT ` + datasetColumns + ` FROM datasets WHERE kind = ? AND name = ?`),
		pending:        b(`SELECT generation, fingerprint, done, failed, failures_size FROM dataset_loads WHERE kind = ? AND name = ?`),
		insertLoad: b(`INSERT INTO dataset_loads (kind, name, generation, fingerprint, done, failed, failures_size, started_at)
			VALUES (?, ?, ?, ?, 0, 0, 0, ?)`),
		dropLoad:   b(`DELETE FROM dataset_loads WHERE kind = ? AND name = ? AND generation = ?`),
		retire:     b(`INSERT INTO dataset_retired (kind, name, generation) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
		checkpoint: b(`UPDATE dataset_loads SET done = ?, failed = ?, failures_size = ? WHERE kind = ? AND name = ? AND generation = ?`),
		publish: b(`INSERT INTO datasets (` + datasetColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (kind, name) DO UPDATE SET generation = excluded.generation, fingerprint = excluded.fingerprint,
				row_count = excluded.row_count, failed = excluded.failed, vintage = excluded.vintage,
				min_lat = excluded.min_lat, max_lat = excluded.max_lat, min_lng = excluded.min_lng, max_lng = excluded.max_lng,
				meta = excluded.meta, failures = excluded.failures, took_ms = excluded.took_ms, loaded_at = excluded.loaded_at`),
		list:     `SELECT ` + datasetColumns + ` FROM datasets ORDER BY kind, name`,
		listKind: b(`SELECT ` + datasetColumns + ` FROM datasets WHERE kind = ? ORDER BY name`),
		retired:  b(`SELECT name, generation FROM dataset_retired WHERE kind = ? ORDER BY generation, name`),
		forget:   b(`DELETE FROM dataset_retired WHERE kind = ? AND name = ? AND generation = ?`),
		version:  `SELECT COALESCE(SUM(generation), 0), COUNT(*) FROM datasets`,
		putCount: b(`INSERT INTO geocode_counts (instance, started_at, local_count, remote_count, seen_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (instance) DO UPDATE SET local_count = excluded.local_count, remote_count = excluded.remote_count,
				seen_at = excluded.seen_at`),
		listCounts:  b(`SELECT instance, started_at, local_count, remote_count, seen_at FROM geocode_counts WHERE seen_at >= ? ORDER BY instance`),
		pruneCounts: b(`DELETE FROM geocode_counts WHERE seen_at < ?`),
	}
}

// ErrSuperseded is the cause of a checkpoint's or a publication's error
// when the load is no longer the dataset's pending one: another run of a
// different file began a load of the same dataset meanwhile and abandoned
// this one.
var ErrSuperseded = errors.New("the load was superseded by another load of the same dataset")

// Lifecycle is the lifecycle over one engine: providers.DatasetStore,
// which each engine embeds.
type Lifecycle struct {
	DB sqlshared.DB
	S  *Statements
	// Publish holds, by kind, what a publication of a load of that kind
	// does to the kind's own tables, in the transaction that serves it;
	// a kind without one (most) reads its staged rows as they are.
	Publish map[string]Publisher
}

// Publisher makes what a load staged under generation readable, on c, the
// transaction of its publication: the tables of a generation's address
// points and ranges, written unindexed, are indexed, one sorted pass
// each, and made read with the rest here (store/internal/addrsql).
type Publisher func(ctx context.Context, c sqlshared.Conn, generation int64) error

var _ providers.DatasetStore = Lifecycle{}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func check(kind, name string) error {
	if kind == "" {
		return providers.Invalid("kind", "must not be empty")
	}
	if name == "" {
		return providers.Invalid("name", "must not be empty")
	}
	return nil
}

// BeginDataset starts, resumes or skips a load (see
// providers.DatasetStore), in one write transaction.
func (l Lifecycle) BeginDataset(ctx context.Context, kind, name, fingerprint string) (providers.DatasetLoad, *providers.Dataset, error) {
	if err := check(kind, name); err != nil {
		return providers.DatasetLoad{}, nil, err
	}
	var (
		load   providers.DatasetLoad
		served *providers.Dataset
	)
	err := l.DB.Tx(ctx, func(c sqlshared.Conn) error {
		load, served = providers.DatasetLoad{}, nil
		ds, err := l.scan(ctx, c, l.S.served, kind, name)
		if err != nil {
			return err
		}
		if len(ds) > 0 {
			served = &ds[0]
		}
		pending, found, err := l.S.Pending(ctx, c, kind, name)
		if err != nil {
			return err
		}
		step, abandon := Decide(pending, found, fingerprint, servedFP(served), served != nil)
		if abandon {
			// A load of other files is abandoned: what it wrote is
			// dropped with the retired generations.
			if err := l.S.Retire(ctx, c, kind, name, pending.Generation); err != nil {
				return err
			}
			if _, err := l.S.End(ctx, c, kind, name, pending.Generation); err != nil {
				return err
			}
		}
		switch step {
		case Resume:
			pending.Resumed = true
			load = pending
			return nil
		case Nothing:
			return nil
		}
		var gen int64
		if _, err := sqlshared.QueryRow(ctx, c, l.S.nextGeneration, nil, &gen); err != nil {
			return err
		}
		if err := l.S.Begin(ctx, c, kind, name, gen, fingerprint); err != nil {
			return err
		}
		load = providers.DatasetLoad{Kind: kind, Name: name, Generation: gen, Fingerprint: fingerprint}
		return nil
	})
	if err != nil {
		return providers.DatasetLoad{}, nil, l.DB.Err(ctx, err)
	}
	return load, served, nil
}

// Checkpoint writes load's checkpoint cp on c, the transaction that wrote
// the batch it counts, and sets it on load. It fails with ErrSuperseded
// when load is no longer pending.
func (l Lifecycle) Checkpoint(ctx context.Context, c sqlshared.Conn, load *providers.DatasetLoad, cp providers.Checkpoint) error {
	if err := l.S.Checkpoint(ctx, c, load.Kind, load.Name, load.Generation, cp); err != nil {
		return err
	}
	load.Checkpoint = cp
	return nil
}

// servedFP is the fingerprint d is served from, "" for none.
func servedFP(d *providers.Dataset) string {
	if d == nil {
		return ""
	}
	return d.Fingerprint
}

// timeNow is the clock of the loads' start.
var timeNow = time.Now

// PublishDataset serves load in one transaction, retiring the former
// generation (see providers.DatasetStore).
func (l Lifecycle) PublishDataset(ctx context.Context, load providers.DatasetLoad, d providers.Dataset) (providers.Dataset, error) {
	if err := check(load.Kind, load.Name); err != nil {
		return providers.Dataset{}, err
	}
	d.Kind, d.Name, d.Generation, d.Fingerprint = load.Kind, load.Name, load.Generation, load.Fingerprint
	d, err := Served(d)
	if err != nil {
		return providers.Dataset{}, err
	}
	err = l.DB.Tx(ctx, func(c sqlshared.Conn) error {
		ended, err := l.S.End(ctx, c, load.Kind, load.Name, load.Generation)
		if err != nil {
			return err
		}
		if !ended {
			return fmt.Errorf("%s %s: %w", load.Kind, load.Name, ErrSuperseded)
		}
		if p := l.Publish[load.Kind]; p != nil {
			if err := p(ctx, c, load.Generation); err != nil {
				return err
			}
		}
		ds, err := l.scan(ctx, c, l.S.served, load.Kind, load.Name)
		if err != nil {
			return err
		}
		if len(ds) > 0 && ds[0].Generation != load.Generation {
			if err := l.S.Retire(ctx, c, load.Kind, load.Name, ds[0].Generation); err != nil {
				return err
			}
		}
		return l.S.serve(ctx, c, d)
	})
	if err != nil {
		if errors.Is(err, ErrSuperseded) {
			return providers.Dataset{}, err
		}
		return providers.Dataset{}, l.DB.Err(ctx, err)
	}
	return d, nil
}

// RetiredGenerations lists kind's retired generations, oldest first.
func (l Lifecycle) RetiredGenerations(ctx context.Context, kind string) ([]providers.Retired, error) {
	rows, err := l.DB.Query(ctx, l.S.retired, kind)
	if err != nil {
		return nil, l.DB.Err(ctx, err)
	}
	defer rows.Close()
	var out []providers.Retired
	for rows.Next() {
		var r providers.Retired
		if err := rows.Scan(&r.Name, &r.Generation); err != nil {
			return nil, l.DB.Err(ctx, err)
		}
		out = append(out, r)
	}
	return out, l.DB.Err(ctx, rows.Err())
}

// ForgetGeneration removes a retired generation of kind/name from the
// list.
func (l Lifecycle) ForgetGeneration(ctx context.Context, kind, name string, generation int64) error {
	_, err := l.DB.Exec(ctx, l.S.forget, kind, name, generation)
	return l.DB.Err(ctx, err)
}

// Datasets lists the datasets served of kind, or of every kind for "".
func (l Lifecycle) Datasets(ctx context.Context, kind string) ([]providers.Dataset, error) {
	var (
		ds  []providers.Dataset
		err error
	)
	if kind == "" {
		ds, err = l.scan(ctx, l.DB, l.S.list)
	} else {
		ds, err = l.scan(ctx, l.DB, l.S.listKind, kind)
	}
	return ds, l.DB.Err(ctx, err)
}

// DatasetsVersion is the sum of the generations served and the number of
// datasets: a publication serves a generation newer than the dataset's
// former one, so the sum grows with each, and a new dataset adds one to
// the count.
func (l Lifecycle) DatasetsVersion(ctx context.Context) (string, error) {
	var gen, n int64
	if _, err := sqlshared.QueryRow(ctx, l.DB, l.S.version, nil, &gen, &n); err != nil {
		return "", l.DB.Err(ctx, err)
	}
	return strconv.FormatInt(gen, 10) + "." + strconv.FormatInt(n, 10), nil
}

func (l Lifecycle) scan(ctx context.Context, c sqlshared.Conn, query string, args ...any) ([]providers.Dataset, error) {
	rows, err := c.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []providers.Dataset
	for rows.Next() {
		var (
			d            providers.Dataset
			meta, loaded string
			took         int64
		)
		cv := &d.Coverage
		if err := rows.Scan(&d.Kind, &d.Name, &d.Generation, &d.Fingerprint, &d.Rows, &d.Failed, &d.Vintage,
			&cv.South, &cv.North, &cv.West, &cv.East, &meta, &d.FailuresFile, &took, &loaded); err != nil {
			return nil, err
		}
		d.Took = time.Duration(took) * time.Millisecond
		d.Meta = json.RawMessage(meta)
		d.LoadedAt, _ = time.Parse("2006-01-02T15:04:05.000Z", loaded)
		out = append(out, d)
	}
	return out, rows.Err()
}
