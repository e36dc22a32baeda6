package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// logBuffer batches log output: a request's log line costs a memory copy,
// and the lines reach the underlying writer when the buffer fills, every
// interval, and on Close. Without it every request paid a write(2) system
// call on the hot path. What a crash loses is at most one interval of lines.
// Safe for concurrent use.
type logBuffer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// newLogBuffer starts flushing w's buffer every interval.
func newLogBuffer(w io.Writer, size int, interval time.Duration) *logBuffer {
	b := &logBuffer{w: bufio.NewWriterSize(w, size), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.Flush()
			case <-b.stop:
				b.Flush()
				return
			}
		}
	}()
	return b
}

// Write buffers p.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// Flush writes what is buffered.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close flushes and stops the flusher; later writes are still buffered and
// go out with the next Flush. Safe to call more than once.
func (b *logBuffer) Close() error {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	<-b.done
	return b.Flush()
}
