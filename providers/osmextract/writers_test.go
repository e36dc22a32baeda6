package osmextract_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/store/postgres"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// sideBySide is a memStore that takes three batches at once
// (providers.OSMWriters), as PostgreSQL takes two: each batch writes for a
// while, the earlier ones longer (the first until a second is under way),
// so that later batches reach their commit first and must wait their turn
// (OSMBatch.Turn). It records the checkpoints in the order they commit.
type sideBySide struct {
	*memStore
	// batches are the checkpoints of the file's batches, in order (as one
	// writer commits them).
	batches  []int64
	failAt   int // the 1-based batch whose PutOSM fails (0: none)
	mu       sync.Mutex
	commits  []int64
	inFlight int
	most     int
}

// oneWriter loads the fixture with one writer and returns the store and
// the checkpoints of its batches.
func oneWriter(t *testing.T) (*memStore, []int64) {
	t.Helper()
	r := &recording{memStore: newMemStore()}
	if _, err := osmextract.Load(context.Background(), r, fixturePBF, osmextract.Options{Batch: 2}); err != nil {
		t.Fatal(err)
	}
	return r.memStore, r.dones
}

type recording struct {
	*memStore
	dones []int64
}

func (r *recording) PutOSM(ctx context.Context, load *providers.OSMLoad, b providers.OSMBatch, done int64) error {
	r.dones = append(r.dones, done)
	return r.memStore.PutOSM(ctx, load, b, done)
}

func (s *sideBySide) OSMWriters() int { return 3 }

func (s *sideBySide) PutOSM(ctx context.Context, load *providers.OSMLoad, b providers.OSMBatch, done int64) error {
	n := slices.Index(s.batches, done) + 1
	s.mu.Lock()
	s.inFlight++
	s.most = max(s.most, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if n == 1 {
		// The first batch waits for a second to be under way (a writer of
		// one batch at a time leaves it waiting a second, and fails the
		// test for it).
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			s.mu.Lock()
			two := s.most >= 2
			s.mu.Unlock()
			if two {
				break
			}
		}
	}
	time.Sleep(time.Duration(3-n%3) * 3 * time.Millisecond)
	if n == s.failAt {
		return errors.New("killed")
	}
	if b.Turn == nil {
		return errors.New("a batch written side by side came without its turn")
	}
	if err := b.Turn(ctx); err != nil {
		return err // rolled back: nothing of it kept
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits = append(s.commits, done)
	return s.memStore.PutOSM(ctx, load, b, done)
}

// Batches written side by side commit in the order they were cut, whatever
// order their writes end in, and load what one writer loads.
func TestBatchesWrittenSideBySideCommitInOrder(t *testing.T) {
	ctx := context.Background()
	one, batches := oneWriter(t)
	s := &sideBySide{memStore: newMemStore(), batches: batches}
	res, err := osmextract.Load(ctx, s, fixturePBF, osmextract.Options{Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s.most < 2 {
		t.Errorf("at most %d batch written at once, want several", s.most)
	}
	if !slices.Equal(s.commits, batches) {
		t.Errorf("checkpoints committed in the order %v, want the batches' order %v", s.commits, batches)
	}
	if res.Extract.Places != int64(len(one.places)) || !slices.Equal(keys(s.places), keys(one.places)) ||
		!slices.Equal(keys(s.buildings), keys(one.buildings)) || !slices.Equal(keys(s.addresses), keys(one.addresses)) {
		t.Errorf("side by side loaded places %v, buildings %v, addresses %v; one writer %v, %v, %v",
			keys(s.places), keys(s.buildings), keys(s.addresses), keys(one.places), keys(one.buildings), keys(one.addresses))
	}
}

// A batch that fails keeps every batch cut after it from committing, even
// those already written: the checkpoint stays before it, and the load
// resumed from there loads what one writer loads.
func TestABatchThatFailsSideBySideKeepsTheLaterOnesOut(t *testing.T) {
	ctx := context.Background()
	one, batches := oneWriter(t)
	s := &sideBySide{memStore: newMemStore(), batches: batches, failAt: 3}
	if _, err := osmextract.Load(ctx, s, fixturePBF, osmextract.Options{Batch: 2}); err == nil {
		t.Fatal("a load whose third batch fails succeeded")
	}
	if !slices.Equal(s.commits, batches[:2]) {
		t.Fatalf("checkpoints committed %v; want the two batches before the one that failed, %v", s.commits, batches[:2])
	}
	stopped := s.memStore.load.Done
	if stopped != s.commits[1] {
		t.Errorf("the load's checkpoint is %d, want the second batch's, %d", stopped, s.commits[1])
	}
	s.failAt, s.commits = 0, nil
	res, err := osmextract.Load(ctx, s, fixturePBF, osmextract.Options{Batch: 2})
	if err != nil || !res.Resumed {
		t.Fatalf("the load again = %+v, %v; want resumed", res, err)
	}
	if !slices.Equal(s.commits, batches[2:]) {
		t.Errorf("the resumed load committed %v, want the batches from the one that failed on, %v", s.commits, batches[2:])
	}
	if !slices.Equal(keys(s.places), keys(one.places)) || !slices.Equal(keys(s.buildings), keys(one.buildings)) ||
		!slices.Equal(keys(s.addresses), keys(one.addresses)) {
		t.Errorf("resumed side by side: places %v, buildings %v, addresses %v; one writer %v, %v, %v",
			keys(s.places), keys(s.buildings), keys(s.addresses), keys(one.places), keys(one.buildings), keys(one.addresses))
	}
}

// failingPG makes a PostgreSQL store's writes of features fail after a
// number of batches, as failing does SQLite's; it keeps the store's two
// writers.
type failingPG struct {
	*postgres.DB
	mu          sync.Mutex
	after, puts int
}

func (f *failingPG) PutOSM(ctx context.Context, load *providers.OSMLoad, b providers.OSMBatch, done int64) error {
	f.mu.Lock()
	stop := f.puts >= f.after
	f.puts++
	f.mu.Unlock()
	if stop {
		return errors.New("killed")
	}
	return f.DB.PutOSM(ctx, load, b, done)
}

// On PostgreSQL two batches are written side by side (providers.OSMWriters):
// the fixture, two features a batch, loads what it loads on SQLite, and a
// load stopped by a failing batch resumes to the same.
func TestALoadOnPostgreSQLWritesTwoBatchesAtOnce(t *testing.T) {
	ctx := context.Background()
	pg, err := postgres.Open(ctx, pgtest.Schema(t), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	if n := pg.OSMWriters(); n != 2 {
		t.Fatalf("PostgreSQL writes %d batches at once, want 2", n)
	}
	opts := osmextract.Options{Batch: 2}
	if _, err := osmextract.Load(ctx, &failingPG{DB: pg, after: 5}, fixturePBF, opts); err == nil {
		t.Fatal("a load whose sixth batch fails succeeded")
	}
	res, err := osmextract.Load(ctx, pg, fixturePBF, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := osmextract.Load(ctx, openStore(t), fixturePBF, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, w := res.Extract, want.Extract
	if !res.Resumed || got.Places != w.Places || got.Buildings != w.Buildings || got.Addresses != w.Addresses ||
		got.Skipped != w.Skipped || res.Facts == nil || res.Facts.Rows != want.Facts.Rows {
		t.Errorf("PostgreSQL, resumed: %+v, facts %+v; SQLite: %+v, facts %+v", got, res.Facts, w, want.Facts)
	}
	x, places, err := pg.OSMPlacesNear(ctx, providers.Circle{Center: providers.Point{Lat: 38.9, Lng: -77.03}, RadiusMeters: 2000}, providers.PlaceFilter{})
	if err != nil || x.Name != "franklin" || len(places) != 11 {
		t.Errorf("places within 2 km = %d, %v; want 11 (all but the diner 2.6 km away)", len(places), err)
	}
}
