package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The warm GET's verdict is three figures, each taken in warmRuns runs and
// met when the median run meets it. A single run's worst second is noise
// on two shared cores: two identical bare Fiber servers missed "each
// second within 2 x" against each other in 2 to 5 runs of 6. The median
// run, the median second and the worst second of the pairs in which two
// identical servers agreed are figures that noise moves much less.
const (
	// warmRuns is how many runs of the warm GET (closed loop, then the
	// rotating open loop) the verdict takes its medians from: an odd
	// count, so that the median is one run's figure.
	warmRuns = 3
	// throughputTarget is the least propertyd's closed-loop rate may be,
	// as a share of bare Fiber's.
	throughputTarget = 0.75
	// medianTarget is the most the median of propertyd's per-second p99s
	// may be, as a multiple of the median of bare Fiber's.
	medianTarget = 1.5
	// worstTarget is the most propertyd's worst second may be, as a
	// multiple of bare Fiber's second of the same pair, over the
	// calibrated pairs.
	worstTarget = 2.0
	// calibrationLimit is how far apart the two bare Fiber servers' seconds
	// of a pair may be (either way) for the pair to count towards the
	// worst second: beyond it the machine, not a server, decided that
	// pair's p99s. Either way, since a second of bare Fiber's that stalled
	// alone flatters propertyd's ratio as much as one of the twin's says
	// the machine was uneven.
	calibrationLimit = 1.5
)

// tailFigures is what one rotating loop says of propertyd's p99 against bare
// Fiber's, second by second. Pair k is the k-th second of bare Fiber, of
// propertyd and of the second bare Fiber (the twin): three adjacent
// seconds lived through the same state of the machine.
type tailFigures struct {
	// median is the median of propertyd's per-second p99s over the
	// median of bare Fiber's: a queue that grows all along shows here.
	median float64
	// worst is the largest ratio of propertyd's second to bare Fiber's
	// over the calibrated pairs, and worstPair its pair; +Inf when no pair
	// was calibrated (the run then misses the target: it shows nothing).
	worst     float64
	worstPair int
	// calibrated of pairs had the twin within calibrationLimit of bare
	// Fiber; twinWorst is the twin's worst ratio over all pairs, as the
	// previous verdict's calibration read.
	calibrated, pairs int
	twinWorst         float64
}

// tailOf compares the per-second p99s of propertyd (prop), bare Fiber
// (bare) and the twin of one rotating loop. Seconds that not all three
// have, and pairs in which bare Fiber's second measured nothing, are left
// out.
func tailOf(prop, bare, twin []time.Duration) tailFigures {
	t := tailFigures{worst: math.Inf(1), worstPair: -1}
	var ps, bs []time.Duration
	for k := range min(len(prop), len(bare), len(twin)) {
		if bare[k] <= 0 || twin[k] <= 0 {
			continue
		}
		t.pairs++
		ps, bs = append(ps, prop[k]), append(bs, bare[k])
		r := float64(prop[k]) / float64(bare[k])
		cal := float64(twin[k]) / float64(bare[k])
		t.twinWorst = max(t.twinWorst, cal)
		if max(cal, 1/cal) > calibrationLimit {
			continue
		}
		t.calibrated++
		if t.calibrated == 1 || r > t.worst {
			t.worst, t.worstPair = r, k
		}
	}
	if t.pairs > 0 {
		slices.Sort(ps)
		slices.Sort(bs)
		t.median = float64(percentile(ps, 50)) / float64(percentile(bs, 50))
	}
	return t
}

// medianRun returns the median of one figure over the runs: the middle
// one of an odd count, the lower middle of an even one (nearest rank).
func medianRun(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(vs))
	return s[(len(s)-1)/2]
}

// warmVerdict is the warm GET's three figures over the runs, and whether
// the median run meets each target.
type warmVerdict struct {
	throughput, median, worst []float64 // one per run
}

// met says whether the median run meets every target. NaN (no run) and
// +Inf (no calibrated pair) miss.
func (v warmVerdict) met() bool {
	return medianRun(v.throughput) >= throughputTarget &&
		medianRun(v.median) <= medianTarget &&
		medianRun(v.worst) <= worstTarget
}

// ratioCell is the table's ratio cell: the three medians.
func (v warmVerdict) ratioCell() string {
	return fmt.Sprintf("%s / %s / %s", figure(medianRun(v.throughput)), figure(medianRun(v.median)), figure(medianRun(v.worst)))
}

// runs lists one figure from every run, in order, and its median, e.g.
// "0.86, 0.79, 0.81 (median 0.81)".
func runs(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = figure(v)
	}
	return fmt.Sprintf("%s (median %s)", strings.Join(parts, ", "), figure(medianRun(vs)))
}

// figure prints a ratio with two decimals, and a run without a
// calibrated pair as such.
func figure(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "none calibrated"
	case math.IsNaN(v):
		return "none"
	}
	return fmt.Sprintf("%.2f", v)
}
