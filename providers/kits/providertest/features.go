package providertest

import (
	"errors"
	"io"

	"github.com/propertyd/propertyd/providers/geofile"
)

// Fataler is the part of a *testing.T that Features uses: the kit does
// not import package testing, which would link the test framework into
// every binary importing it.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Features reads every feature of one layer of a fixture file ("" for
// its only one), failing the test on any error: what a conformance test
// serves through a fake upstream and loads into a store alike.
func Features(t Fataler, path, layer string) []geofile.Feature {
	t.Helper()
	r, err := geofile.Open(path, geofile.Options{Layer: layer})
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer r.Close()
	var out []geofile.Feature
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, f)
	}
}
