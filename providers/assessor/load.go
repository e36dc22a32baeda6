package assessor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/dataload"
)

// BatchRows is how many rows one transaction writes, with the checkpoint
// a resumed load starts from.
const BatchRows = 5000

// ErrMissingColumn is the cause of the error Load returns, before reading
// any row, when the mapping names columns a file lacks (the error names
// every one, and the file's own); ErrFiles when it is given the wrong
// number of files; ErrNotText when a file is neither CSV text nor GeoJSON
// (its bytes are never shown). All are the caller's mistake.
var (
	ErrMissingColumn = errors.New("the file has no column")
	ErrFiles         = errors.New("wrong files")
	ErrNotText       = errors.New("the file is not CSV text")
)

// Options tune a Load.
type Options struct {
	// Priority is the dataset's place in the precedence (1 is first after
	// the operator's import).
	Priority int
	// Failures is the path of the failures file: a CSV of file, line, key,
	// kept and reason, one line a row that failed (kept=no) or lost a value
	// (kept=yes, the bad value dropped). It is appended to, and cut back
	// to the checkpoint when a load resumes.
	Failures string
	// Progress, when set, is told the rows read so far and what is going
	// on; force asks for a redraw now.
	Progress func(rows int64, phase string, force bool)
	// Now is the clock (year_built's bound, the default as_of); nil means
	// time.Now.
	Now func() time.Time
	// Force loads the files even when the dataset is served from them.
	Force bool
	// BatchRows is how many rows a transaction writes; 0 means BatchRows.
	BatchRows int
	// InPlace merges the records a few thousand a transaction even where
	// the store would rebuild its search indexes instead
	// (providers.FactLoad.InPlace).
	InPlace bool
}

// Result is what a Load did.
type Result struct {
	Set           providers.FactSet
	Read          int64 // data rows read, this run and the runs it resumed
	Failed        int64 // rows written to the failures file
	Resumed       bool
	AlreadyLoaded bool // the dataset is served from these files already
}

// Load streams files into st as the dataset d: every row read, checked and
// written BatchRows at a time with its checkpoint, then published in one
// step. A load killed at any point is resumed by running it again with the
// same files: rows already written are skipped and no row is written
// twice. A two-file dataset (d.Join) takes its two files in either order.
//
// Where st is the lifecycle's too (providers.DatasetStore, as both
// engines are), the generations of assessor datasets retired (replaced,
// abandoned) are dropped through dataload.DropRetired: those an earlier
// run left once this one has begun, the former one once it is published.
func Load(ctx context.Context, st providers.FactStore, d Dataset, files []string, opts Options) (Result, error) {
	var res Result
	start := time.Now()
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	ordered, err := d.order(files)
	if err != nil {
		return res, err
	}
	fp, err := fingerprint(d, ordered)
	if err != nil {
		return res, err
	}
	if opts.Force {
		fp += "+" + strconv.FormatInt(now().UnixNano(), 36)
	}
	load, served, err := st.BeginFacts(ctx, d.Name, fp)
	if err != nil {
		return res, err
	}
	if err := dropRetired(ctx, st); err != nil {
		return res, err
	}
	if load.Generation == 0 {
		res.AlreadyLoaded = true
		res.Set = *served
		return res, nil
	}
	res.Resumed = load.Resumed

	fail, err := dataload.OpenFailures(opts.Failures, load.FailuresSize)
	if err != nil {
		return res, err
	}
	defer fail.Close()

	w := &writer{ctx: ctx, st: st, load: &load, fail: fail, skip: load.Done, failed: load.Failed, opts: opts}
	w.start()
	for i, path := range ordered {
		keyFile := d.Join != nil && i == 0
		if err = w.file(d, path, keyFile, now()); err != nil {
			break
		}
	}
	if err == nil {
		err = w.flush()
	}
	if werr := w.wait(); err == nil {
		err = werr
	}
	if err != nil {
		return res, err
	}
	res.Read, res.Failed = w.read, w.failed
	asOf := d.AsOf
	if asOf == "" {
		asOf = now().UTC().Format(time.DateOnly)
	}
	source := d.Source
	if source == "" {
		source = d.Name
	}
	w.progress("merging records", true)
	load.InPlace = opts.InPlace
	failures := opts.Failures
	if abs, err := filepath.Abs(failures); err == nil && failures != "" {
		failures = abs
	}
	res.Set, err = st.PublishFacts(ctx, load, providers.FactSet{Source: source, Priority: opts.Priority, AsOf: asOf,
		FailuresFile: failures, Took: time.Since(start)},
		func(done, total int) {
			w.progress(fmt.Sprintf("merging records %d/%d", done, total), false)
		})
	if err != nil {
		return res, err
	}
	w.progress("dropping the former "+d.Name, true)
	return res, dropRetired(ctx, st)
}

// dropRetired drops the assessor datasets' retired generations, where st
// keeps the lifecycle (providers.DatasetStore).
func dropRetired(ctx context.Context, st providers.FactStore) error {
	if ds, ok := st.(providers.DatasetStore); ok {
		return dataload.DropRetired(ctx, ds, Parcels)
	}
	return nil
}

// order returns the files in the order they load: a two-file dataset's
// key file (the one whose header has the join's columns) first. It checks
// every column the mapping names against the files' headers.
func (d *Dataset) order(files []string) ([]string, error) {
	want := 1
	if d.Join != nil {
		want = 2
	}
	if len(files) != want {
		return nil, fmt.Errorf("%w: dataset %s takes %d file(s), got %d", ErrFiles, d.Name, want, len(files))
	}
	if want == 1 {
		return files, checkColumns(files[0], d.Mapping.columns())
	}
	joinCols := d.Join.columns()
	for i, f := range files {
		if checkColumns(f, joinCols) == nil {
			main := files[1-i]
			if err := checkColumns(main, d.Mapping.columns()); err != nil {
				return nil, err
			}
			return []string{f, main}, nil
		}
	}
	return nil, checkColumns(files[0], joinCols)
}

// checkColumns reports every one of cols that path lacks, with the
// columns it has (a GeoJSON file is checked against its first feature's
// properties).
func checkColumns(path string, cols []string) error {
	r, err := openRows(path)
	if err != nil {
		return err
	}
	defer r.Close()
	if r.dec != nil {
		if err := r.next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	var missing []string
	for _, c := range cols {
		if !r.has(c) && !slices.Contains(missing, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: %w %s (its columns: %s)", filepath.Base(path), ErrMissingColumn,
			strings.Join(missing, ", "), strings.Join(r.names(), ", "))
	}
	return nil
}

func (r *rowReader) names() []string {
	if r.header != nil {
		return r.columns
	}
	var out []string
	for k := range r.props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// fingerprint names the files and the mapping (dataload.Fingerprint):
// the same files under the same mapping resume or skip; anything else is
// a new load.
func fingerprint(d Dataset, files []string) (string, error) {
	m, _ := json.Marshal(d.Mapping)
	return dataload.Fingerprint(files, m, false)
}

// writer batches rows into the store. The rows are read and checked on
// the caller's goroutine while the batch before them is written on
// another (start), so reading a file and writing the database overlap.
type writer struct {
	ctx    context.Context
	st     providers.FactStore
	load   *providers.FactLoad
	fail   *dataload.Failures
	opts   Options
	keys   []providers.FactKey
	rows   []providers.FactRow
	read   int64 // data rows read, across files, this run and before
	skip   int64 // rows the checkpoint this run resumed from covers
	failed int64

	batches chan batch
	done    chan error
}

// batch is one transaction's worth of rows and its checkpoint.
type batch struct {
	keys                 []providers.FactKey
	rows                 []providers.FactRow
	read, failed, failsz int64
}

// start starts the goroutine writing batches: one is written while the
// next is read; the first error stops it, and flush and wait report it.
func (w *writer) start() {
	w.batches, w.done = make(chan batch, 1), make(chan error, 1)
	batches := w.batches
	go func() {
		var err error
		for b := range batches {
			if err == nil {
				err = w.st.PutFacts(w.ctx, w.load, b.keys, b.rows, b.read, b.failed, b.failsz)
			}
		}
		w.done <- err
	}()
}

// wait ends the writing goroutine and returns its error.
func (w *writer) wait() error {
	if w.batches == nil {
		return nil
	}
	close(w.batches)
	w.batches = nil
	return <-w.done
}

func (w *writer) progress(phase string, force bool) {
	if w.opts.Progress != nil {
		w.opts.Progress(w.read, phase, force)
	}
}

// file reads one file's rows, skipping those the checkpoint covers.
func (w *writer) file(d Dataset, path string, keyFile bool, now time.Time) error {
	r, err := openRows(path)
	if err != nil {
		return err
	}
	defer r.Close()
	phase := "reading " + filepath.Base(path)
	for {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s line %d: %w", filepath.Base(path), r.line, err)
		}
		w.read++
		if w.read <= w.skip {
			continue // written before the load was interrupted
		}
		if keyFile {
			w.keyRow(d.Join, r, path)
		} else {
			w.dataRow(d, r, path, now)
		}
		if len(w.rows)+len(w.keys) >= w.batch() {
			if err := w.flush(); err != nil {
				return err
			}
		}
		w.progress(phase, false)
	}
}

func (w *writer) batch() int {
	if w.opts.BatchRows > 0 {
		return w.opts.BatchRows
	}
	return BatchRows
}

// flush hands the rows read so far to the writing goroutine, with the
// checkpoint they complete: the rows read and failed, and the failures
// file's length once synced (a resumed load cuts it back to that). It
// returns the writer's error when it has stopped.
func (w *writer) flush() error {
	size, err := w.fail.Sync()
	if err != nil {
		return fmt.Errorf("writing the failures file: %w", err)
	}
	select {
	case err := <-w.done:
		w.done <- err // for wait
		if err != nil {
			return err
		}
	default:
	}
	select {
	case w.batches <- batch{keys: w.keys, rows: w.rows, read: w.read, failed: w.failed, failsz: size}:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	w.keys, w.rows = make([]providers.FactKey, 0, len(w.keys)), make([]providers.FactRow, 0, len(w.rows))
	return nil
}

func (w *writer) keyRow(j *Join, r *rowReader, path string) {
	key := strings.TrimSpace(r.get(j.Key[0]))
	if key == "" {
		w.failed++
		w.fail.Write(path, r.line, "", false, j.Key[0]+": is blank")
		return
	}
	k := providers.FactKey{JoinKey: key}
	var reason string
	k.FactsKey, reason = factsKey(j.Address, r.get)
	k.Point = point(j.Point, r)
	if k.FactsKey == "" && k.Point == nil {
		w.failed++
		w.fail.Write(path, r.line, key, false, reason)
		return
	}
	w.keys = append(w.keys, k)
}

func (w *writer) dataRow(d Dataset, r *rowReader, path string, now time.Time) {
	key := joinCells(d.Key, r.get, "-")
	if key == "" {
		w.failed++
		w.fail.Write(path, r.line, "", false, strings.Join(d.Key, "-")+": is blank")
		return
	}
	row := providers.FactRow{Key: key, Rank: rank(d.Rank, r.get)}
	var reasons []string
	for _, name := range providers.FactFields {
		f, ok := d.Fields[name]
		if !ok {
			continue
		}
		text, err := f.value(r.get)
		if err != nil {
			reasons = append(reasons, name+": "+err.Error())
			continue
		}
		if pe := providers.SetFact(&row.Facts, name, text); pe != nil {
			reasons = append(reasons, pe.Parameter+": "+pe.Message)
		}
	}
	for _, pe := range providers.CheckFacts(&row.Facts, now) {
		reasons = append(reasons, pe.Parameter+": "+pe.Message)
	}
	if d.Join != nil {
		row.JoinKey = strings.TrimSpace(r.get(d.Join.Column))
	}
	var why string
	row.FactsKey, why = factsKey(d.Address, r.get)
	row.Point = point(d.Point, r)
	if row.Point == r.geometry && r.parcel != nil {
		row.Parcel = r.parcel // a record inside the parcel joins it
	}
	switch {
	case !row.Facts.Known():
		reasons = append(reasons, "no facts")
	case row.FactsKey == "" && row.Point == nil && row.JoinKey == "":
		reasons = append(reasons, why)
	default:
		if len(reasons) > 0 {
			w.failed++
			w.fail.Write(path, r.line, key, true, strings.Join(reasons, "; "))
		}
		w.rows = append(w.rows, row)
		return
	}
	w.failed++
	w.fail.Write(path, r.line, key, false, strings.Join(reasons, "; "))
}

// factsKey normalizes a row's address as lookups do and returns its
// FactsKey, or "" and why there is none.
func factsKey(a *AddressColumns, get func(string) string) (string, string) {
	if a == nil {
		return "", "no address or point"
	}
	street := streetLine(a.Street, get)
	if street == "" {
		return "", "address: street is blank"
	}
	state := ""
	if a.State != "" {
		state = get(a.State)
	}
	if strings.TrimSpace(state) == "" {
		state = a.DefaultState
	}
	in := providers.Address{Street: street, State: state, Zip: get(a.Zip)}
	if a.Unit != "" {
		in.Unit = get(a.Unit)
	}
	if a.City != "" {
		in.City = get(a.City)
	}
	n, err := address.Normalize(in)
	if err != nil {
		return "", "address: " + providers.As(err).Message
	}
	if n.Zip == "" {
		return "", "address: zip is blank"
	}
	return providers.FactsKey(n.Street, n.Zip, n.Unit), ""
}

// point reads a row's coordinates: the columns, else a GeoJSON feature's
// geometry (a point, or the centre of a parcel polygon's bounding box);
// nil when there are none or they are out of range (0,0 is a blank, not a
// place).
func point(p *PointColumns, r *rowReader) *providers.Point {
	if p != nil && p.Lat != "" {
		lat, err1 := strconv.ParseFloat(strings.TrimSpace(r.get(p.Lat)), 64)
		lng, err2 := strconv.ParseFloat(strings.TrimSpace(r.get(p.Lng)), 64)
		if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lng < -180 || lng > 180 || (lat == 0 && lng == 0) {
			return nil
		}
		return &providers.Point{Lat: lat, Lng: lng}
	}
	return r.geometry // a GeoJSON feature's; nil in a CSV
}

// streetLine joins the street columns with spaces, leaving out a cell
// that is the end of a house-number range (Allegheny County writes the
// range 1622-1624 as 1622 in the number and " -1624" in the fraction): the
// record's address is the range's first number.
func streetLine(cols []string, get func(string) string) string {
	return strings.Join(cells(cols, get, func(v string) bool {
		r, ok := strings.CutPrefix(v, "-")
		return ok && r != "" && strings.Trim(strings.TrimSpace(r), "0123456789") == ""
	}), " ")
}

// joinCells joins the non-blank cells of cols with sep.
func joinCells(cols []string, get func(string) string, sep string) string {
	return strings.Join(cells(cols, get, nil), sep)
}

// cells returns the cells of cols with blanks collapsed, leaving out the
// blank ones and those skip (when set) says to.
func cells(cols []string, get func(string) string, skip func(string) bool) []string {
	var parts []string
	for _, c := range cols {
		v := strings.Join(strings.Fields(get(c)), " ")
		if v != "" && (skip == nil || !skip(v)) {
			parts = append(parts, v)
		}
	}
	return parts
}

// rank folds the rank columns into one number, the first most significant.
func rank(cols []string, get func(string) string) int64 {
	var out int64
	for i, c := range cols {
		col, down := strings.CutPrefix(c, "-")
		v, _ := strconv.ParseFloat(strings.TrimSpace(get(col)), 64)
		n := int64(v)
		if i > 0 {
			n = min(max(n, 0), 999)
			if down {
				n = 999 - n
			}
			out = out*1000 + n
			continue
		}
		if down {
			n = -n
		}
		out = n
	}
	return out
}
