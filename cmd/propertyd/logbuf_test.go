package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLogBufferFlushesOnIntervalAndClose(t *testing.T) {
	var out logSink
	b := newLogBuffer(&out, 4096, 20*time.Millisecond)
	b.Write([]byte("one\n"))
	if out.String() != "" {
		t.Fatal("a line was written through instead of buffered")
	}
	deadline := time.Now().Add(2 * time.Second)
	for out.String() != "one\n" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if out.String() != "one\n" {
		t.Fatalf("not flushed after the interval: %q", out.String())
	}
	b.Write([]byte("two\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "two\n") {
		t.Fatalf("Close did not flush: %q", out.String())
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestLogBufferConcurrentLinesStayWhole(t *testing.T) {
	var out logSink
	b := newLogBuffer(&out, 1024, time.Hour) // holds the 17 KB whole (64 KB at most)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				b.Write([]byte("0123456789abcdef\n"))
			}
		}()
	}
	wg.Wait()
	b.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d lines, want 1000", len(lines))
	}
	for _, l := range lines {
		if l != "0123456789abcdef" {
			t.Fatalf("torn line %q", l)
		}
	}
}

// slowWriter blocks every write until release is closed.
type slowWriter struct {
	logSink
	release chan struct{}
}

func (s *slowWriter) Write(p []byte) (int, error) {
	<-s.release
	return s.logSink.Write(p)
}

func TestLogBufferNeverBlocksAWriterAndCountsWhatItDrops(t *testing.T) {
	out := &slowWriter{release: make(chan struct{})}
	b := newLogBuffer(out, 64, time.Millisecond) // holds 4 KB at most
	line := []byte(strings.Repeat("x", 99) + "\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 { // 20 KB while the writer is stuck
			b.Write(line)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Write blocked while the log output was stuck")
	}
	close(out.release)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	kept := strings.Count(got, strings.Repeat("x", 99)+"\n")
	if kept == 0 || kept == 200 {
		t.Fatalf("%d of 200 lines written, want some kept and some dropped", kept)
	}
	i := strings.Index(got, `"msg":"log lines dropped`)
	if i < 0 {
		t.Fatalf("no warning about dropped lines in %q", got[max(0, len(got)-300):])
	}
	var warning struct{ Dropped int }
	lineEnd := strings.IndexByte(got[i:], '\n')
	lineStart := strings.LastIndexByte(got[:i], '\n') + 1
	if err := json.Unmarshal([]byte(got[lineStart:i+lineEnd]), &warning); err != nil {
		t.Fatalf("the warning is not a JSON line: %v", err)
	}
	if kept+warning.Dropped != 200 {
		t.Fatalf("%d written + %d reported dropped, want 200", kept, warning.Dropped)
	}
}
