package cache

import (
	"context"
	"strconv"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Store puts a Cache in front of a providers.Store: records by id, lookup
// keys to ids, and section values, each a Tier over the store's own read.
// Searches and nearest-neighbour queries go straight to the store (their
// results change with every insert). Records handed out are copies, so
// callers may not corrupt the cache; section values are shared, never
// written to once stored (see providers.SectionRecord). Safe for
// concurrent use.
type Store struct {
	providers.Store
	c        *Cache
	ttl      time.Duration
	inner    providers.Reads
	props    *Tier[int64, *providers.Property]
	sections *Tier[providers.SectionID, *providers.SectionRecord]
}

var _ providers.Tiered = (*Store)(nil)

// NewStore wraps inner with c; ttl bounds how long a cached record may be
// served without reading the database (0: until evicted).
func NewStore(inner providers.Store, c *Cache, ttl time.Duration) *Store {
	reads := providers.DatabaseReads(inner)
	return &Store{Store: inner, c: c, ttl: ttl, inner: reads,
		props: &Tier[int64, *providers.Property]{Inner: reads.Property, Cache: c, TTL: ttl,
			Key: idKey, Cost: propertyBytes, Copy: copyProperty},
		sections: &Tier[providers.SectionID, *providers.SectionRecord]{Inner: reads.Section, Cache: c, TTL: ttl,
			Key: sectionKey, Cost: sectionBytes},
	}
}

// Cache returns the cache in front of the store.
func (s *Store) Cache() *Cache { return s.c }

// Reads returns the store's reads through memory.
func (s *Store) Reads() providers.Reads {
	return providers.Reads{Property: s.props, ByKey: byKey{s}, Section: s.sections}
}

func idKey(id int64) string                                  { return "p:" + strconv.FormatInt(id, 10) }
func aliasKey(key string) string                             { return "k:" + key }
func sectionKey(id providers.SectionID) string               { return "s:" + id.Section + ":" + id.Key }
func copyProperty(p *providers.Property) *providers.Property { cp := *p; return &cp }

// propertyBytes estimates the memory a cached record holds.
// The constant is measured: a cached record with short strings holds about
// 400 bytes of heap (the struct, its pointers, ristretto's entry).
func propertyBytes(p *providers.Property) int64 {
	return int64(400 + len(p.StreetAddress) + len(p.Unit) + len(p.City) + len(p.County) + len(p.Source))
}

func sectionBytes(r *providers.SectionRecord) int64 { return int64(160 + len(r.Data) + len(r.Key)) }

// byKey resolves lookup keys through memory (key to id, then the record
// by id), then the database.
type byKey struct{ s *Store }

func (b byKey) Get(ctx context.Context, key string) (*providers.Property, string, error) {
	if v, ok := b.s.c.Get(aliasKey(key)); ok {
		return b.s.props.Get(ctx, v.(int64))
	}
	return b.Reload(ctx, key)
}

func (b byKey) Reload(ctx context.Context, key string) (*providers.Property, string, error) {
	p, tier, err := b.s.inner.ByKey.Get(ctx, key)
	if err != nil {
		return nil, "", err
	}
	b.s.c.Set(aliasKey(key), p.ID, int64(len(key)+48), b.s.ttl)
	b.s.props.Put(p.ID, p)
	return p, tier, nil
}

// Property returns the record with id, from memory when it is there.
func (s *Store) Property(ctx context.Context, id int64) (*providers.Property, error) {
	p, _, err := s.props.Get(ctx, id)
	return p, err
}

// PropertyByKey resolves a lookup key through memory, then the database.
func (s *Store) PropertyByKey(ctx context.Context, key string) (*providers.Property, error) {
	p, _, err := byKey{s}.Get(ctx, key)
	return p, err
}

// Save writes through to the store and caches the result and its keys.
func (s *Store) Save(ctx context.Context, np providers.NewProperty) (*providers.Property, bool, error) {
	p, created, err := s.Store.Save(ctx, np)
	if err != nil {
		return nil, false, err
	}
	s.props.Put(p.ID, p)
	for _, k := range np.Keys {
		s.c.Set(aliasKey(k), p.ID, int64(len(k)+48), s.ttl)
	}
	return p, created, nil
}

// Section returns a section value, from memory when it is there. Expired
// values are returned too; the caller decides whether they are stale.
func (s *Store) Section(ctx context.Context, section, key string) (*providers.SectionRecord, error) {
	r, _, err := s.sections.Get(ctx, providers.SectionID{Section: section, Key: key})
	return r, err
}

// PutSection writes through to the store and caches the value.
func (s *Store) PutSection(ctx context.Context, r providers.SectionRecord) error {
	if err := s.Store.PutSection(ctx, r); err != nil {
		return err
	}
	s.sections.Put(providers.SectionID{Section: r.Section, Key: r.Key}, &r)
	return nil
}

var _ providers.SectionCopier = (*Store)(nil)

// CopySections writes recs through to the store in one transaction when it
// can (providers.SectionCopier), else one by one, keeping only values
// absent or fetched later than the stored ones. The values are not put in
// memory: a whole state's tracts would push out what requests use, and
// most of them may never be asked for; any of their keys held in memory
// is dropped instead, so the next read finds the new value in the
// database.
func (s *Store) CopySections(ctx context.Context, recs []providers.SectionRecord) (int, error) {
	n, err := providers.CopySections(ctx, s.Store, recs)
	for _, r := range recs {
		s.c.Del(sectionKey(providers.SectionID{Section: r.Section, Key: r.Key}))
	}
	return n, err
}
