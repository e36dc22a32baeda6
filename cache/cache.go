// Package cache is propertyd's in-memory tier: a ristretto cache bounded in
// bytes, and a decorator that puts it in front of a providers.Store (Loki's
// cache-decorator shape), so the gateway reads records by id and by address
// key, and enrichment sections by their natural key, without touching SQLite
// when they are hot. It is the only package that imports ristretto.
//
// ristretto admits writes probabilistically and asynchronously: a Set may be
// dropped and a Get right after a Set may miss. Callers never rely on reading
// their own write; the store behind is always the truth.
package cache

import (
	"fmt"
	"time"

	"github.com/dgraph-io/ristretto/v2"
)

// Cache is a concurrent in-memory cache bounded by approximate bytes. The
// zero value is not usable; build one with New. A nil *Cache is a valid
// cache that holds nothing, for configurations that turn caching off.
type Cache struct {
	c *ristretto.Cache[string, any]
}

// New returns a cache holding at most maxBytes of estimated value sizes.
// maxBytes <= 0 returns a nil cache that holds nothing.
func New(maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		return nil, nil
	}
	// ristretto wants about ten counters per item at capacity; items are a
	// few hundred bytes, so one counter per 30 bytes of budget.
	counters := maxBytes / 30
	if counters < 1000 {
		counters = 1000
	}
	c, err := ristretto.NewCache(&ristretto.Config[string, any]{
		NumCounters: counters,
		MaxCost:     maxBytes,
		BufferItems: 64,
	})
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{c: c}, nil
}

// Get returns the value under key.
func (c *Cache) Get(key string) (any, bool) {
	if c == nil {
		return nil, false
	}
	return c.c.Get(key)
}

// Set stores v under key with an estimated size in bytes; ttl <= 0 means no
// expiry. The write may be dropped by the admission policy.
func (c *Cache) Set(key string, v any, bytes int64, ttl time.Duration) {
	if c == nil {
		return
	}
	if ttl > 0 {
		c.c.SetWithTTL(key, v, bytes, ttl)
	} else {
		c.c.Set(key, v, bytes)
	}
}

// Del removes key.
func (c *Cache) Del(key string) {
	if c != nil {
		c.c.Del(key)
	}
}

// Wait blocks until pending writes are applied; for tests.
func (c *Cache) Wait() {
	if c != nil {
		c.c.Wait()
	}
}

// Close stops the cache's goroutines; it must not be used afterwards.
func (c *Cache) Close() {
	if c != nil {
		c.c.Close()
	}
}

// Clear drops every value: what the cache held was read before a change
// it cannot see key by key (a load of property facts touches thousands of
// records at once).
func (c *Cache) Clear() {
	if c != nil {
		c.c.Clear()
	}
}
