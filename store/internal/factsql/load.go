package factsql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
	"github.com/propertyd/propertyd/store/internal/rules"
	"github.com/propertyd/propertyd/store/internal/sqlshared"
	"golang.org/x/sync/errgroup"
)

// mergeBatch is how many records one transaction of PublishFacts merges:
// small enough that a lookup saving a new record meanwhile waits
// milliseconds for the writer, not seconds.
const mergeBatch = 2000

// A publish rebuilds the search indexes (Dialect.RebuiltIndexes) rather
// than update them record by record when it merges at least rebuildMin
// records and at least one in rebuildShare of all the records. Measured
// on SQLite with 500,000 records, every one merged: record by record 80 s,
// rebuilding 17 s (7.5 s of merging, 9 s of creating twelve indexes). A
// rebuild holds the writer for the whole merge, so below these figures,
// where it saves little, the short transactions win.
const (
	rebuildMin   = 50_000
	rebuildShare = 4
)

// Begin starts a load of dataset, or resumes its unfinished load of the
// same fingerprint. A load of other files is abandoned: its generation is
// retired, for the loader to drop (DropGeneration). When
// the dataset is served from the same fingerprint and no load is pending,
// it returns the zero FactLoad and the served set: nothing to do.
func (f *Facts) Begin(ctx context.Context, dataset, fingerprint string) (providers.FactLoad, *providers.FactSet, error) {
	served, err := f.servedSet(ctx, f.DB, dataset)
	if err != nil {
		return providers.FactLoad{}, nil, err
	}
	pending, found, err := f.S.L.Pending(ctx, f.DB, LoadKind, dataset)
	if err != nil {
		return providers.FactLoad{}, nil, f.DB.Err(ctx, err)
	}
	servedFP := ""
	if served != nil {
		servedFP = served.Fingerprint
	}
	step, abandon := loadsql.Decide(pending, found, fingerprint, servedFP, served != nil)
	if abandon {
		// A load of other files ends, its generation retired in the same
		// step, unless it is served already (a publish cut short while it
		// merged): its former generations are then retired by the next
		// publish, which finds their rows.
		err := f.DB.Tx(ctx, func(c Conn) error {
			if served == nil || served.Generation != pending.Generation {
				if err := f.S.L.Retire(ctx, c, LoadKind, dataset, pending.Generation); err != nil {
					return err
				}
			}
			_, err := f.S.L.End(ctx, c, LoadKind, dataset, pending.Generation)
			return err
		})
		if err != nil {
			return providers.FactLoad{}, nil, f.DB.Err(ctx, err)
		}
		if err := f.DropRetired(ctx); err != nil {
			return providers.FactLoad{}, nil, err
		}
	}
	switch step {
	case loadsql.Resume:
		return providers.FactLoad{Dataset: dataset, Generation: pending.Generation, Fingerprint: fingerprint,
			Done: pending.Done, Failed: pending.Failed, FailuresSize: pending.FailuresSize, Resumed: true}, served, nil
	case loadsql.Nothing:
		return providers.FactLoad{}, served, nil
	}
	load := providers.FactLoad{Dataset: dataset, Fingerprint: fingerprint}
	err = f.DB.Tx(ctx, func(c Conn) error {
		if _, err := QueryRow(ctx, c, f.S.newGeneration, []any{dataset, dataset, dataset}, &load.Generation); err != nil {
			return err
		}
		return f.S.L.Begin(ctx, c, LoadKind, dataset, load.Generation, fingerprint)
	})
	if err != nil {
		return providers.FactLoad{}, nil, f.DB.Err(ctx, err)
	}
	return load, served, nil
}

func (f *Facts) servedSet(ctx context.Context, c Conn, dataset string) (*providers.FactSet, error) {
	rows, err := c.Query(ctx, f.S.servedSet, dataset)
	if err != nil {
		return nil, f.DB.Err(ctx, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, f.DB.Err(ctx, rows.Err())
	}
	s, err := scanSet(rows)
	if err != nil {
		return nil, f.DB.Err(ctx, err)
	}
	return &s, nil
}

func scanSet(rows Rows) (providers.FactSet, error) {
	var (
		s        providers.FactSet
		priority int64
		loaded   string
	)
	if err := rows.Scan(&s.Dataset, &s.Source, &priority, &s.Generation, &s.AsOf, &s.Fingerprint,
		&s.Rows, &s.Matched, &s.Failed, &loaded); err != nil {
		return s, err
	}
	s.Priority = int(priority)
	s.LoadedAt, _ = time.Parse("2006-01-02T15:04:05.000Z", loaded)
	return s, nil
}

// DropGeneration deletes the rows and keys of a retired generation of a
// dataset, a few thousand rows a transaction, and its naming of an
// extract's buildings (fact_buildings). It refuses the generation the
// dataset serves (providers.ErrKeep).
func (f *Facts) DropGeneration(ctx context.Context, dataset string, gen int64) error {
	served, err := f.servedSet(ctx, f.DB, dataset)
	if err != nil {
		return err
	}
	if served != nil && served.Generation == gen {
		return fmt.Errorf("facts %s: generation %d is served: %w", dataset, gen, providers.ErrKeep)
	}
	return f.dropGeneration(ctx, dataset, gen)
}

func (f *Facts) dropGeneration(ctx context.Context, dataset string, gen int64) error {
	for {
		n, err := f.DB.Exec(ctx, f.S.dropRows, dataset, gen)
		if err != nil {
			return f.DB.Err(ctx, err)
		}
		if n == 0 {
			break
		}
	}
	if _, err := f.DB.Exec(ctx, f.S.dropKeys, dataset, gen); err != nil {
		return f.DB.Err(ctx, err)
	}
	// The extract generation whose buildings were its rows is no longer
	// kept for it (package osmsql drops it with its extract).
	_, err := f.DB.Exec(ctx, f.S.dropBuildings, dataset, gen)
	return f.DB.Err(ctx, err)
}

// Put writes keys and rows of the load and its checkpoint in one
// transaction. Rows with a JoinKey take their address and point from the
// keys written so far (a two-file dataset loads its key file first).
func (f *Facts) Put(ctx context.Context, load *providers.FactLoad, keys []providers.FactKey, rows []providers.FactRow,
	done, failed, failuresSize int64) error {
	err := f.DB.Tx(ctx, func(c Conn) error {
		if len(keys) > 0 {
			args := make([][]any, len(keys))
			for i, k := range keys {
				lat, lng := pointArgs(k.Point)
				args[i] = []any{load.Dataset, load.Generation, k.JoinKey, NullIfEmpty(k.FactsKey), lat, lng}
			}
			if err := c.ExecMany(ctx, f.S.putKey, args); err != nil {
				return err
			}
		}
		if len(rows) > 0 {
			var before int64
			if _, err := QueryRow(ctx, c, f.S.maxRow, nil, &before); err != nil {
				return err
			}
			joins := false
			args := make([][]any, len(rows))
			for i, r := range rows {
				lat, lng := pointArgs(r.Point)
				joins = joins || r.JoinKey != ""
				var shape, south, north, west, east any
				if p := r.Parcel; p != nil {
					shape, south, north, west, east = p.WKB, p.South, p.North, p.West, p.East
				}
				args[i] = append([]any{load.Dataset, load.Generation, r.Key, r.Rank, NullIfEmpty(r.JoinKey),
					NullIfEmpty(r.FactsKey), lat, lng, shape, south, north, west, east}, factArgs(r.Facts)...)
			}
			if err := f.putRows(ctx, c, args); err != nil {
				return err
			}
			if joins {
				if _, err := c.Exec(ctx, f.S.joinKeys, load.Dataset, load.Generation, before); err != nil {
					return err
				}
			}
		}
		return f.S.L.Checkpoint(ctx, c, LoadKind, load.Dataset, load.Generation,
			providers.Checkpoint{Done: done, Failed: failed, FailuresSize: failuresSize})
	})
	if err != nil {
		return f.DB.Err(ctx, err)
	}
	load.Done, load.Failed, load.FailuresSize = done, failed, failuresSize
	return nil
}

// putRows writes rows (putColumns each): where the engine has a staging
// table, copied straight into fact_rows when none of their keys is taken
// (a load's batches of new rows), else through the staging table; else
// one INSERT a row.
func (f *Facts) putRows(ctx context.Context, c Conn, rows [][]any) error {
	cp, ok := c.(Copier)
	st := f.S.d.Stage
	if !ok || st == nil {
		q, rows := f.putRowsOf(rows)
		return c.ExecMany(ctx, q, rows)
	}
	return CopyStaged(ctx, cp, c, "fact_rows", stageColumns[1:], *st, f.S.stagedPut, rows)
}

// putRowsOf returns the INSERT of rows, one a row, naming only the
// columns some row of them has a value for, and the rows cut to those
// columns: a column left out is NULL, as a NULL bound to it would be, but
// costs no bind (the buildings of an extract leave out 6 of 21 columns).
func (f *Facts) putRowsOf(rows [][]any) (string, [][]any) {
	cols := stageColumns[1:]
	used := make([]bool, len(cols))
	n := 0
	for _, r := range rows {
		for i, v := range r {
			if v != nil && !used[i] {
				used[i] = true
				n++
			}
		}
		if n == len(cols) {
			return f.S.putRow, rows
		}
	}
	var names []string
	for i, c := range cols {
		if used[i] {
			names = append(names, c)
		}
	}
	out := make([][]any, len(rows))
	for j, r := range rows {
		cut := make([]any, 0, len(names))
		for i, v := range r {
			if used[i] {
				cut = append(cut, v)
			}
		}
		out[j] = cut
	}
	q := `INSERT INTO fact_rows (` + strings.Join(names, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(names)-1) + `)` + putConflict
	return sqlshared.Bind(q, f.S.d.Param), out
}

func pointArgs(p *providers.Point) (lat, lng any) {
	if p == nil {
		return nil, nil
	}
	return p.Lat, p.Lng
}

// Publish serves the load in place of the dataset's former generation in
// one transaction, with its row of the datasets served (loadsql's Serve),
// then merges every record the new or a former generation joins,
// mergeBatch records a transaction, and ends the load, retiring the former
// generations in the same step: their rows tell the merge which records
// they gave facts, so they are dropped (DropGeneration) only once it is
// done. Until a record's turn it shows the facts it had: whole, from the
// former generation, never half of one. If it is interrupted the load
// stays pending under the served generation, and Begin of the same files
// resumes it here.
func (f *Facts) Publish(ctx context.Context, load providers.FactLoad, set providers.FactSet,
	progress func(done, total int)) (providers.FactSet, error) {
	ds, gen := load.Dataset, load.Generation
	dlat, dlng := pointBox()
	set.Dataset, set.Generation, set.Fingerprint, set.Failed = ds, gen, load.Fingerprint, load.Failed
	if set.Source == "" {
		set.Source = ds
	}
	// In order, or side by side where the engine says so.
	g, gctx := errgroup.WithContext(ctx)
	if !f.S.d.IndexRowsApart {
		g.SetLimit(1)
	}
	for _, q := range f.S.d.IndexRows {
		g.Go(func() error {
			_, err := f.DB.Exec(gctx, q, ds, gen)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return set, f.DB.Err(ctx, err)
	}
	if f.S.d.Analyze != "" {
		if _, err := f.DB.Exec(ctx, f.S.d.Analyze); err != nil {
			return set, f.DB.Err(ctx, err)
		}
	}
	var keyMatched, pointMatched, pointRows int64
	if _, err := QueryRow(ctx, f.DB, f.S.countRows, []any{ds, gen}, &set.Rows); err != nil {
		return set, f.DB.Err(ctx, err)
	}
	if _, err := QueryRow(ctx, f.DB, f.S.pointRowsOf, []any{ds, gen}, &pointRows); err != nil {
		return set, f.DB.Err(ctx, err)
	}
	if _, err := QueryRow(ctx, f.DB, f.S.keyRowsMatched, []any{ds, gen}, &keyMatched); err != nil {
		return set, f.DB.Err(ctx, err)
	}
	var records int64
	if _, err := QueryRow(ctx, f.DB, f.S.countRecords, nil, &records); err != nil {
		return set, f.DB.Err(ctx, err)
	}
	fromRecords := f.S.d.RowsAtRecords != "" && records < set.Rows
	if f.FromRecords != nil {
		fromRecords = f.S.d.RowsAtRecords != "" && f.FromRecords(set.Rows, records)
	}
	_, pointMatched, err := f.nearPoints(ctx, ds, gen, dlat, dlng, fromRecords, false)
	if err != nil {
		return set, err
	}
	set.Matched = keyMatched + pointMatched
	d, err := f.dataset(ctx, set)
	if err != nil {
		return set, err
	}
	set.LoadedAt = d.LoadedAt
	err = f.DB.Tx(ctx, func(c Conn) error {
		if _, err := c.Exec(ctx, f.S.publish, ds, set.Source, set.Priority, gen, set.AsOf, set.Fingerprint,
			set.Rows, set.Matched, set.Failed, stamp(set.LoadedAt), pointRows); err != nil {
			return err
		}
		return f.S.L.Serve(ctx, c, d)
	})
	if err != nil {
		return set, f.DB.Err(ctx, err)
	}

	gens := []int64{gen}
	olds, err := f.int64s(ctx, f.S.oldRows, ds, gen)
	if err != nil {
		return set, err
	}
	gens = append(gens, olds...)
	// The records are read after the publish: one saved before it read
	// the former rows, one saved after reads these.
	var ids []int64
	for _, g := range gens {
		for _, q := range []struct {
			sql  string
			args []any
		}{{f.S.keyRecords, []any{ds, g}}, {f.S.unitRecords, []any{ds, g}}} {
			got, err := f.int64s(ctx, q.sql, q.args...)
			if err != nil {
				return set, err
			}
			ids = append(ids, got...)
		}
		got, _, err := f.nearPoints(ctx, ds, g, dlat, dlng, fromRecords, true)
		if err != nil {
			return set, err
		}
		ids = append(ids, got...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if err := f.mergeAll(ctx, ids, records, load.InPlace, progress); err != nil {
		return set, err
	}
	if _, err := f.DB.Exec(ctx, f.S.dropKeys, ds, gen); err != nil {
		return set, f.DB.Err(ctx, err)
	}
	err = f.DB.Tx(ctx, func(c Conn) error {
		for _, g := range olds {
			if err := f.S.L.Retire(ctx, c, LoadKind, ds, g); err != nil {
				return err
			}
		}
		_, err := f.S.L.End(ctx, c, LoadKind, ds, gen)
		return err
	})
	if err != nil {
		return set, f.DB.Err(ctx, err)
	}
	return set, f.DropRetired(ctx)
}

// DropRetired drops the retired generations of every assessor dataset
// (DropGeneration): what a publication or an abandoned load retired.
func (f *Facts) DropRetired(ctx context.Context) error {
	return f.S.L.DropRetired(ctx, f.DB, LoadKind, f.DropGeneration)
}

// factsMeta is what an assessor dataset's row of the datasets served
// keeps besides the lifecycle's columns: what fact_sets says of it.
type factsMeta struct {
	Source     string `json:"source"`
	Precedence int    `json:"precedence"`
	Matched    int64  `json:"matched"`
}

// dataset is set's row of the datasets served: its rows, failures, as-of
// date as its vintage, the box of its rows with a point as its coverage.
func (f *Facts) dataset(ctx context.Context, set providers.FactSet) (providers.Dataset, error) {
	var south, north, west, east sql.NullFloat64
	if _, err := QueryRow(ctx, f.DB, f.S.coverage, []any{set.Dataset, set.Generation}, &south, &north, &west, &east); err != nil {
		return providers.Dataset{}, f.DB.Err(ctx, err)
	}
	meta, err := json.Marshal(factsMeta{Source: set.Source, Precedence: set.Priority, Matched: set.Matched})
	if err != nil {
		return providers.Dataset{}, err
	}
	return loadsql.Served(providers.Dataset{Kind: LoadKind, Name: set.Dataset, Generation: set.Generation,
		Fingerprint: set.Fingerprint, Rows: set.Rows, Failed: set.Failed, Vintage: set.AsOf,
		Coverage: providers.BBox{South: south.Float64, North: north.Float64, West: west.Float64, East: east.Float64},
		Meta:     meta, FailuresFile: set.FailuresFile, Took: set.Took})
}

// nearPoints returns the records near the point rows, or inside the
// parcels, of the generation g of dataset ds (when ids), else how many of
// those rows have one. fromRecords reads them from the records' side (one
// look-up a record: RowsAtRecords), which a publish does when there are
// fewer records than rows (or as Facts.FromRecords says); otherwise each
// row looks up its records (RecordsNearRows, PointRowsMatched). Both find
// the same pairs.
func (f *Facts) nearPoints(ctx context.Context, ds string, g int64, dlat, dlng float64, fromRecords, ids bool) ([]int64, int64, error) {
	if !fromRecords {
		if ids {
			got, err := f.int64s(ctx, f.S.recordsNearRows, ds, g, dlat, dlng)
			return got, 0, err
		}
		var matched int64
		if _, err := QueryRow(ctx, f.DB, f.S.pointRowsMatched, []any{ds, g, dlat, dlng}, &matched); err != nil {
			return nil, 0, f.DB.Err(ctx, err)
		}
		return nil, matched, nil
	}
	q, err := f.DB.Query(ctx, f.S.d.RowsAtRecords, ds, g, dlat, dlng)
	if err != nil {
		return nil, 0, f.DB.Err(ctx, err)
	}
	defer q.Close()
	var records []int64
	rows := map[int64]struct{}{}
	for q.Next() {
		var rec, row int64
		if err := q.Scan(&rec, &row); err != nil {
			return nil, 0, f.DB.Err(ctx, err)
		}
		if ids {
			records = append(records, rec)
		} else {
			rows[row] = struct{}{}
		}
	}
	return records, int64(len(rows)), f.DB.Err(ctx, q.Err())
}

// mergeAll merges ids, mergeBatch a transaction, or all in one around a
// rebuild of the search indexes where that is faster (rebuilds) and
// inPlace does not forbid it.
func (f *Facts) mergeAll(ctx context.Context, ids []int64, records int64, inPlace bool, progress func(done, total int)) error {
	if !inPlace && f.rebuilds(len(ids), records) {
		return f.mergeRebuilding(ctx, ids, progress)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(f.S.d.MergeWorkers, 1))
	var mu sync.Mutex
	done := 0
	for start := 0; start < len(ids); start += mergeBatch {
		batch := ids[start:min(start+mergeBatch, len(ids))]
		g.Go(func() error {
			err := f.DB.Tx(gctx, func(c Conn) error {
				_, err := f.MergeMany(gctx, c, batch)
				return err
			})
			if err != nil {
				return f.DB.Err(gctx, err)
			}
			mu.Lock()
			defer mu.Unlock()
			done += len(batch)
			if progress != nil {
				progress(done, len(ids))
			}
			return nil
		})
	}
	return g.Wait()
}

// rebuilds reports whether merging n of records records goes faster
// around a rebuild of the search indexes than through them (RebuildAt,
// else rebuildPays).
func (f *Facts) rebuilds(n int, records int64) bool {
	if f.S.d.RebuiltIndexes == "" || n == 0 {
		return false
	}
	at := f.RebuildAt
	if at == nil {
		at = rebuildPays
	}
	return at(int64(n), records)
}

// rebuildPays is the measured rule: at least rebuildMin records merged,
// and at least one in rebuildShare of all.
func rebuildPays(merged, records int64) bool {
	return merged >= rebuildMin && merged*rebuildShare >= records
}

// mergeRebuilding merges ids in one transaction that drops the indexes of
// properties holding facts first and creates them again last, keeping
// their statistics. Readers see the former records and indexes until it
// commits; writers wait for it.
func (f *Facts) mergeRebuilding(ctx context.Context, ids []int64, progress func(done, total int)) error {
	err := f.DB.Tx(ctx, func(c Conn) error {
		rows, err := c.Query(ctx, f.S.d.RebuiltIndexes)
		if err != nil {
			return err
		}
		var names, creates []string
		for rows.Next() {
			var name, create string
			if err := rows.Scan(&name, &create); err != nil {
				rows.Close()
				return err
			}
			names, creates = append(names, name), append(creates, create)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		for _, q := range f.S.d.SaveStats {
			if _, err := c.Exec(ctx, q); err != nil {
				return err
			}
		}
		for _, name := range names {
			if _, err := c.Exec(ctx, `DROP INDEX "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
				return err
			}
		}
		for start := 0; start < len(ids); start += mergeBatch {
			batch := ids[start:min(start+mergeBatch, len(ids))]
			if _, err := f.MergeMany(ctx, c, batch); err != nil {
				return err
			}
			if progress != nil {
				progress(start+len(batch), len(ids))
			}
		}
		for _, q := range creates {
			if _, err := c.Exec(ctx, q); err != nil {
				return err
			}
		}
		for _, q := range f.S.d.RestoreStats {
			if _, err := c.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	return f.DB.Err(ctx, err)
}

func (f *Facts) int64s(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, err := f.DB.Query(ctx, sql, args...)
	if err != nil {
		return nil, f.DB.Err(ctx, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, f.DB.Err(ctx, err)
		}
		out = append(out, v)
	}
	return out, f.DB.Err(ctx, rows.Err())
}

// Sets lists the datasets served, by priority.
func (f *Facts) Sets(ctx context.Context) ([]providers.FactSet, error) {
	rows, err := f.DB.Query(ctx, f.S.sets)
	if err != nil {
		return nil, f.DB.Err(ctx, err)
	}
	defer rows.Close()
	var out []providers.FactSet
	for rows.Next() {
		s, err := scanSet(rows)
		if err != nil {
			return nil, f.DB.Err(ctx, err)
		}
		out = append(out, s)
	}
	return out, f.DB.Err(ctx, rows.Err())
}

// PutImport sets the operator's own facts of record id and merges it, in
// one transaction. The import is a dataset of priority 0 whose rows name
// their record.
//
// It returns KindInvalid naming the first fact out of its bounds
// (providers.CheckFacts), KindNotFound (property_not_found) when there is
// no record id.
func (f *Facts) PutImport(ctx context.Context, id int64, facts providers.Facts, asOf string) error {
	if errs := providers.CheckFacts(&facts, time.Now()); len(errs) > 0 {
		return providers.InvalidParams(errs...)
	}
	err := f.DB.Tx(ctx, func(c Conn) error {
		var one int64
		if found, err := QueryRow(ctx, c, f.S.exists, []any{id}, &one); err != nil || !found {
			if err == nil {
				err = rules.ErrPropertyNotFound()
			}
			return err
		}
		if _, err := c.Exec(ctx, f.S.putImportSet, asOf, stamp(time.Now())); err != nil {
			return err
		}
		args := append([]any{"record:" + strconv.FormatInt(id, 10), id, asOf}, factArgs(facts)...)
		if _, err := c.Exec(ctx, f.S.putImportRow, args...); err != nil {
			return err
		}
		_, err := f.Merge(ctx, c, id)
		return err
	})
	return f.DB.Err(ctx, err)
}

// Version changes with every publish and import, and again when a
// publish's merge has ended: the number of datasets, the latest time one
// was loaded, and the loads pending (each dataset and generation begun
// and not ended). A publish serves its rows, and so changes the version,
// before it merges the records; an instance that saw that change and
// read records meanwhile may hold their former facts, and the end of the
// load, which removes it from the pending, changes the version once more.
// A load that ended never comes back as pending: its generation is
// served, and the next load of its dataset takes the one after.
func (f *Facts) Version(ctx context.Context) (string, error) {
	var (
		n      int64
		latest sql.NullString
	)
	if _, err := QueryRow(ctx, f.DB, f.S.version, nil, &n, &latest); err != nil {
		return "", f.DB.Err(ctx, err)
	}
	rows, err := f.DB.Query(ctx, f.S.pendingLoads)
	if err != nil {
		return "", f.DB.Err(ctx, err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString(strconv.FormatInt(n, 10) + "@" + latest.String)
	for rows.Next() {
		var (
			ds  string
			gen int64
		)
		if err := rows.Scan(&ds, &gen); err != nil {
			return "", f.DB.Err(ctx, err)
		}
		b.WriteString(" " + ds + "#" + strconv.FormatInt(gen, 10))
	}
	if err := rows.Err(); err != nil {
		return "", f.DB.Err(ctx, err)
	}
	return b.String(), nil
}

// CopyImport gives a record copied from another database, on c, the
// import rows its facts came from: the facts whose source its provenance
// names as the import, as of their date. Without them a later load would
// merge the record as if the operator had never imported them.
func (f *Facts) CopyImport(ctx context.Context, c Conn, p *providers.Property) error {
	if !strings.Contains(p.FactsOrigin, `"source":"import"`) {
		return nil
	}
	type source struct {
		Source string `json:"source"`
		AsOf   string `json:"as_of"`
	}
	var origin struct {
		source
		Fields map[string]source `json:"fields"`
	}
	if err := json.Unmarshal([]byte(p.FactsOrigin), &origin); err != nil {
		return nil // not provenance this code wrote; nothing to carry
	}
	all := p.Facts()
	var names []string
	asOf := ""
	if origin.Fields == nil && origin.Source == "import" {
		// One source: every known fact is the import's.
		names, asOf = providers.FactFields, origin.AsOf
	}
	for name, src := range origin.Fields {
		if src.Source == "import" {
			names = append(names, name)
			asOf = max(asOf, src.AsOf)
		}
	}
	if _, err := c.Exec(ctx, f.S.putImportSet, asOf, stamp(time.Now())); err != nil {
		return err
	}
	args := append([]any{"record:" + strconv.FormatInt(p.ID, 10), p.ID, asOf}, factArgs(all.Only(names...))...)
	_, err := c.Exec(ctx, f.S.putImportRow, args...)
	return err
}

// FillKeys gives every record saved before facts existed its facts_key
// (the migration that added the column cannot normalize a street), a few
// thousand a transaction, and reports how many it filled. A database with
// none left costs one index probe.
func (f *Facts) FillKeys(ctx context.Context) (int, error) {
	n := 0
	for {
		rows, err := f.DB.Query(ctx, f.S.unkeyed)
		if err != nil {
			return n, f.DB.Err(ctx, err)
		}
		var args [][]any
		for rows.Next() {
			var (
				id                   int64
				canonical, zip, unit string
			)
			if err := rows.Scan(&id, &canonical, &zip, &unit); err != nil {
				rows.Close()
				return n, f.DB.Err(ctx, err)
			}
			args = append(args, []any{providers.FactsKeyOf(canonical, zip, unit), id})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return n, f.DB.Err(ctx, err)
		}
		if len(args) == 0 {
			return n, nil
		}
		if err := f.DB.Tx(ctx, func(c Conn) error { return c.ExecMany(ctx, f.S.setKey, args) }); err != nil {
			return n, f.DB.Err(ctx, err)
		}
		n += len(args)
	}
}
