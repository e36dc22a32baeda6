package dataload

import (
	"context"
	"sync"

	"github.com/propertyd/propertyd/providers"
)

// batch is what one transaction writes: features of one layer (polygons,
// or a kind's own Rows) and the checkpoint after them.
type batch struct {
	layer string
	rows  []any
	cp    providers.Checkpoint
}

// writer batches a load's features into the store. The features are read
// on the caller's goroutine while the batch before them is written on
// another, so reading the files and writing the database overlap; at most
// one batch waits.
type writer struct {
	ctx   context.Context
	stage stageFunc
	load  *providers.DatasetLoad
	fail  *Failures

	maxBytes, maxFeatures int

	layer  string
	rows   []any
	bytes  int
	read   int64 // the checkpoint of the batch being filled
	failed int64
	sent   int64 // the checkpoint of the last batch sent

	ch       chan batch
	done     chan struct{}
	once     sync.Once
	err      error
	vertices int64
}

func newWriter(ctx context.Context, stage stageFunc, load *providers.DatasetLoad, fail *Failures, opts Options) *writer {
	w := &writer{ctx: ctx, stage: stage, load: load, fail: fail, maxBytes: opts.BatchBytes, maxFeatures: opts.BatchFeatures,
		sent: load.Done, read: load.Done, failed: load.Failed, ch: make(chan batch, 1), done: make(chan struct{})}
	if w.maxBytes <= 0 {
		w.maxBytes = 4 << 20
	}
	if w.maxFeatures <= 0 {
		w.maxFeatures = 2000
	}
	go w.run()
	return w
}

func (w *writer) run() {
	defer close(w.done)
	for b := range w.ch {
		if w.err != nil {
			continue // drain
		}
		if err := w.stage(w.ctx, w.load, b.cp, b.layer, b.rows); err != nil {
			w.err = err
			continue
		}
		for _, r := range b.rows {
			if p, ok := r.(providers.LayerPolygon); ok {
				w.vertices += Vertices(p.Shape)
			}
		}
	}
}

// counted moves the checkpoint past a feature that was refused.
func (w *writer) counted(read, failed int64) { w.read, w.failed = read, failed }

// add adds f, read as the read-th feature, to the batch, sending the batch
// first when f is of another layer or the batch is full.
func (w *writer) add(f Feature, read, failed int64) error {
	if len(w.rows) > 0 && (f.Layer != w.layer || w.bytes+f.size() > w.maxBytes || len(w.rows) >= w.maxFeatures) {
		if err := w.send(); err != nil {
			return err
		}
	}
	w.layer = f.Layer
	if f.Row != nil {
		w.rows = append(w.rows, f.Row)
	} else {
		w.rows = append(w.rows, f.Polygon)
	}
	w.bytes += f.size()
	w.read, w.failed = read, failed
	return nil
}

// send hands the batch being filled to the writing goroutine, with the
// checkpoint after it: the failures file is synced first, so that its
// length is that of the failures the checkpoint counts.
func (w *writer) send() error {
	size, err := w.fail.Sync()
	if err != nil {
		return err
	}
	layer := w.layer
	if len(w.rows) == 0 {
		layer = "" // a checkpoint alone: no layer to name
	}
	b := batch{layer: layer, rows: w.rows, cp: providers.Checkpoint{Done: w.read, Failed: w.failed, FailuresSize: size}}
	select {
	case w.ch <- b:
	case <-w.done:
		return w.err
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	w.sent = w.read
	w.rows, w.bytes = nil, 0
	return nil
}

// flush sends what is left, and a checkpoint alone when only refused
// features are.
func (w *writer) flush(read, failed int64) error {
	w.read, w.failed = max(w.read, read), failed
	if len(w.rows) == 0 && w.read == w.sent {
		return nil
	}
	return w.send()
}

// wait waits for every batch sent to be written and returns the first
// error.
func (w *writer) wait() error {
	w.once.Do(func() { close(w.ch) })
	<-w.done
	return w.err
}

// stop ends the writing goroutine after a failure of the caller's.
func (w *writer) stop() { w.wait() }
