package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// warmRun is what one run of the warm GET measured: the closed loops and
// the rotating open loop at half of bare Fiber's closed-loop rate.
type warmRun struct {
	prop, bare, fast   result  // closed loop: propertyd, bare Fiber, bare fasthttp
	load               float64 // the open loop's rate per server
	at, bareAt, twinAt result  // the open loop: propertyd, bare Fiber, the twin
	tail               tailFigures
}

// warmGet measures the warm GET by id (byID to propertyd, the body in dir
// to the bare apps) in warmRuns runs and adds its row. Each run is a
// closed loop (bare Fiber, bare fasthttp and propertyd taking turns; bare
// fasthttp's figure is beside the verdict, since propertyd answers this
// GET in front of Fiber) and then one open
// loop at half of that run's bare Fiber rate that rotates, second by
// second, over bare Fiber, propertyd and a second bare Fiber (the twin):
// the twin's second against bare Fiber's is how far apart two identical
// servers come out of the machine in that very pair, which decides
// whether the pair counts (see tailOf).
func (b *bench) warmGet(ctx context.Context, dir string, byID request) error {
	twin, tc, err := b.startBare(dir, "bare-2.log")
	if err != nil {
		return err
	}
	defer twin.stop() //nolint:errcheck // the calibration's exit status says nothing
	fast, fc, err := b.startBaseline(bareFasthttp, dir, "bare-fasthttp.log")
	if err != nil {
		return err
	}
	defer fast.stop() //nolint:errcheck // the baseline's exit status says nothing
	bareGet := get("/get")
	seconds := max(int(b.o.duration/time.Second), 1)
	var v warmVerdict
	var vsFast []float64 // throughput x bare fasthttp, beside the verdict
	var ws []warmRun
	for i := range warmRuns {
		if err := ctx.Err(); err != nil {
			return err
		}
		var w warmRun
		closed := b.closedRounds([]*client{b.bc, fc, b.pc}, []request{bareGet, bareGet, byID})
		w.bare, w.fast, w.prop = closed[0], closed[1], closed[2]
		w.load = 0.5 * w.bare.rate()
		profiled := func() error { return nil }
		if i == 0 {
			profiled = b.profile("warm-get", time.Duration(3*seconds)*time.Second)
		}
		cs, reqs := []*client{b.bc, b.pc, tc}, [][]request{{bareGet}, {byID}, {bareGet}}
		// Open every server's connections first: in the loop, the first
		// server's first second would pay for opening its own, the
		// generator's busiest moment (in short runs bare Fiber's first
		// second came out three times the others').
		for j, c := range cs {
			c.closedLoop(slices.Repeat(reqs[j], 2*b.o.openConns), b.o.openConns, time.Minute, true)
		}
		loop := rotate(cs, reqs, w.load, b.o.openConns, seconds)
		if err := profiled(); err != nil {
			return err
		}
		w.bareAt, w.at, w.twinAt = loop[0], loop[1], loop[2]
		w.tail = tailOf(w.at.windowP99, w.bareAt.windowP99, w.twinAt.windowP99)
		b.logf("warm GET run %d, p99 of each second: bare Fiber %s; propertyd %s; second bare Fiber %s",
			i+1, each(w.bareAt.windowP99), each(w.at.windowP99), each(w.twinAt.windowP99))
		v.throughput = append(v.throughput, w.prop.rate()/w.bare.rate())
		vsFast = append(vsFast, w.prop.rate()/w.fast.rate())
		v.median = append(v.median, w.tail.median)
		v.worst = append(v.worst, w.tail.worst)
		ws = append(ws, w)
	}
	var runCells []string
	var rs []result
	for i, w := range ws {
		runCells = append(runCells, w.cell(i+1, b.o.conns))
		rs = append(rs, w.prop, w.bare, w.fast, w.at, w.bareAt, w.twinAt)
	}
	b.add(row{
		scenario: fmt.Sprintf("warm GET /v1/properties/{id}: throughput, and p99 per second at 0.5 x bare Fiber's rate (%d runs)", warmRuns),
		target: fmt.Sprintf(">= %.2f x bare Fiber's throughput; at that load the median second's p99 <= %.1f x bare Fiber's, "+
			"and the worst second <= %.0f x bare Fiber's in the same pair over the pairs whose calibration (a second bare Fiber against the first) is within %.1f x; "+
			"each met by the median run (one open loop rotating bare Fiber, propertyd, second bare Fiber every second)",
			throughputTarget, medianTarget, worstTarget, calibrationLimit),
		measured: fmt.Sprintf("throughput x bare Fiber %s; x bare fasthttp, beside the verdict, %s; median second x bare Fiber's %s; worst calibrated second x bare Fiber's %s. %s",
			runs(v.throughput), runs(vsFast), runs(v.median), runs(v.worst), strings.Join(runCells, ". ")),
		ratio:   v.ratioCell(),
		met:     v.met(),
		failure: failure(rs...),
	})
	return nil
}

// cell describes run n for the measured cell: the facts behind its three
// figures.
func (w warmRun) cell(n, conns int) string {
	t := w.tail
	worst := fmt.Sprintf("worst calibrated second in pair %d, %d of %d pairs calibrated", t.worstPair+1, t.calibrated, t.pairs)
	if t.calibrated == 0 {
		worst = fmt.Sprintf("none of %d pairs calibrated", t.pairs)
	}
	return fmt.Sprintf("Run %d: %s vs bare Fiber %s and bare fasthttp %s (closed loop, %d connections: p99 %s vs %s and %s); "+
		"open loop at %s per server: p99 propertyd %s (per second %s), bare Fiber %s (%s), second bare Fiber %s (%s); "+
		"%s (the second bare Fiber's worst %.2f x)",
		n, rps(w.prop.rate()), rps(w.bare.rate()), rps(w.fast.rate()), conns,
		ms(w.prop.percentile(99)), ms(w.bare.percentile(99)), ms(w.fast.percentile(99)),
		rps(w.load), ms(w.at.percentile(99)), spread(w.at.windowP99), ms(w.bareAt.percentile(99)), spread(w.bareAt.windowP99),
		ms(w.twinAt.percentile(99)), spread(w.twinAt.windowP99), worst, t.twinWorst)
}
