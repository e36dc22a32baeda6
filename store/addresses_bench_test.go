package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/postgres"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// benchAddressesEnv sets how many address points BenchmarkAddresses
// loads (a tenth as many ranges): 1,000,000 unless it says otherwise.
const benchAddressesEnv = "PROPERTYD_BENCH_ADDRESSES"

// addressStore is what BenchmarkAddresses needs of an engine.
type addressStore interface {
	providers.DatasetStore
	providers.AddressStore
}

// BenchmarkAddresses loads a state-sized set of address points and
// ranges on each engine, 5,000 points and 500 ranges a batch as a loader
// stages them, and publishes them (stage: points/s), then looks up random points
// (pointsAt) and random numbers on random ranges (rangesOn) of the
// generation loaded, reporting the median and 99th percentile of a
// lookup. The targets: 200,000 points/s; p50 < 1 ms, p99 < 5 ms.
//
// A stage's op is one whole load (the time in StageAddresses and in the
// publication, which indexes the rows, holding SQLite's writer
// meanwhile; publish-s is the latter); the
// lookups' ops are one lookup each:
//
//	PROPERTYD_BENCH_ADDRESSES=1000000 go test -run '^$' -bench Addresses -benchtime 2000x ./store/
func BenchmarkAddresses(b *testing.B) {
	if testing.Short() {
		b.Skip("loads a million address points")
	}
	n := 1_000_000
	if v := os.Getenv(benchAddressesEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 10_000 {
			b.Fatalf("%s=%q: want a number of points, 10,000 or more", benchAddressesEnv, v)
		}
	}
	set := newAddressSet(n)
	engines := []struct {
		name string
		open func(b *testing.B) addressStore
	}{
		{"sqlite", func(b *testing.B) addressStore {
			db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db
		}},
		{"postgres", func(b *testing.B) addressStore {
			db, err := postgres.Open(context.Background(), pgtest.Schema(b), postgres.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db
		}},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			db := e.open(b)
			var gen int64
			loaded := func(b *testing.B) int64 {
				if gen == 0 {
					gen, _ = set.load(b, db)
				}
				return gen
			}
			// One op is one whole load, whatever b.N says: the framework
			// calls this once for a load of more than its bench time.
			b.Run("stage", func(b *testing.B) {
				g, took := set.load(b, db)
				if gen == 0 {
					gen = g
				} else if err := db.DropAddresses(context.Background(), g); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(took.Nanoseconds()), "ns/op")
				b.ReportMetric(float64(set.points)/took.Seconds(), "points/s")
				b.ReportMetric(float64(set.points+set.ranges)/took.Seconds(), "rows/s")
			})
			b.Run("pointsAt", func(b *testing.B) {
				gens := []int64{loaded(b)}
				rng := rand.New(rand.NewPCG(5, 6))
				lat := latencies(b, func() {
					p := set.point(rng.IntN(set.points))
					got, err := db.AddressPointsAt(context.Background(), gens, p.State, p.Street, p.Unit)
					if err != nil || len(got) == 0 {
						b.Fatalf("AddressPointsAt(%s, %s, %s) = %v, %v; want the point loaded", p.State, p.Street, p.Unit, got, err)
					}
				})
				lat.report(b)
			})
			b.Run("rangesOn", func(b *testing.B) {
				gens := []int64{loaded(b)}
				rng := rand.New(rand.NewPCG(7, 8))
				lat := latencies(b, func() {
					r := set.rangeAt(rng.IntN(set.ranges))
					lo, hi := min(r.From, r.To), max(r.From, r.To)
					number := lo + rng.Int64N(hi-lo+1)
					got, err := db.AddressRangesOn(context.Background(), gens, r.State, r.Name, number)
					if err != nil || len(got) == 0 {
						b.Fatalf("AddressRangesOn(%s, %s, %d) = %v, %v; want the range loaded", r.State, r.Name, number, got, err)
					}
				})
				lat.report(b)
			})
		})
	}
}

// addressSet is a generated state's worth of address points and
// ranges: point i and range i are functions of i, so a lookup draws one
// loaded without keeping them.
type addressSet struct {
	points, ranges int
	order          []int32 // the order points are written in: no order
}

func newAddressSet(points int) *addressSet {
	s := &addressSet{points: points, ranges: points / 10, order: make([]int32, points)}
	for i := range s.order {
		s.order[i] = int32(i)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(s.order), func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
	return s
}

var (
	benchStates = []string{"TX", "CA", "NY", "FL", "IL"}
	benchNames  = []string{"MAIN ST", "N OAK AVE", "ELM ST", "S 1ST ST", "MARTIN LUTHER KING JR BLVD", "COUNTY ROAD 120", "PARK PL", "W WASHINGTON ST"}
)

// point i: 40 numbers a street, streets spread over the states, one in
// five a flat.
func (s *addressSet) point(i int) providers.AddressPoint {
	street := i / 40
	p := providers.AddressPoint{
		Street: fmt.Sprintf("%d %s %d", 100+2*(i%40), benchNames[street%len(benchNames)], street),
		State:  benchStates[street%len(benchStates)],
		City:   fmt.Sprint("TOWN ", street%997), Zip: fmt.Sprintf("%05d", 10000+street%89000),
		Point: providers.Point{Lat: 25 + float64(i%1000)*0.02, Lng: -120 + float64(i/1000%1000)*0.05},
		Key:   fmt.Sprintf("%016x", uint64(i)*0x9E3779B97F4A7C15),
	}
	if i%5 == 0 {
		p.Unit = fmt.Sprint("APT ", i%7+1)
	}
	return p
}

// rangeAt i: a block's side, one in ten a rural range of a few thousand
// numbers; the eight names are every town's (a state's MAIN ST holds
// thousands of ranges), numbered from 100 up 50 blocks.
func (s *addressSet) rangeAt(i int) providers.AddressRange {
	edge, side := i/2, i%2
	town := edge / 50
	block := int64(edge%50+1) * 100
	from, to := block+int64(side), block+98+int64(side)
	if edge%10 == 9 {
		to = block + 2998 + int64(side)
	}
	if edge%3 == 0 {
		from, to = to, from
	}
	parity, sideOf := byte('E'), byte('L')
	if side == 1 {
		parity, sideOf = 'O', 'R'
	}
	lat, lng := 25+float64(edge%1000)*0.02, -120+float64(edge/1000%1000)*0.05
	return providers.AddressRange{
		Name: benchNames[town%len(benchNames)], State: benchStates[town/len(benchNames)%len(benchStates)],
		Zip: fmt.Sprintf("%05d", 10000+town), From: from, To: to, Parity: parity, Side: sideOf,
		Line: []providers.Point{{Lat: lat, Lng: lng}, {Lat: lat + 0.0005, Lng: lng + 0.0004}, {Lat: lat + 0.001, Lng: lng + 0.001}},
		Key:  fmt.Sprint(60000000+edge, string(sideOf)),
	}
}

// loads numbers the datasets BenchmarkAddresses loads: each load is of a
// dataset of its own, never resumed.
var loads int

// load stages the whole set as a load of a new dataset, 5,000 points and
// 500 ranges a batch, publishes it (which indexes the rows), and returns
// its generation and how long the store took (StageAddresses and
// PublishDataset, not making the rows).
func (s *addressSet) load(b *testing.B, db addressStore) (int64, time.Duration) {
	ctx := context.Background()
	loads++
	load, _, err := db.BeginDataset(ctx, providers.KindAddresses, fmt.Sprint("bench", loads), "bench")
	if err != nil || load.Resumed {
		b.Fatalf("BeginDataset = %+v, %v; want a new load", load, err)
	}
	var took time.Duration
	const batch = 5000
	ps := make([]providers.AddressPoint, 0, batch)
	rs := make([]providers.AddressRange, 0, batch/10)
	for from := 0; from < s.points; from += batch {
		ps, rs = ps[:0], rs[:0]
		for i := from; i < min(from+batch, s.points); i++ {
			ps = append(ps, s.point(int(s.order[i])))
			if r := i / 10; i%10 == 0 && r < s.ranges {
				rs = append(rs, s.rangeAt(r))
			}
		}
		cp := providers.Checkpoint{Done: int64(from + len(ps))}
		start := time.Now()
		if err := db.StageAddresses(ctx, &load, cp, ps, rs); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
	}
	start := time.Now()
	if _, err := db.PublishDataset(ctx, load, providers.Dataset{Rows: int64(s.points + s.ranges)}); err != nil {
		b.Fatal(err)
	}
	published := time.Since(start)
	b.ReportMetric(published.Seconds(), "publish-s")
	return load.Generation, took + published
}

// lookups is the time each lookup of a benchmark took.
type lookups []time.Duration

// latencies runs lookup b.N times, timing each.
func latencies(b *testing.B, lookup func()) lookups {
	lat := make(lookups, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		lookup()
		lat = append(lat, time.Since(start))
	}
	return lat
}

// report adds the median and 99th percentile, in milliseconds.
func (l lookups) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	at := func(q float64) float64 { return float64(l[int(q*float64(len(l)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
