package main

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// logBuffer decouples log output from the requests that write it. A Write
// appends the line to a memory buffer and returns; a background flusher
// swaps the buffer out and writes it to the underlying writer outside the
// lock, every interval and whenever size bytes are waiting, so no request
// ever waits on a write(2) or on another request's. (Before, the request
// that filled a bufio.Writer did the write with every other logging
// request queued behind it: multi-millisecond stalls under load.) When the
// writer falls behind by more than max bytes, further lines are dropped
// rather than held or waited for, and a warning line counts them. What a
// crash loses is at most one interval of lines. Safe for concurrent use.
type logBuffer struct {
	w          io.Writer
	size, max  int
	mu         sync.Mutex // guards active and dropped
	active     []byte
	dropped    int
	flushMu    sync.Mutex // serializes flushes; guards spare
	spare      []byte
	kick       chan struct{}
	stop, done chan struct{}
	closeOnce  sync.Once
}

// newLogBuffer starts flushing to w every interval, or sooner once size
// bytes wait; it holds at most 64 x size bytes (4 MB for 64 KB) before it
// drops lines.
func newLogBuffer(w io.Writer, size int, interval time.Duration) *logBuffer {
	b := &logBuffer{w: w, size: size, max: 64 * size, active: make([]byte, 0, 2*size), spare: make([]byte, 0, 2*size),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go b.flusher(interval)
	return b
}

func (b *logBuffer) flusher(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-b.kick:
		case <-b.stop:
			return
		}
		_ = b.Flush()
	}
}

// Write buffers p, or drops it when the writer is too far behind. It never
// blocks on I/O and never fails.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if len(b.active)+len(p) > b.max {
		b.dropped++
		b.mu.Unlock()
		return len(p), nil
	}
	b.active = append(b.active, p...)
	full := len(b.active) >= b.size
	b.mu.Unlock()
	if full {
		select {
		case b.kick <- struct{}{}:
		default: // a flush is already due
		}
	}
	return len(p), nil
}

// Flush writes what is buffered, and a warning line counting the lines
// dropped since the last flush, if any.
func (b *logBuffer) Flush() error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	out := b.active
	b.active = b.spare[:0]
	dropped := b.dropped
	b.dropped = 0
	b.mu.Unlock()
	if dropped > 0 {
		out = append(out, `{"time":"`...)
		out = time.Now().AppendFormat(out, time.RFC3339Nano)
		out = append(out, `","level":"WARN","msg":"log lines dropped: the log output is too slow","dropped":`...)
		out = strconv.AppendInt(out, int64(dropped), 10)
		out = append(out, "}\n"...)
	}
	var err error
	if len(out) > 0 {
		_, err = b.w.Write(out)
	}
	b.spare = out[:0]
	return err
}

// Close stops the flusher and flushes; later writes are still buffered and
// go out with the next Flush. Safe to call more than once.
func (b *logBuffer) Close() error {
	b.closeOnce.Do(func() { close(b.stop) })
	<-b.done
	return b.Flush()
}
