package cache

import (
	"context"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Tier is the memory tier in front of a providers.Source: a read it holds
// is answered from memory (TierMemory), any other from Inner, whose answer
// it then keeps. It has the Source shape itself, so the caller learns from
// each result which tier answered; Reload goes past it to Inner, for a
// caller that knows memory may be behind the database (another instance
// wrote). Errors are not kept: a miss asks Inner again.
type Tier[K comparable, V any] struct {
	Inner providers.Source[K, V]
	Cache *Cache        // nil holds nothing: every read goes to Inner
	TTL   time.Duration // how long a kept value may be served (0: until evicted)
	Key   func(K) string
	// Cost estimates the bytes v holds in memory, for the cache's bound.
	Cost func(V) int64
	// Copy, when set, copies a value as it goes into and out of memory, so
	// no caller can corrupt the cache by writing to what it was given.
	// Nil shares one value between the cache and its readers, for values
	// that are never written to once built.
	Copy func(V) V
}

var _ providers.Reloader[string, int] = (*Tier[string, int])(nil)

// Get answers key from memory, else from Inner.
func (t *Tier[K, V]) Get(ctx context.Context, key K) (V, string, error) {
	if v, ok := t.Cache.Get(t.Key(key)); ok {
		return t.out(v.(V)), providers.TierMemory, nil
	}
	return t.Reload(ctx, key)
}

// Reload answers key from Inner and keeps the answer.
func (t *Tier[K, V]) Reload(ctx context.Context, key K) (V, string, error) {
	v, tier, err := t.Inner.Get(ctx, key)
	if err == nil {
		t.Put(key, v)
	}
	return v, tier, err
}

// Put keeps v under key, as written through to the database by the caller.
func (t *Tier[K, V]) Put(key K, v V) {
	if t.Cache == nil {
		return
	}
	t.Cache.Set(t.Key(key), t.out(v), t.Cost(v), t.TTL)
}

func (t *Tier[K, V]) out(v V) V {
	if t.Copy == nil {
		return v
	}
	return t.Copy(v)
}
