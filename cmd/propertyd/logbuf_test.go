package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogBufferFlushesOnIntervalAndClose(t *testing.T) {
	var out lockedBuffer
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
	var out lockedBuffer
	b := newLogBuffer(&out, 64, time.Hour)
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
