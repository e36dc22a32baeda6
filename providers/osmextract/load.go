package osmextract

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/planar"
	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"
	"golang.org/x/sync/errgroup"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/assessor"
	"github.com/propertyd/propertyd/providers/dataload"
)

// DefaultBatch is how many features one transaction writes, with its
// checkpoint.
const DefaultBatch = 20000

// Options tunes Load. The zero value loads the file under its own name.
type Options struct {
	// Name is the extract's name; "" means NameOf the file.
	Name string
	// Procs is how many goroutines decode the file's relations pass; 0
	// means GOMAXPROCS. The pass that loads the features decodes a PBF
	// file with one, which keeps the nodes that give no feature as it
	// decodes them (nodeAside): on two cores that cost less than the
	// parallel decoding it gives up (a million-feature load: 500 MB less
	// allocated, 1.5 s less CPU on SQLite).
	Procs int
	// Batch is how many features a transaction writes; 0 means
	// DefaultBatch.
	Batch int
	// TempDir is where the nodes' coordinates are kept while the file is
	// read (a sparse file of 8 bytes a node id, unlinked at once); ""
	// means the system's temporary directory.
	TempDir string
	// Boundary, when set, is the extract's bounding polygon (ReadPoly):
	// the coverage is then the polygon (within the file's bounding box),
	// else the bounding box alone. The same file with another polygon is
	// another load.
	Boundary *Boundary
	// Progress, when set, is told the elements read so far in the
	// current phase and what the phase is; force is true at a phase's end.
	Progress func(elements int64, phase string, force bool)
}

// Result is what a load did.
type Result struct {
	// Extract is the extract served once the load is published (the one
	// already served when AlreadyLoaded).
	Extract providers.OSMExtract
	// AlreadyLoaded is true when the file was the extract served: nothing
	// was read or written.
	AlreadyLoaded bool
	// Resumed is true when the load went on from a checkpoint.
	Resumed bool
	// Elements counts the nodes, ways and relations of the file.
	Elements int64
	// Facts is the facts dataset of the buildings (FactsDataset), when the
	// store keeps facts and the load published it.
	Facts *providers.FactSet
}

// ErrFormat is the cause of the error Load returns for a file that is not
// a readable extract: not PBF (or OSM XML), truncated, or not sorted.
// Nothing of the extract served changes.
var ErrFormat = errors.New("not a readable OpenStreetMap extract")

// NameOf is the name an extract is loaded under by default: the file's
// base name without .osm.pbf, .pbf or .osm.
func NameOf(file string) string {
	base := filepath.Base(file)
	for _, ext := range []string{".osm.pbf", ".pbf", ".osm"} {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	return base
}

// Load loads the extract file into st, or resumes its killed load, and
// publishes it in place of the extract of the same name (see the package
// doc). A file already served is not read again. It returns an error
// wrapping ErrFormat for a file it cannot read, and the store's errors
// (KindUnavailable, KindInternal...); features written before an error stay
// under the pending load, and running Load again with the same file
// resumes it.
func Load(ctx context.Context, st providers.OSMStore, file string, opts Options) (Result, error) {
	if opts.Name == "" {
		opts.Name = NameOf(file)
	}
	if opts.Procs <= 0 {
		opts.Procs = runtime.GOMAXPROCS(0)
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	src := source{path: file, xml: strings.HasSuffix(file, ".osm"), procs: opts.Procs}
	hdr, err := src.header(ctx)
	if err != nil {
		return Result{}, err
	}
	fp, err := fingerprint(file)
	if err != nil {
		return Result{}, err
	}
	osmFP := fp
	if opts.Boundary != nil {
		if hdr.bounds != nil {
			if _, err := opts.Boundary.within(bbox(hdr.bounds)); err != nil {
				return Result{}, err
			}
		}
		osmFP = opts.Boundary.fingerprint(fp)
	}
	start := time.Now()
	load, served, err := st.BeginOSM(ctx, opts.Name, osmFP)
	if err != nil {
		return Result{}, err
	}
	if err := dropRetired(ctx, st, Extracts); err != nil {
		return Result{}, err
	}
	if load.Generation == 0 && served != nil {
		return Result{Extract: *served, AlreadyLoaded: true}, nil
	}
	l := &loader{st: st, src: src, opts: opts, load: load, bounds: hdr.bounds, timestamp: hdr.timestamp,
		memberWays: map[int64]struct{}{}, memberGeo: map[int64]orb.Ring{}, memberBound: map[int64]orb.Bound{}}
	if fs, ok := st.(providers.OSMFactStore); ok {
		// The buildings' facts are a facts dataset of their own, made
		// from the buildings once they are all written, with its own
		// checkpoint, and published first: an extract served has its
		// facts published too.
		fload, _, err := fs.BeginFacts(ctx, FactsDataset(opts.Name), fp)
		if err != nil {
			return Result{}, err
		}
		if err := dropRetired(ctx, st, assessor.Parcels); err != nil {
			return Result{}, err
		}
		if fload.Generation != 0 {
			l.facts, l.fload = fs, fload
		}
	}
	if err := l.readRelations(ctx); err != nil {
		return Result{}, err
	}
	nodes, err := newNodeFile(opts.TempDir)
	if err != nil {
		return Result{}, err
	}
	defer nodes.close()
	l.nodes = nodes
	if err := l.loadAll(ctx); err != nil {
		return Result{}, err
	}
	if l.bounds == nil {
		return Result{}, fmt.Errorf("%s: %w: it holds no nodes", file, ErrFormat)
	}
	// The features are all written: the facts made of them are published,
	// and the store settles the features (statistics, counts). A store
	// that writes side by side settles them beside the facts' work, most
	// of what is left of a load, which leaves a core of its server idle
	// in turns (PostgreSQL: 0.4 s of a million features' 10 s); one with
	// a single writer (SQLite) after it.
	settled := l.load
	g, gctx := errgroup.WithContext(ctx)
	if l.writers() == 1 {
		g.SetLimit(1)
	}
	var facts *providers.FactSet
	if l.facts != nil {
		g.Go(func() error {
			set, err := l.publishFacts(gctx)
			facts = set
			return err
		})
	}
	g.Go(func() error { return st.SettleOSM(gctx, &settled) })
	if err := g.Wait(); err != nil {
		return Result{}, err
	}
	// The facts' former generation goes first: its buildings are the
	// former extract's, which then can go too.
	if err := dropRetired(ctx, st, assessor.Parcels); err != nil {
		return Result{}, err
	}
	x := providers.OSMExtract{Coverage: bbox(l.bounds), Timestamp: l.timestamp, Skipped: l.skipped}
	if opts.Boundary != nil {
		if x.Coverage, err = opts.Boundary.within(x.Coverage); err != nil {
			return Result{}, err
		}
		x.Boundary = opts.Boundary.WKB()
	}
	x.Took = time.Since(start)
	x, err = st.PublishOSM(ctx, settled, x)
	if err != nil {
		return Result{}, err
	}
	if err := dropRetired(ctx, st, Extracts); err != nil {
		return Result{}, err
	}
	return Result{Extract: x, Resumed: load.Resumed, Elements: l.elements, Facts: facts}, nil
}

// dropRetired drops the retired generations of k, where st keeps the
// lifecycle (providers.DatasetStore, as both engines do).
func dropRetired(ctx context.Context, st providers.OSMStore, k dataload.Kind) error {
	if ds, ok := st.(providers.DatasetStore); ok {
		return dataload.DropRetired(ctx, ds, k)
	}
	return nil
}

// publishFacts makes the written buildings the rows of the extract's facts
// load, unless its checkpoint says it has them, and publishes it.
func (l *loader) publishFacts(ctx context.Context) (*providers.FactSet, error) {
	if l.fload.Done < l.elements {
		l.progress(l.elements, "the buildings' facts", true)
		if err := l.facts.PutOSMFacts(ctx, l.load, &l.fload, l.elements); err != nil {
			return nil, err
		}
	}
	set, err := l.facts.PublishFacts(ctx, l.fload, providers.FactSet{Source: FactsSource, Priority: FactsPriority,
		AsOf: l.timestamp.UTC().Format("2006-01-02")}, func(done, total int) {
		if l.opts.Progress != nil {
			l.opts.Progress(int64(done), "matching records", done == total)
		}
	})
	if err != nil {
		return nil, err
	}
	return &set, nil
}

func bbox(b *osm.Bounds) providers.BBox {
	return providers.BBox{West: b.MinLon, South: b.MinLat, East: b.MaxLon, North: b.MaxLat}
}

// fingerprint names a file (dataload.Fingerprint): its base name, its
// size and the SHA-256 of its first and last MiB (a newer extract differs
// in its header's timestamp and its length).
func fingerprint(file string) (string, error) {
	return dataload.Fingerprint([]string{file}, nil, true)
}

// source is the file, read once per pass.
type source struct {
	path  string
	xml   bool
	procs int
}

// header is what the file says of itself before its elements.
type header struct {
	bounds    *osm.Bounds
	timestamp time.Time
}

func (s source) header(ctx context.Context) (header, error) {
	if s.xml {
		return header{}, nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	sc := osmpbf.New(ctx, f, 1)
	defer sc.Close()
	h, err := sc.Header()
	if err != nil {
		return header{}, fmt.Errorf("%s: %w: %v", s.path, ErrFormat, err)
	}
	out := header{timestamp: h.ReplicationTimestamp}
	if b := h.Bounds; b != nil && b.MinLat < b.MaxLat && b.MinLon < b.MaxLon {
		out.bounds = &osm.Bounds{MinLat: round7(b.MinLat), MaxLat: round7(b.MaxLat), MinLon: round7(b.MinLon), MaxLon: round7(b.MaxLon)}
	}
	return out, nil
}

// scan reads the file from its start, skipping what the pass does not
// need (PBF only: an XML file is read whole, the caller ignores the rest).
//
// aside, when set, sees every node of a PBF file as it is decoded and
// keeps from the scan those it returns false for (nodeAside); the file
// is then decoded by one goroutine, so that aside sees the elements in
// the file's order. An XML file is read whole: aside is not called.
func (s source) scan(ctx context.Context, nodes, ways, relations bool, aside *nodeAside) (osm.Scanner, func(), error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, nil, err
	}
	if s.xml {
		sc := osmxml.New(ctx, f)
		return sc, func() { sc.Close(); f.Close() }, nil
	}
	procs := s.procs
	if aside != nil {
		procs = 1
	}
	sc := osmpbf.New(ctx, f, procs)
	sc.SkipNodes, sc.SkipWays, sc.SkipRelations = !nodes, !ways, !relations
	if aside != nil {
		sc.FilterNode, sc.FilterWay, sc.FilterRelation = aside.node, aside.other, aside.relation
	}
	return sc, func() { sc.Close(); f.Close() }, nil
}

// nodeAside handles, as the decoder reads them, the nodes of a PBF file
// that give no feature (most of a file: the vertices of ways). Their
// coordinates, the bounds they grow and the newest timestamp are kept as
// readAll would keep them, and they are never made into the scanner's
// objects: a million-feature extract's 3.2 million vertices were a fifth
// of what its load allocated, each handed to readAll to be dropped.
//
// The element count stays the file's: for each node it lets through,
// aside queues the node's place among the file's elements (readAll takes
// it as the node comes out of the scanner, in the same order: one decoder
// goroutine), and the first way or relation comes after every node.
type nodeAside struct {
	l *loader

	// nodes is the count of nodes seen. readAll reads it once a way or
	// relation came out of the scanner: every node before it was decoded
	// by then, and a node after it is not counted (the load stops for it).
	nodes atomic.Int64
	// Written by the decoder's goroutine; read by readAll once the scan
	// ended.
	after bool // a way or relation was decoded
	late  bool // a node came after one: the file is not sorted

	mu   sync.Mutex
	kept []int64 // the element number of each node let through, not yet taken
}

func (a *nodeAside) node(n *osm.Node) bool {
	if a.after {
		// A node after a way or relation: the load stops for it. readAll
		// may be reading coordinates at this moment, so nothing of the
		// loader's is touched.
		a.late = true
		return false
	}
	a.l.coordsOf(n)
	i := a.nodes.Add(1) - 1
	if k := classify(n.Tags); k.category == "" && !k.address {
		return false
	}
	a.mu.Lock()
	a.kept = append(a.kept, i)
	a.mu.Unlock()
	return true
}

func (a *nodeAside) other(*osm.Way) bool         { a.after = true; return true }
func (a *nodeAside) relation(*osm.Relation) bool { a.after = true; return true }

// take is the element number of the next node let through; ok is false
// when none was (a node that reached the scanner some other way).
func (a *nodeAside) take() (n int64, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.kept) == 0 {
		return 0, false
	}
	n = a.kept[0]
	a.kept = a.kept[1:]
	return n, true
}

// seenAll is the count of the file's nodes, once a way or relation came
// out of the scanner or the scan ended.
func (a *nodeAside) seenAll() int64 { return a.nodes.Load() }

// loader is one load's state across its passes.
type loader struct {
	st   providers.OSMStore
	src  source
	opts Options
	load providers.OSMLoad

	// facts, when the store keeps facts, makes the buildings' facts
	// (BuildingFacts, kept on each building) the dataset FactsDataset,
	// under fload.
	facts providers.OSMFactStore
	fload providers.FactLoad
	now   time.Time

	// memberWays are the ways the kept relations are made of. memberGeo
	// holds the closed rings of member ways and memberBound the bounding
	// box of every member way, once read.
	memberWays  map[int64]struct{}
	memberGeo   map[int64]orb.Ring
	memberBound map[int64]orb.Bound

	// nodes keeps every node's coordinates, on disk; nodesErr is the
	// first error reading or writing it.
	nodes    *nodeFile
	nodesErr error

	bounds    *osm.Bounds // the header's, else grown over the nodes
	grow      bool
	timestamp time.Time
	newest    time.Time
	elements  int64
	told      int64 // the elements last told to Options.Progress
	skipped   int64
	batch     providers.OSMBatch

	ring orb.Ring  // way's, used again
	wkb  wkbChunks // the footprints' WKB
}

// wkbChunks writes footprints as WKB into chunks of 64 KiB, each
// footprint a slice of one: a footprint's three allocations (its buffer,
// the buffer's header, an encoder) were a twentieth of a load's. A chunk
// is never written again once full; it goes when the batches holding its
// footprints are written.
type wkbChunks struct {
	enc   *wkb.Encoder
	chunk []byte
}

func (w *wkbChunks) Write(p []byte) (int, error) {
	w.chunk = append(w.chunk, p...)
	return len(p), nil
}

// marshal is g's WKB (orb's, as wkb.Marshal writes it), with no room past
// it.
func (w *wkbChunks) marshal(g orb.Geometry) ([]byte, error) {
	const chunk, most = 64 << 10, 4 << 10
	if w.enc == nil {
		w.enc = wkb.NewEncoder(w)
	}
	if cap(w.chunk)-len(w.chunk) < most {
		// A footprint larger than the room left lands in a chunk of its
		// own, copied whole by append.
		w.chunk = make([]byte, 0, chunk)
	}
	start := len(w.chunk)
	if err := w.enc.Encode(g); err != nil {
		w.chunk = w.chunk[:start]
		return nil, err
	}
	return w.chunk[start:len(w.chunk):len(w.chunk)], nil
}

func (l *loader) progress(n int64, phase string, force bool) {
	// Every 50,000 elements: the count jumps over the nodes that give no
	// feature (nodeAside), so a step is when it passes a multiple.
	if l.opts.Progress != nil && (force || n/50_000 != l.told/50_000) {
		l.told = n
		l.opts.Progress(n, phase, force)
	}
}

// readRelations is the first pass: the members of the relations kept.
func (l *loader) readRelations(ctx context.Context) error {
	const phase = "reading relations"
	sc, done, err := l.src.scan(ctx, false, false, true, nil)
	if err != nil {
		return err
	}
	defer done()
	var n int64
	for sc.Scan() {
		r, ok := sc.Object().(*osm.Relation)
		if !ok {
			continue
		}
		n++
		l.progress(n, phase, false)
		if !keepRelation(r, classify(r.Tags)) {
			continue
		}
		for _, m := range r.Members {
			if m.Type == osm.TypeWay {
				l.memberWays[m.Ref] = struct{}{}
			}
		}
	}
	l.progress(n, phase, true)
	return l.scanErr(sc)
}

// keepRelation reports whether a relation of kinds k is kept: a place of
// any shape, or a building mapped as a multipolygon (with its address,
// when it has one).
func keepRelation(r *osm.Relation, k kinds) bool {
	return k.category != "" || (r.Tags.Find("type") == "multipolygon" && k.building != "")
}

func (l *loader) scanErr(sc osm.Scanner) error {
	if err := sc.Err(); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("%s: %w: %v", l.src.path, ErrFormat, err)
	}
	return nil
}

// coord returns node id's coordinates, if it was read.
func (l *loader) coord(id int64) (orb.Point, bool) {
	p, ok, err := l.nodes.get(id)
	if err != nil && l.nodesErr == nil {
		l.nodesErr = err
	}
	return p, ok
}

// loadAll is the second pass: every element in file order, nodes first,
// features written from the checkpoint on. The batches are written by a
// goroutine of their own (writeBatches) while the file is read on, one
// batch ahead at most: the database and the decoding then run side by
// side on two cores rather than in turn.
func (l *loader) loadAll(ctx context.Context) error {
	const phase = "loading"
	batches := make(chan pending, 1)
	// stopped is closed when the writer fails: the reader stops at its
	// next batch. (The reader's context is not canceled for it: osmpbf's
	// decoder races with its own goroutines when its context ends.)
	stopped := make(chan struct{})
	written := make(chan error, 1)
	go func() {
		err := l.writeBatches(ctx, batches)
		if err != nil {
			close(stopped)
		}
		written <- err
	}()
	err := l.readAll(ctx, batches, stopped)
	close(batches)
	if werr := <-written; werr != nil {
		return werr // the cause; the reader stopped for it
	}
	if err != nil {
		return err
	}
	l.progress(l.elements, phase, true)
	if l.timestamp.IsZero() {
		l.timestamp = l.newest
	}
	return nil
}

// pending is a batch handed to writeBatches, with the elements read when
// it was cut (its checkpoint).
type pending struct {
	batch    providers.OSMBatch
	elements int64
}

// sizedAfter is an empty batch with room for as many features of each
// kind as b holds, and an eighth more: the next batch is mostly of the
// same kinds (the file's nodes come first, then its ways). Grown from
// nothing, a batch's slices were copied about twice over, a quarter of
// what a load allocated.
func sizedAfter(b providers.OSMBatch) providers.OSMBatch {
	room := func(n int) int { return n + n/8 }
	return providers.OSMBatch{
		Places:    make([]providers.OSMPlace, 0, room(len(b.Places))),
		Buildings: make([]providers.OSMBuilding, 0, room(len(b.Buildings))),
		Addresses: make([]providers.OSMAddress, 0, room(len(b.Addresses))),
	}
}

// errStopped is readAll's error when the writer stopped: the writer's
// error is the one returned.
var errStopped = errors.New("the batches' writer stopped")

// readAll reads the file, handing batches to out; it stops when ctx ends
// or stopped is closed.
func (l *loader) readAll(ctx context.Context, out chan<- pending, stopped <-chan struct{}) error {
	const phase = "loading"
	l.grow = l.bounds == nil
	var aside *nodeAside // the PBF decoder's filter; an XML file is read whole
	if !l.src.xml {
		aside = &nodeAside{l: l}
	}
	sc, done, err := l.src.scan(ctx, true, true, true, aside)
	if err != nil {
		return err
	}
	defer done()
	// countNodes moves the count past every node, those set aside
	// included, once the first way or relation (or the file's end) shows
	// they were all decoded.
	nodesCounted := false
	countNodes := func() {
		if aside != nil && !nodesCounted {
			l.elements, nodesCounted = aside.seenAll(), true
		}
	}
	// The file must keep this order, 0 nodes, 1 ways, 2 relations, each
	// kind in order of id and each element once (as osmium's own commands
	// read a file): a load then writes each feature once, which the stores
	// count on (they keep no unique key of an element to merge a second).
	order := 0
	last := int64(math.MinInt64) // the id of the element before, of kind order
	l.now = time.Now()
	// The checkpoint as the load began: the writer moves the load's as
	// it commits.
	from := l.load.Done
	send := func() error {
		select {
		case out <- pending{batch: l.batch, elements: l.elements}:
			l.batch = sizedAfter(l.batch)
			return nil
		case <-stopped:
			return errStopped
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for sc.Scan() {
		var (
			rank int
			id   int64
		)
		switch o := sc.Object().(type) {
		case *osm.Bounds:
			if l.grow && o.MinLat < o.MaxLat && o.MinLon < o.MaxLon {
				l.bounds, l.grow = o, false
			}
			continue
		case *osm.Node:
			rank, id = 0, int64(o.ID)
			if aside != nil {
				n, ok := aside.take()
				if !ok {
					return fmt.Errorf("%s: %w: node %d was not decoded as the file's nodes are", l.src.path, ErrFormat, o.ID)
				}
				l.elements = n
			} else {
				l.coordsOf(o)
			}
			l.node(o, l.elements >= from)
		case *osm.Way:
			rank, id = 1, int64(o.ID)
			countNodes()
			l.way(o, l.elements >= from)
			l.seen(o.Timestamp)
		case *osm.Relation:
			rank, id = 2, int64(o.ID)
			countNodes()
			l.relation(o, l.elements >= from)
			l.seen(o.Timestamp)
		default:
			continue
		}
		if rank < order || rank == order && id <= last {
			return l.unsorted()
		}
		order, last = rank, id
		l.elements++
		l.progress(l.elements, phase, false)
		if l.batch.Len() >= l.opts.Batch {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if err := l.scanErr(sc); err != nil {
		return err
	}
	countNodes() // a file of nodes alone
	if aside != nil && aside.late {
		return l.unsorted()
	}
	if l.nodesErr != nil {
		return l.nodesErr
	}
	return send()
}

// unsorted is the error of a file whose elements are out of order.
func (l *loader) unsorted() error {
	return fmt.Errorf("%s: %w: its elements are not sorted nodes, then ways, then relations, each in order of id and each once "+
		"(osmium sort puts a file in order, osmium merge makes one file of overlapping ones; a history file is no extract)",
		l.src.path, ErrFormat)
}

func (l *loader) seen(t time.Time) {
	if t.After(l.newest) {
		l.newest = t
	}
}

// writers is how many of the load's writes the store takes at once
// (providers.OSMWriters).
func (l *loader) writers() int {
	if w, ok := l.st.(providers.OSMWriters); ok {
		return max(w.OSMWriters(), 1)
	}
	return 1
}

// writeBatches writes each batch with the checkpoint of the elements read
// when it was cut, committed in order; a batch of nothing still moves the
// checkpoint. It alone changes l.load until the load is read. Where the
// store writes several batches best side by side (providers.OSMWriters),
// it writes that many at once, each batch's commit waiting for the one
// before it (OSMBatch.Turn): a batch's checkpoint never passes one not
// committed. A batch that fails fails those after it (their turn never
// comes), and none before it: those commit, and the load resumes after
// the last of them.
func (l *loader) writeBatches(ctx context.Context, in <-chan pending) error {
	// One writer is the same path with one slot: a batch's turn has come
	// by the time it gets the slot.
	writers := l.writers()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error                 // the first batch's failure: the cause
		stop  = make(chan struct{}) // closed with first
		slots = make(chan struct{}, writers)
		from  = l.load.Done // then the checkpoint of the last batch handed on
		last  = from
	)
	// prev is the turn of the batch before the next one: ok is closed when
	// it committed, failed when it did not.
	type turn struct{ ok, failed chan struct{} }
	prev := turn{ok: make(chan struct{}), failed: make(chan struct{})}
	close(prev.ok)
read:
	for p := range in {
		if p.elements <= from {
			continue // committed before: a resumed load's, or the last batch again, empty
		}
		select {
		case slots <- struct{}{}:
		case <-stop:
			break read // the reader stops when this returns
		}
		from = p.elements
		before, cur := prev, turn{ok: make(chan struct{}), failed: make(chan struct{})}
		prev = cur
		b := p.batch
		b.Turn = func(ctx context.Context) error {
			select {
			case <-before.ok:
				return nil
			case <-before.failed:
				return errBatchBefore
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		load := l.load
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			err := l.st.PutOSM(ctx, &load, b, p.elements)
			mu.Lock()
			if err != nil && first == nil {
				first = err
				close(stop)
			}
			if err == nil {
				last = max(last, p.elements)
			}
			mu.Unlock()
			if err != nil {
				close(cur.failed)
				return
			}
			close(cur.ok)
		}()
	}
	wg.Wait()
	l.load.Done = last
	return first
}

// errBatchBefore is a batch's failure when the batch before it failed.
var errBatchBefore = errors.New("a batch before this one failed")

func ref(typ string, id int64, version int) providers.OSMRef {
	return providers.OSMRef{Type: typ, ID: id, Version: version}
}

// coordsOf keeps what every node gives the load, whether or not it is a
// feature: its coordinates for the ways, the bounds it grows, its time.
// For a PBF file it runs on the decoder's goroutine (nodeAside), the only
// one touching these until the nodes are read.
func (l *loader) coordsOf(n *osm.Node) {
	lat, lon := round7(n.Lat), round7(n.Lon)
	if err := l.nodes.put(int64(n.ID), lat, lon); err != nil && l.nodesErr == nil {
		l.nodesErr = err
	}
	if l.grow {
		if l.bounds == nil {
			l.bounds = &osm.Bounds{MinLat: lat, MaxLat: lat, MinLon: lon, MaxLon: lon}
		}
		b := l.bounds
		b.MinLat, b.MaxLat = min(b.MinLat, lat), max(b.MaxLat, lat)
		b.MinLon, b.MaxLon = min(b.MinLon, lon), max(b.MaxLon, lon)
	}
	l.seen(n.Timestamp)
}

// node adds the features of a node whose coordinates are kept.
func (l *loader) node(n *osm.Node, emit bool) {
	lat, lon := round7(n.Lat), round7(n.Lon)
	k := classify(n.Tags)
	if !emit || (k.category == "" && !k.address) {
		return
	}
	r, at := ref("node", int64(n.ID), n.Version), providers.Point{Lat: lat, Lng: lon}
	if k.category != "" {
		l.batch.Places = append(l.batch.Places, place(r, k, n.Tags, at))
	}
	if k.address {
		l.batch.Addresses = append(l.batch.Addresses, address(r, n.Tags, at))
	}
}

func (l *loader) way(w *osm.Way, emit bool) {
	_, member := l.memberWays[int64(w.ID)]
	k := classify(w.Tags)
	if !member && !k.any() {
		return
	}
	// The ring is the loader's, used again for the next way: only its
	// WKB and its box stay (emit), or a copy for a relation's member.
	ring := l.ring[:0]
	defer func() { l.ring = ring[:0] }()
	broken := len(w.Nodes) == 0
	for _, wn := range w.Nodes {
		p, ok := l.coord(int64(wn.ID))
		if !ok {
			broken = true
			break
		}
		ring = append(ring, p)
	}
	closed := !broken && len(w.Nodes) >= 4 && w.Nodes[0].ID == w.Nodes[len(w.Nodes)-1].ID
	if member && !broken {
		l.memberBound[int64(w.ID)] = ring.Bound()
		if closed {
			l.memberGeo[int64(w.ID)] = slices.Clone(ring)
		}
	}
	if !k.any() {
		return
	}
	if broken {
		l.skipped++
		return
	}
	var footprint orb.Polygon
	if k.building != "" {
		if closed {
			footprint = orb.Polygon{ring}
		} else {
			// A building that is no area is skipped, and its address
			// with it: the address is the building's, placed at its
			// centroid, and there is none. A place it is tagged with
			// stays, as Overpass gives it (at its box's center).
			l.skipped++
			k.building, k.address = "", false
		}
	}
	if emit && k.any() {
		l.emit(ref("way", int64(w.ID), w.Version), k, w.Tags, ring.Bound(), footprint)
	}
}

func (l *loader) relation(r *osm.Relation, emit bool) {
	k := classify(r.Tags)
	if !keepRelation(r, k) {
		return
	}
	var (
		bound        orb.Bound
		any          bool
		outer, inner []orb.Ring
	)
	add := func(b orb.Bound) {
		if !any {
			bound, any = b, true
			return
		}
		bound = bound.Union(b)
	}
	for _, m := range r.Members {
		switch m.Type {
		case osm.TypeNode:
			if p, ok := l.coord(m.Ref); ok {
				add(p.Bound())
			}
		case osm.TypeWay:
			if b, ok := l.memberBound[m.Ref]; ok {
				add(b)
			}
			if ring, ok := l.memberGeo[m.Ref]; ok {
				if m.Role == "inner" {
					inner = append(inner, ring)
				} else {
					outer = append(outer, ring)
				}
			}
		}
	}
	if !any {
		l.skipped++
		return
	}
	var footprint orb.Geometry
	if k.building != "" {
		if len(outer) > 0 && r.Tags.Find("type") == "multipolygon" {
			footprint = multipolygon(outer, inner)
		} else {
			l.skipped++
			k.building = ""
		}
	}
	if !k.any() || !emit {
		return
	}
	if footprint == nil {
		k.building = ""
	}
	l.emit(ref("relation", int64(r.ID), r.Version), k, r.Tags, bound, footprint)
}

// multipolygon is the area of a multipolygon relation's closed outer and
// inner rings, as the OpenStreetMap wiki's Relation:multipolygon defines
// it: each inner ring is a hole of the outer ring that holds it (the
// smallest, where outer rings nest), and a point in a hole is outside the
// area (a courtyard is not the building). An inner ring that no outer ring
// holds, the relation's mistake, is left out rather than made an area.
func multipolygon(outer, inner []orb.Ring) orb.MultiPolygon {
	mp := make(orb.MultiPolygon, len(outer))
	for i, r := range outer {
		mp[i] = orb.Polygon{r}
	}
	for _, h := range inner {
		best, area := -1, math.Inf(1)
		for i, r := range outer {
			if a := math.Abs(planar.Area(r)); a < area && ringHolds(r, h) {
				best, area = i, a
			}
		}
		if best >= 0 {
			mp[best] = append(mp[best], h)
		}
	}
	return mp
}

// ringHolds reports whether ring r holds ring h: each of h's points lies
// inside r or on its edge (valid rings do not cross).
func ringHolds(r, h orb.Ring) bool {
	if !r.Bound().Contains(h.Bound().Min) || !r.Bound().Contains(h.Bound().Max) {
		return false
	}
	for _, p := range h {
		if !planar.RingContains(r, p) {
			return false
		}
	}
	return true
}

// emit adds the features of one way or relation: its place at its box's
// center, its building with its footprint, its address at the footprint's
// centroid (else the box's center). An address counts only on a building.
func (l *loader) emit(r providers.OSMRef, k kinds, tags osm.Tags, bound orb.Bound, footprint orb.Geometry) {
	c := bound.Center()
	center := providers.Point{Lat: round7(c[1]), Lng: round7(c[0])}
	if k.category != "" {
		l.batch.Places = append(l.batch.Places, place(r, k, tags, center))
	}
	at := center
	if footprint != nil && !isNilPolygon(footprint) {
		raw, err := l.wkb.marshal(footprint)
		if err == nil {
			if cp, area := planar.CentroidArea(footprint); area > 0 {
				at = providers.Point{Lat: round7(cp[1]), Lng: round7(cp[0])}
			}
			fb := footprint.Bound()
			b := building(r, k, tags, &providers.Parcel{WKB: raw, South: fb.Min[1], North: fb.Max[1], West: fb.Min[0], East: fb.Max[0]}, at)
			b.Facts, _ = BuildingFacts(b, l.now)
			l.batch.Buildings = append(l.batch.Buildings, b)
		}
	}
	if k.address && k.building != "" {
		l.batch.Addresses = append(l.batch.Addresses, address(r, tags, at))
	}
}

// round7 rounds a coordinate to 1e-7 degrees, the precision of OSM data:
// a node read from PBF (integers of 100 nanodegrees by default) and from
// XML (decimals) is then the same float, and a way's center is the one
// Overpass gives (it prints seven decimals).
func round7(v float64) float64 { return math.Round(v*1e7) / 1e7 }

// isNilPolygon reports whether g is a nil polygon held in the interface
// (a way that is no building passes one).
func isNilPolygon(g orb.Geometry) bool {
	p, ok := g.(orb.Polygon)
	return ok && p == nil
}
