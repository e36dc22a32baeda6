package providers_test

import (
	"context"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// oneRecord is a Store holding the record with id 1 and nothing else; the
// methods it does not override are never called here.
type oneRecord struct{ providers.Store }

func (oneRecord) Property(_ context.Context, id int64) (*providers.Property, error) {
	if id != 1 {
		return nil, providers.NotFound(providers.CodePropertyNotFound, "no such property")
	}
	return &providers.Property{ID: 1, City: "RICHMOND"}, nil
}

func TestReadsOfAPlainStoreAreAnsweredByTheDatabase(t *testing.T) {
	reads := providers.ReadsOf(oneRecord{})
	p, tier, err := reads.Property.Get(context.Background(), 1)
	if err != nil || p.City != "RICHMOND" || tier != providers.TierDatabase {
		t.Fatalf("Get(1) = %+v, %q, %v; want the record from %q", p, tier, err, providers.TierDatabase)
	}
	// A miss is the store's own error, answered by no tier.
	if _, tier, err := reads.Property.Get(context.Background(), 2); providers.KindOf(err) != providers.KindNotFound || tier != "" {
		t.Fatalf("Get(2) = %q, %v; want KindNotFound from no tier", tier, err)
	}
	// Without tiers the store is its own origin.
	if p, tier, err := providers.Reload(context.Background(), reads.Property, 1); err != nil || p.ID != 1 || tier != providers.TierDatabase {
		t.Fatalf("Reload(1) = %+v, %q, %v", p, tier, err)
	}
}

// tiered answers Get from its "memory" and Reload from its origin.
type tiered struct{ reloads int }

func (t *tiered) Get(context.Context, string) (string, string, error) {
	return "old", providers.TierMemory, nil
}
func (t *tiered) Reload(context.Context, string) (string, string, error) {
	t.reloads++
	return "new", providers.TierDatabase, nil
}

func TestReloadGoesPastTheTiers(t *testing.T) {
	src := &tiered{}
	v, tier, err := providers.Reload[string, string](context.Background(), src, "k")
	if err != nil || v != "new" || tier != providers.TierDatabase || src.reloads != 1 {
		t.Fatalf("Reload = %q, %q, %v after %d reloads; want the origin's value", v, tier, err, src.reloads)
	}
}
