// Package dataload is the one loading lifecycle of the datasets loaded
// from files (providers.DatasetStore), and the catalogue of their kinds.
//
// A kind of dataset (census boundaries, flood maps, assessor datasets,
// OpenStreetMap extracts) is one reader of its files (a Kind's Open, in the
// package that knows the publisher: tiger, floodmap) plus the tables it
// writes (polygon layers, or its own: Stage and Drop) plus its entry in
// the catalogue (Register), which makes its "propertyd data load"
// subcommand and its help. Run does the rest the same way for every kind:
// it names the files (Fingerprint), begins or resumes the load under a
// generation no reader sees, writes the features a batch a transaction with
// the checkpoint, each refused feature to the failures file, publishes in
// one step, and drops the former generation a few thousand features a
// transaction (DropRetired). Every instance of a fleet sees the publication
// through the store's DatasetsVersion. The assessor datasets and the
// extracts load with their own work (the facts' merge into records, an
// extract's two passes: Kind.Command), on the same store lifecycle: their
// publications write the same table of datasets served and retire their
// former generations for the same DropRetired.
package dataload

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
)

// Store is what a load of polygons writes: the lifecycle and the polygon
// layers. Both database engines implement it.
type Store interface {
	providers.DatasetStore
	providers.PolygonStore
}

// Kind is one kind of dataset in the catalogue.
type Kind struct {
	// Name is the kind, as "propertyd data load" and "data status" name
	// it: providers.KindBoundaries, providers.KindFlood.
	Name string
	// Short says in a few words what loading the kind gives, for the
	// lists of commands; Summary says what its files are, for its help.
	Short, Summary string
	// Layers are the layers the kind writes: of polygons, a generation is
	// dropped from each (unless Drop is set).
	Layers []string
	// Group sorts the files of one command into datasets, each named; nil
	// makes each file a dataset named after it (Name). Run's callers pass
	// a name given by the operator instead, for all the files at once.
	Group func(files []string) ([]Input, error)
	// Open opens the files of one dataset and checks them (coordinate
	// system, the kind's columns) before anything is written: an error
	// here leaves what is served as it is. Nil for a kind that loads
	// through its own Command.
	Open func(in Input) (Source, error)
	// Flags, when set, declares the kind's own options of the command
	// every kind of Run has (an addresses file's state, its layout) on
	// fs, and returns the Open that reads them once they are parsed: it
	// is used in place of Open. An error of that Open about an option is
	// told as the kind's refusal of the files, before anything is written.
	Flags func(fs *flag.FlagSet) func(in Input) (Source, error)
	// Stage writes one batch of Rows (Feature.Row) of one layer with the
	// checkpoint cp in one transaction, as PolygonStore.StagePolygons
	// writes polygons, and sets it on load; a batch of refused features
	// alone comes with no layer and no rows. Nil means the features are
	// polygons, written with StagePolygons.
	Stage func(ctx context.Context, st providers.DatasetStore, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, rows []any) error
	// Drop drops one retired generation of the dataset name from the
	// kind's tables, a few thousand rows a transaction (an error wrapping
	// providers.ErrKeep leaves it retired for a later drop). Nil means
	// PolygonStore.DropPolygons on each of Layers.
	Drop func(ctx context.Context, st providers.DatasetStore, name string, generation int64) error

	// Order places the kind in the lists of kinds (the catalogue, the
	// helps, the subcommands of "data load"): lower first, then by name.
	// The zero value puts a kind after those of the first releases
	// (parcels, osm), among the others by name.
	Order int
	// Command, when set, is the kind's own command line, for a kind whose
	// loads take more than files, a name, a failures file and -force
	// (a mapping, a preset, a polygon file) or do more than Run (the
	// facts' merge into records): the command line calls it with its
	// flag set, and runs what it returns once the flags are parsed. Nil
	// gives the kind the command every kind of Run has.
	Command func(fs *flag.FlagSet) Load
	// Usage and Help are the kind's own help, with Command: the
	// arguments after "propertyd data load NAME", and what it does, its
	// exit codes last. Empty, the help is made from Summary.
	Usage, Help string
}

// Input is the files of one dataset and its name.
type Input struct {
	Name  string
	Files []string
}

// Source streams the features of one dataset's files.
type Source interface {
	// Next returns the next feature; a *Rejected for one that cannot be
	// loaded (a broken geometry, an attribute of the wrong type), which
	// Run counts and writes to the failures file, going on with the next;
	// io.EOF after the last. Any other error stops the load.
	Next() (Feature, error)
	// Finish says what the dataset is, once every feature was read
	// (those a resumed load skipped included): its vintage, coverage and
	// meta (providers.Dataset's), and warnings for the operator. It
	// returns an error when the files hold no dataset of the kind after
	// all (no feature of a required layer).
	Finish() (providers.Dataset, []string, error)
	Close() error
}

// Feature is one feature of a layer, read from a file: a polygon, or,
// for a kind with its own Stage, a Row of its own type.
type Feature struct {
	Layer   string
	Polygon providers.LayerPolygon
	// Row is the feature of a kind with its own Stage, which the writer
	// hands it in batches; Size is its size in bytes, which a batch is cut
	// by (Options.BatchBytes).
	Row  any
	Size int
}

// size is what f counts for in a batch's bytes.
func (f Feature) size() int {
	if f.Row != nil {
		return f.Size
	}
	return len(f.Polygon.Shape)
}

// Rejected is a feature a Source refuses: it is skipped and written to
// the failures file.
type Rejected struct {
	File   string
	Index  int // the feature's position in its file, from 0
	Key    string
	Reason string
}

func (r *Rejected) Error() string {
	return fmt.Sprintf("%s: feature %d: %s", filepath.Base(r.File), r.Index, r.Reason)
}

var (
	catalogueMu sync.RWMutex
	catalogue   = map[string]Kind{}
)

// Register adds k to the catalogue; the packages that know the publishers
// call it from init. It panics on a kind registered twice or without
// Open.
func Register(k Kind) {
	catalogueMu.Lock()
	defer catalogueMu.Unlock()
	if k.Name == "" {
		panic("dataload: a kind needs a name")
	}
	if k.Open == nil && k.Flags == nil && k.Command == nil {
		panic("dataload: kind " + k.Name + " needs Open or Command")
	}
	if _, dup := catalogue[k.Name]; dup {
		panic("dataload: kind " + k.Name + " registered twice")
	}
	catalogue[k.Name] = k
}

// Kinds returns the catalogue, by Order, then by name.
func Kinds() []Kind {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	out := make([]Kind, 0, len(catalogue))
	for _, k := range catalogue {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Kind) int {
		if c := cmp.Compare(a.Order, b.Order); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Lookup returns the kind of that name.
func Lookup(name string) (Kind, bool) {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	k, ok := catalogue[name]
	return k, ok
}

// Name is a dataset's default name: the file's base name without its
// extensions ("tl_2020_11_tract" of tl_2020_11_tract.zip).
func Name(file string) string {
	base := filepath.Base(file)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// Datasets groups files into the datasets of k: one named name holding
// them all when name is given, else k.Group's, else one a file.
func (k Kind) Datasets(files []string, name string) ([]Input, error) {
	if name != "" {
		return []Input{{Name: name, Files: files}}, nil
	}
	if k.Group != nil {
		return k.Group(files)
	}
	out := make([]Input, len(files))
	for i, f := range files {
		out[i] = Input{Name: Name(f), Files: []string{f}}
	}
	return out, nil
}

// Options tune a Run.
type Options struct {
	// Failures is the path of the failures file (FailuresHeader); "" for
	// none.
	Failures string
	// Force loads the files even when the dataset is served from them.
	Force bool
	// Progress, when set, is told the features read so far and what is
	// going on; force asks for a redraw now.
	Progress func(features int64, phase string, force bool)
	// BatchBytes is how much WKB (or Rows, by their Size) one
	// transaction writes at most; 0 means 4 MiB. A batch also ends at
	// BatchFeatures features (0: 2,000) and where the layer changes.
	BatchBytes    int
	BatchFeatures int
}

// Result is what a Run did.
type Result struct {
	Dataset       providers.Dataset
	Read          int64 // features read, this run and the runs it resumed
	Vertices      int64 // points of the polygons this run wrote
	Warnings      []string
	Resumed       bool
	AlreadyLoaded bool // the dataset is served from these files already
}

// Refused is the error Run returns when the kind's Open refused the files
// (not of the kind, unreadable, in a projected coordinate system): nothing
// was written, and what is served stays as it was.
type Refused struct{ Err error }

func (r *Refused) Error() string { return r.Err.Error() }
func (r *Refused) Unwrap() error { return r.Err }

// ErrEmpty is the cause of Run's error when the files hold no feature of
// the kind that could be loaded: nothing is published.
var ErrEmpty = errors.New("no feature could be loaded")

// Run loads in as a dataset of kind k into st (see the package
// documentation): a kind of polygons (no Stage) needs st to be a
// providers.PolygonStore too. A run cut short at any point is resumed by
// running it again with the same files: the features already written are
// skipped, none is written twice, and the failures file is cut back to
// match.
func Run(ctx context.Context, st providers.DatasetStore, k Kind, in Input, opts Options) (Result, error) {
	var res Result
	start := time.Now()
	if k.Open == nil {
		return res, fmt.Errorf("dataload: kind %s loads through its own command, not Run", k.Name)
	}
	stage, err := stager(st, k)
	if err != nil {
		return res, err
	}
	src, err := k.Open(in)
	if err != nil {
		return res, &Refused{Err: err}
	}
	defer src.Close()
	fp, err := Fingerprint(in.Files, []byte(k.Name), true)
	if err != nil {
		return res, err
	}
	if opts.Force {
		fp += "+" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	load, served, err := st.BeginDataset(ctx, k.Name, in.Name, fp)
	if err != nil {
		return res, err
	}
	// What an earlier run left retired (it was cut short after publishing,
	// or BeginDataset just abandoned a load of other files) is dropped
	// before this one writes.
	if err := DropRetired(ctx, st, k); err != nil {
		return res, err
	}
	if load.Generation == 0 {
		res.AlreadyLoaded = true
		res.Dataset = *served
		return res, nil
	}
	res.Resumed = load.Resumed
	fail, err := OpenFailures(opts.Failures, load.FailuresSize)
	if err != nil {
		return res, err
	}
	defer fail.Close()

	// The features a resumed load skips are counted before the writer
	// starts: it moves load's checkpoint as its batches commit.
	resumeAfter, read, failed := load.Done, int64(0), load.Failed
	w := newWriter(ctx, stage, &load, fail, opts)
	for {
		f, err := src.Next()
		if err == io.EOF {
			break
		}
		read++
		if read%10000 == 0 && opts.Progress != nil {
			opts.Progress(read, "loading "+in.Name, false)
		}
		skip := read <= resumeAfter
		var rej *Rejected
		switch {
		case errors.As(err, &rej):
			if !skip {
				fail.Write(rej.File, rej.Index+1, rej.Key, false, rej.Reason)
				failed++
				w.counted(read, failed)
			}
			continue
		case err != nil:
			w.stop()
			return res, err
		case skip:
			continue
		}
		if err := w.add(f, read, failed); err != nil {
			w.stop()
			return res, err
		}
	}
	if err := w.flush(read, failed); err != nil {
		w.stop()
		return res, err
	}
	if err := w.wait(); err != nil {
		return res, err
	}
	res.Read, res.Vertices = read, w.vertices
	d, warnings, err := src.Finish()
	if err != nil {
		return res, err
	}
	res.Warnings = warnings
	d.Rows, d.Failed = read-failed, failed
	d.FailuresFile, d.Took = opts.Failures, time.Since(start)
	if abs, err := filepath.Abs(opts.Failures); err == nil && opts.Failures != "" {
		d.FailuresFile = abs
	}
	if d.Rows == 0 {
		return res, fmt.Errorf("%s: %w (%d refused; see the failures file)", strings.Join(in.Files, ", "), ErrEmpty, failed)
	}
	if opts.Progress != nil {
		opts.Progress(read, "publishing "+in.Name, true)
	}
	res.Dataset, err = st.PublishDataset(ctx, load, d)
	if err != nil {
		return res, err
	}
	if opts.Progress != nil {
		opts.Progress(read, "dropping the former "+in.Name, true)
	}
	return res, DropRetired(ctx, st, k)
}

// stageFunc writes one batch of a load (Kind.Stage's shape).
type stageFunc func(ctx context.Context, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, rows []any) error

// stager is how a load of k writes its batches into st: k.Stage, else
// polygons through st's PolygonStore.
func stager(st providers.DatasetStore, k Kind) (stageFunc, error) {
	if k.Stage != nil {
		return func(ctx context.Context, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, rows []any) error {
			return k.Stage(ctx, st, load, cp, layer, rows)
		}, nil
	}
	ps, ok := st.(providers.PolygonStore)
	if !ok {
		return nil, fmt.Errorf("dataload: kind %s writes polygons, and the store keeps no polygon layers", k.Name)
	}
	return func(ctx context.Context, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, rows []any) error {
		polys := make([]providers.LayerPolygon, len(rows))
		for i, r := range rows {
			polys[i] = r.(providers.LayerPolygon)
		}
		return ps.StagePolygons(ctx, load, cp, layer, polys)
	}, nil
}

// DropRetired drops every retired generation of kind k (RetiredGenerations)
// from the kind's tables (k.Drop, else each of its polygon layers), then
// forgets it: a generation the kind keeps for now (providers.ErrKeep) stays
// retired for the next drop. Every load of every kind drops its former
// generations through it, once it has published, and what an earlier run
// left retired once it has begun.
func DropRetired(ctx context.Context, st providers.DatasetStore, k Kind) error {
	gens, err := st.RetiredGenerations(ctx, k.Name)
	if err != nil {
		return err
	}
	drop := k.Drop
	if drop == nil {
		drop = dropPolygons(k.Layers)
	}
	for _, g := range gens {
		err := drop(ctx, st, g.Name, g.Generation)
		if errors.Is(err, providers.ErrKeep) {
			continue
		}
		if err != nil {
			return err
		}
		if err := st.ForgetGeneration(ctx, k.Name, g.Name, g.Generation); err != nil {
			return err
		}
	}
	return nil
}

// dropPolygons is the drop of a kind of polygons: the generation from
// each of layers.
func dropPolygons(layers []string) func(ctx context.Context, st providers.DatasetStore, name string, generation int64) error {
	return func(ctx context.Context, st providers.DatasetStore, name string, generation int64) error {
		ps, ok := st.(providers.PolygonStore)
		if !ok {
			return errors.New("dataload: the store keeps no polygon layers to drop a generation from")
		}
		for _, layer := range layers {
			if err := ps.DropPolygons(ctx, layer, generation); err != nil {
				return err
			}
		}
		return nil
	}
}

// Vertices is the number of points of a two-dimensional WKB polygon or
// multipolygon, from its length: what a load reports its rate in.
func Vertices(wkb []byte) int64 { return int64(len(wkb)) / 16 }

// Bounds is the box of the features a Source has seen, for its
// dataset's Coverage. The zero value has seen none.
type Bounds struct {
	b   orb.Bound
	set bool
}

// Add widens the box to hold b.
func (x *Bounds) Add(b orb.Bound) {
	if x.set {
		x.b = x.b.Union(b)
	} else {
		x.b, x.set = b, true
	}
}

// BBox is the box as a coverage; the zero BBox when none was added.
func (x Bounds) BBox() providers.BBox {
	if !x.set {
		return providers.BBox{}
	}
	return providers.BBox{West: x.b.Min.Lon(), South: x.b.Min.Lat(), East: x.b.Max.Lon(), North: x.b.Max.Lat()}
}
