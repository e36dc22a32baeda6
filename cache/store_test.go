package cache

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// countingStore is a minimal in-memory providers.Store that counts reads.
type countingStore struct {
	props        map[int64]providers.Property
	keys         map[string]int64
	sections     map[string]providers.SectionRecord
	byID, byKey  int
	sectionReads int
}

var _ providers.Store = (*countingStore)(nil)

func newCountingStore() *countingStore {
	return &countingStore{props: map[int64]providers.Property{}, keys: map[string]int64{}, sections: map[string]providers.SectionRecord{}}
}

func (s *countingStore) Property(_ context.Context, id int64) (*providers.Property, error) {
	s.byID++
	p, ok := s.props[id]
	if !ok {
		return nil, providers.NotFound("property_not_found", "no property")
	}
	return &p, nil
}
func (s *countingStore) PropertyByKey(ctx context.Context, key string) (*providers.Property, error) {
	s.byKey++
	id, ok := s.keys[key]
	if !ok {
		return nil, providers.NotFound("property_not_found", "no property")
	}
	p := s.props[id]
	return &p, nil
}
func (s *countingStore) Nearest(context.Context, providers.Point, float64) (*providers.Property, error) {
	return nil, providers.NotFound("property_not_found", "none")
}
func (s *countingStore) Save(_ context.Context, np providers.NewProperty) (*providers.Property, bool, error) {
	p := np.Property
	p.ID = int64(len(s.props) + 1)
	s.props[p.ID] = p
	for _, k := range np.Keys {
		s.keys[k] = p.ID
	}
	return &p, true, nil
}
func (s *countingStore) Search(context.Context, providers.SearchFilter) ([]providers.Property, int, error) {
	return nil, 0, nil
}
func (s *countingStore) Section(_ context.Context, section, key string) (*providers.SectionRecord, error) {
	s.sectionReads++
	r, ok := s.sections[section+"|"+key]
	if !ok {
		return nil, providers.NotFound("section_not_found", "none")
	}
	return &r, nil
}
func (s *countingStore) PutSection(_ context.Context, r providers.SectionRecord) error {
	s.sections[r.Section+"|"+r.Key] = r
	return nil
}
func (s *countingStore) Ping(context.Context) error { return nil }
func (s *countingStore) Close() error               { return nil }

func newTestStore(t *testing.T) (*Store, *countingStore) {
	t.Helper()
	c, err := New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	inner := newCountingStore()
	return NewStore(inner, c, time.Hour), inner
}

func TestPropertyReadsHitMemoryAfterFirstRead(t *testing.T) {
	s, inner := newTestStore(t)
	ctx := context.Background()
	p, _, err := s.Save(ctx, providers.NewProperty{Property: providers.Property{City: "RICHMOND"}, Keys: []string{"k1"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Cache().Wait()
	for i := 0; i < 3; i++ {
		got, err := s.Property(ctx, p.ID)
		if err != nil || got.City != "RICHMOND" {
			t.Fatalf("Property(%d) = %+v, %v", p.ID, got, err)
		}
		got, err = s.PropertyByKey(ctx, "k1")
		if err != nil || got.ID != p.ID {
			t.Fatalf("PropertyByKey = %+v, %v", got, err)
		}
	}
	if inner.byID != 0 || inner.byKey != 0 {
		t.Fatalf("database read %d times by id and %d by key; want 0 after a cached save", inner.byID, inner.byKey)
	}
}

func TestCachedRecordsAreCopies(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	p, _, _ := s.Save(ctx, providers.NewProperty{Property: providers.Property{City: "A"}})
	s.Cache().Wait()
	got, _ := s.Property(ctx, p.ID)
	got.City = "MUTATED"
	again, _ := s.Property(ctx, p.ID)
	if again.City != "A" {
		t.Fatalf("a caller's change leaked into the cache: %q", again.City)
	}
}

func TestMissFallsThroughAndNotFoundPropagates(t *testing.T) {
	s, inner := newTestStore(t)
	if _, err := s.Property(context.Background(), 42); providers.CodeOf(err) != "property_not_found" {
		t.Fatalf("unknown id: err = %v", err)
	}
	if inner.byID != 1 {
		t.Fatalf("database reads = %d, want 1", inner.byID)
	}
}

func TestSectionsCached(t *testing.T) {
	s, inner := newTestStore(t)
	ctx := context.Background()
	rec := providers.SectionRecord{Section: "flood", Key: "1,2", Data: []byte(`{"zone":"X"}`), ExpiresAt: time.Now().Add(time.Hour)}
	if err := s.PutSection(ctx, rec); err != nil {
		t.Fatal(err)
	}
	s.Cache().Wait()
	got, err := s.Section(ctx, "flood", "1,2")
	if err != nil || string(got.Data) != `{"zone":"X"}` {
		t.Fatalf("Section = %+v, %v", got, err)
	}
	if inner.sectionReads != 0 {
		t.Fatalf("section read from database %d times, want 0", inner.sectionReads)
	}
}

func TestNilCacheHoldsNothing(t *testing.T) {
	c, err := New(0)
	if err != nil || c != nil {
		t.Fatalf("New(0) = %v, %v; want nil cache", c, err)
	}
	c.Set("a", 1, 1, 0)
	if _, ok := c.Get("a"); ok {
		t.Fatal("nil cache returned a value")
	}
}

func BenchmarkCachedPropertyByID(b *testing.B) {
	c, _ := New(64 << 20)
	defer c.Close()
	s := NewStore(newCountingStore(), c, 0)
	ctx := context.Background()
	p, _, _ := s.Save(ctx, providers.NewProperty{Property: providers.Property{City: "A"}})
	c.Wait()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Property(ctx, p.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestBulkSectionWritesDropWhatMemoryHeld: a state's tracts written in bulk
// are read from the store next, never an older value memory still held,
// and are not pushed into memory themselves.
func TestBulkSectionWritesDropWhatMemoryHeld(t *testing.T) {
	s, inner := newTestStore(t)
	ctx := context.Background()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	old := providers.SectionRecord{Section: "housing", Key: "06001000100", Data: []byte(`{"v":"old"}`), FetchedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.PutSection(ctx, old); err != nil {
		t.Fatal(err)
	}
	s.c.Wait()
	if _, err := s.Section(ctx, "housing", old.Key); err != nil {
		t.Fatal(err)
	}
	reads := inner.sectionReads
	fresh := old
	fresh.Data, fresh.FetchedAt = []byte(`{"v":"new"}`), t0.Add(time.Minute)
	added := providers.SectionRecord{Section: "housing", Key: "06001000200", Data: []byte(`{"v":2}`), FetchedAt: t0.Add(time.Minute)}
	n, err := s.CopySections(ctx, []providers.SectionRecord{fresh, added})
	if err != nil || n != 2 {
		t.Fatalf("CopySections = %d, %v; want 2", n, err)
	}
	s.c.Wait()
	got, err := s.Section(ctx, "housing", old.Key)
	if err != nil || string(got.Data) != `{"v":"new"}` {
		t.Fatalf("after the bulk write: %+v, %v; want the new value", got, err)
	}
	if _, err := s.Section(ctx, "housing", added.Key); err != nil {
		t.Fatal(err)
	}
	// Without bulk writes of its own the inner store is read once per value
	// to keep newer ones, then each value once from the store, not memory.
	if n := inner.sectionReads - reads; n != 4 {
		t.Fatalf("%d store reads, want 4 (2 by the write, 2 by the reads after it)", n)
	}
}
