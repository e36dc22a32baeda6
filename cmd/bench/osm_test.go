package main

import "testing"

// The osm rows name their loads: one, or the median of several with each
// beside it.
func TestTheLoadRowNamesItsRuns(t *testing.T) {
	if got := loadsOf([]string{"9.1s"}) + highest(1); got != "one load into a fresh database" {
		t.Errorf("one run: %q", got)
	}
	if got, want := loadsOf([]string{"9.1s", "8.8s", "9.4s"})+highest(3),
		"the median of 3 loads into a fresh database each (9.1s, 8.8s, 9.4s) (the highest)"; got != want {
		t.Errorf("three runs: %q, want %q", got, want)
	}
}
