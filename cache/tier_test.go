package cache

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// readTier performs read and returns the tier that answered it.
func readTier(t *testing.T, read func(ctx context.Context) (string, error)) string {
	t.Helper()
	tier, err := read(context.Background())
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return tier
}

func TestStoreReportsTheTierThatAnsweredEachRead(t *testing.T) {
	s, inner := newTestStore(t)
	ctx := context.Background()
	// Records written behind the cache's back are read from the database
	// first, from memory afterwards.
	inner.props[7] = providers.Property{ID: 7, City: "RICHMOND"}
	inner.keys["k7"] = 7
	inner.sections["flood|1,2"] = providers.SectionRecord{Section: "flood", Key: "1,2", Data: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)}

	reads := providers.ReadsOf(s)
	byID := func(ctx context.Context) (string, error) {
		_, tier, err := reads.Property.Get(ctx, 7)
		return tier, err
	}
	byKey := func(ctx context.Context) (string, error) {
		_, tier, err := reads.ByKey.Get(ctx, "k7")
		return tier, err
	}
	section := func(ctx context.Context) (string, error) {
		_, tier, err := reads.Section.Get(ctx, providers.SectionID{Section: "flood", Key: "1,2"})
		return tier, err
	}

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
	if _, tier, err := reads.Property.Get(ctx, 99); providers.KindOf(err) != providers.KindNotFound || tier != "" {
		t.Fatalf("unknown id: tier %q, %v", tier, err)
	}
	// Reload goes past memory to the database, and keeps what it read.
	inner.sections["flood|1,2"] = providers.SectionRecord{Section: "flood", Key: "1,2", Data: []byte(`{"zone":"AE"}`), ExpiresAt: time.Now().Add(time.Hour)}
	r, tier, err := providers.Reload(ctx, reads.Section, providers.SectionID{Section: "flood", Key: "1,2"})
	if err != nil || tier != providers.TierDatabase || string(r.Data) != `{"zone":"AE"}` {
		t.Fatalf("Reload = %+v, %q, %v; want the database's newer value", r, tier, err)
	}
	s.Cache().Wait()
	if r, tier, _ := reads.Section.Get(ctx, providers.SectionID{Section: "flood", Key: "1,2"}); tier != providers.TierMemory || string(r.Data) != `{"zone":"AE"}` {
		t.Fatalf("read after Reload = %s from %q; want the reloaded value from memory", r.Data, tier)
	}
}

func TestStoreWithoutMemoryReportsTheDatabase(t *testing.T) {
	inner := newCountingStore()
	inner.props[1] = providers.Property{ID: 1}
	s := NewStore(inner, nil, 0)
	for i := 0; i < 2; i++ {
		if got := readTier(t, func(ctx context.Context) (string, error) {
			_, tier, err := providers.ReadsOf(s).Property.Get(ctx, 1)
			return tier, err
		}); got != providers.TierDatabase {
			t.Fatalf("read %d with the cache off answered from %q, want sqlite", i, got)
		}
	}
}
