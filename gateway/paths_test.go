package gateway

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// TestMain runs the whole gateway suite twice: as served, with a plain
// warm GET answered in front of the Fiber app (serveReady), and again with
// every request through the app. The fast path exists for throughput
// alone; it must answer exactly as the app would, and this is what holds
// it there: every test of the package, header checks and budgets
// included, passes on both paths, so a change to one that the other lacks
// fails here. (Benchmarks and fuzzing run once, as served.)
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || flagSet("test.bench") || flagSet("test.fuzz") || flagSet("test.list") {
		os.Exit(code)
	}
	fastPath = false
	fmt.Println("gateway: the suite again, every request through the Fiber app (no fast path)")
	os.Exit(m.Run())
}

func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() != ""
}

// FastPath reports whether this pass of the suite answers plain warm GETs
// in front of the app, for the few tests of the fast path itself.
func FastPath() bool { return fastPath }
