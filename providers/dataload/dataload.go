// Package dataload is the one loading lifecycle of the datasets loaded
// from files (providers.DatasetStore), and the catalogue of their kinds.
//
// A kind of dataset (census boundaries, flood maps) is one reader of its
// files (a Kind's Open, in the package that knows the publisher: tiger,
// floodmap) plus the tables it writes (polygon layers) plus its entry in
// the catalogue (Register). Run does the rest the same way for every kind:
// it names the files (Fingerprint), begins or resumes the load under a
// generation no reader sees, writes the features a batch a transaction with
// the checkpoint, each refused feature to the failures file, publishes in
// one step, and drops the former generation a few thousand features a
// transaction. Every instance of a fleet sees the publication through the
// store's DatasetsVersion.
package dataload

import (
	"context"
	"errors"
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

// Store is what a load writes: the lifecycle and the polygon layers.
// Both database engines implement it.
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
	// Layers are the polygon layers the kind writes: a generation is
	// dropped from each.
	Layers []string
	// Group sorts the files of one command into datasets, each named; nil
	// makes each file a dataset named after it (Name). Run's callers pass
	// a name given by the operator instead, for all the files at once.
	Group func(files []string) ([]Input, error)
	// Open opens the files of one dataset and checks them (coordinate
	// system, the kind's columns) before anything is written: an error
	// here leaves what is served as it is.
	Open func(in Input) (Source, error)
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

// Feature is one polygon of a layer, read from a file.
type Feature struct {
	Layer   string
	Polygon providers.LayerPolygon
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
	if k.Name == "" || k.Open == nil {
		panic("dataload: a kind needs a name and Open")
	}
	if _, dup := catalogue[k.Name]; dup {
		panic("dataload: kind " + k.Name + " registered twice")
	}
	catalogue[k.Name] = k
}

// Kinds returns the catalogue, by name.
func Kinds() []Kind {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	out := make([]Kind, 0, len(catalogue))
	for _, k := range catalogue {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Kind) int { return strings.Compare(a.Name, b.Name) })
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
	// BatchBytes is how much WKB one transaction writes at most; 0 means
	// 4 MiB. A batch also ends at BatchFeatures features (0: 2,000) and
	// where the layer changes.
	BatchBytes    int
	BatchFeatures int
}

// Result is what a Run did.
type Result struct {
	Dataset       providers.Dataset
	Read          int64 // features read, this run and the runs it resumed
	Vertices      int64 // points of the features this run wrote
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
// documentation). A run cut short at any point is resumed by running it
// again with the same files: the features already written are skipped,
// none is written twice, and the failures file is cut back to match.
func Run(ctx context.Context, st Store, k Kind, in Input, opts Options) (Result, error) {
	var res Result
	start := time.Now()
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
	if err := dropRetired(ctx, st, k); err != nil {
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
	w := newWriter(ctx, st, &load, fail, opts)
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
	return res, dropRetired(ctx, st, k)
}

// dropRetired drops every retired generation of k from each of its
// layers, then forgets it.
func dropRetired(ctx context.Context, st Store, k Kind) error {
	gens, err := st.RetiredGenerations(ctx, k.Name)
	if err != nil {
		return err
	}
	for _, g := range gens {
		for _, layer := range k.Layers {
			if err := st.DropPolygons(ctx, layer, g); err != nil {
				return err
			}
		}
		if err := st.ForgetGeneration(ctx, k.Name, g); err != nil {
			return err
		}
	}
	return nil
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
