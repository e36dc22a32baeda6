package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// profile starts taking propertyd's CPU profile and execution trace for d
// through its debug listener, into NAME.cpu.pprof and NAME.trace in the
// -profile folder, and returns the function that waits for both. Without
// -profile it takes nothing. Both are taken at once: the trace then holds
// the CPU samples too, so go tool trace shows what ran beside what waited.
func (b *bench) profile(name string, d time.Duration) (wait func() error) {
	if b.o.profile == "" {
		return func() error { return nil }
	}
	var debugAddr string
	select {
	case debugAddr = <-b.prop.profiles:
		b.prop.profiles <- debugAddr // for a later profile of the same process
	case <-time.After(5 * time.Second):
		return func() error { return errors.New("propertyd did not print where it serves its profiles") }
	}
	if err := os.MkdirAll(b.o.profile, 0o755); err != nil {
		return func() error { return err }
	}
	secs := max(int(d/time.Second), 1)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, f := range []struct{ path, file string }{
		{"/debug/pprof/profile", name + ".cpu.pprof"},
		{"/debug/pprof/trace", name + ".trace"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fetchTo(fmt.Sprintf("http://%s%s?seconds=%d", debugAddr, f.path, secs), filepath.Join(b.o.profile, f.file))
		}()
	}
	return func() error {
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return fmt.Errorf("profiling %s: %w", name, err)
			}
		}
		b.logf("profiled %s: %s", name, filepath.Join(b.o.profile, name+".{cpu.pprof,trace}"))
		return nil
	}
}

func fetchTo(url, path string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return fmt.Errorf("%s: HTTP %d: %s", url, resp.StatusCode, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
