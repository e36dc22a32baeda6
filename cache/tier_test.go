package cache

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// readTier performs read under a tracked context and returns the tier the
// store reported.
func readTier(t *testing.T, read func(ctx context.Context) error) string {
	t.Helper()
	ctx := providers.TrackTier(context.Background())
	if err := read(ctx); err != nil {
		t.Fatalf("read: %v", err)
	}
	return ctx.Tier()
}

func TestStoreReportsTheTierThatAnsweredEachRead(t *testing.T) {
	s, inner := newTestStore(t)
	ctx := context.Background()
	// Records written behind the cache's back are read from the database
	// first, from memory afterwards.
	inner.props[7] = providers.Property{ID: 7, City: "RICHMOND"}
	inner.keys["k7"] = 7
	inner.sections["flood|1,2"] = providers.SectionRecord{Section: "flood", Key: "1,2", Data: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)}

	byID := func(ctx context.Context) error { _, err := s.Property(ctx, 7); return err }
	byKey := func(ctx context.Context) error { _, err := s.PropertyByKey(ctx, "k7"); return err }
	section := func(ctx context.Context) error { _, err := s.Section(ctx, "flood", "1,2"); return err }

	if got := readTier(t, byKey); got != providers.TierDatabase {
		t.Fatalf("first read by key answered from %q, want sqlite", got)
	}
	if got := readTier(t, section); got != providers.TierDatabase {
		t.Fatalf("first section read answered from %q, want sqlite", got)
	}
	s.Cache().Wait()
	if got := readTier(t, byID); got != providers.TierMemory {
		t.Fatalf("read by id after a read by key answered from %q, want ristretto", got)
	}
	if got := readTier(t, byKey); got != providers.TierMemory {
		t.Fatalf("second read by key answered from %q, want ristretto", got)
	}
	if got := readTier(t, section); got != providers.TierMemory {
		t.Fatalf("second section read answered from %q, want ristretto", got)
	}
	if inner.byID != 0 || inner.byKey != 1 || inner.sectionReads != 1 {
		t.Fatalf("database reads: %d by id, %d by key, %d sections; want 0, 1, 1", inner.byID, inner.byKey, inner.sectionReads)
	}
	// A miss reports nothing: no tier served it.
	tracked := providers.TrackTier(ctx)
	if _, err := s.Property(tracked, 99); providers.KindOf(err) != providers.KindNotFound {
		t.Fatalf("unknown id: %v", err)
	}
	if tracked.Tier() != "" {
		t.Fatalf("a miss reported tier %q", tracked.Tier())
	}
}

func TestStoreWithoutMemoryReportsTheDatabase(t *testing.T) {
	inner := newCountingStore()
	inner.props[1] = providers.Property{ID: 1}
	s := NewStore(inner, nil, 0)
	for i := 0; i < 2; i++ {
		if got := readTier(t, func(ctx context.Context) error { _, err := s.Property(ctx, 1); return err }); got != providers.TierDatabase {
			t.Fatalf("read %d with the cache off answered from %q, want sqlite", i, got)
		}
	}
}
