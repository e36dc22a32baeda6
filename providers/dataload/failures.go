package dataload

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// FailuresHeader is the header of every load's failures file: the file
// (its base name), the line of a text file's row or the number from 1 of
// a spatial file's feature, the row's key where it has one, whether the
// row was kept (yes: a bad value was dropped and the rest loaded) and why.
var FailuresHeader = []string{"file", "line", "key", "kept", "reason"}

// Failures is a load's failures file, CSV (FailuresHeader). It is cut
// back to a load's checkpoint when the load resumes, so a row that failed
// is written once however often the load is resumed. The zero Failures
// (no path) writes nothing.
type Failures struct {
	f *os.File
	w *csv.Writer
}

// OpenFailures opens the failures file at path, cut back to size (the
// checkpoint's FailuresSize): the failures written after the checkpoint
// are of rows a resumed load reads again. A new file starts with the
// header. An empty path is no file.
func OpenFailures(path string, size int64) (*Failures, error) {
	if path == "" {
		return &Failures{}, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	fl := &Failures{f: f, w: csv.NewWriter(f)}
	if size == 0 {
		fl.w.Write(FailuresHeader)
	}
	return fl, nil
}

// Write records one row of file: line (a feature's number from 1), its
// key ("" for none), whether it was kept, and why.
func (fl *Failures) Write(file string, line int, key string, kept bool, reason string) {
	if fl.w == nil {
		return
	}
	k := "no"
	if kept {
		k = "yes"
	}
	fl.w.Write([]string{filepath.Base(file), strconv.Itoa(line), key, k, reason})
}

// Sync flushes the file to disk and returns its length: the checkpoint's
// FailuresSize.
func (fl *Failures) Sync() (int64, error) {
	if fl.w == nil {
		return 0, nil
	}
	fl.w.Flush()
	if err := fl.w.Error(); err != nil {
		return 0, err
	}
	if err := fl.f.Sync(); err != nil {
		return 0, err
	}
	return fl.f.Seek(0, io.SeekCurrent)
}

// Close flushes and closes the file.
func (fl *Failures) Close() error {
	if fl.f == nil {
		return nil
	}
	fl.w.Flush()
	return fl.f.Close()
}
