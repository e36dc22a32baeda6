package cache

import (
	"context"
	"strconv"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Store puts a Cache in front of a providers.Store: records by id, lookup
// keys to ids, and section values. Searches and nearest-neighbour queries go
// straight to the store (their results change with every insert). Values
// handed out are copies, so callers may not corrupt the cache. Safe for
// concurrent use.
type Store struct {
	providers.Store
	c   *Cache
	ttl time.Duration
}

var _ providers.Store = (*Store)(nil)

// NewStore wraps inner with c; ttl bounds how long a cached record may be
// served without reading the database (0: until evicted).
func NewStore(inner providers.Store, c *Cache, ttl time.Duration) *Store {
	return &Store{Store: inner, c: c, ttl: ttl}
}

// Cache returns the cache in front of the store.
func (s *Store) Cache() *Cache { return s.c }

func idKey(id int64) string         { return "p:" + strconv.FormatInt(id, 10) }
func aliasKey(key string) string    { return "k:" + key }
func sectionKey(s, k string) string { return "s:" + s + ":" + k }

// propertyBytes estimates the memory a cached record holds.
// The constant is measured: a cached record with short strings holds about
// 400 bytes of heap (the struct, its pointers, ristretto's entry).
func propertyBytes(p *providers.Property) int64 {
	return int64(400 + len(p.StreetAddress) + len(p.Unit) + len(p.City) + len(p.County) + len(p.Source))
}

// Property returns the record with id, from memory when it is there. It
// reports the tier that answered to a providers.TierTracker.
func (s *Store) Property(ctx context.Context, id int64) (*providers.Property, error) {
	if v, ok := s.c.Get(idKey(id)); ok {
		p := *v.(*providers.Property)
		providers.ServedFrom(ctx, providers.TierMemory)
		return &p, nil
	}
	p, err := s.Store.Property(ctx, id)
	if err != nil {
		return nil, err
	}
	providers.ServedFrom(ctx, providers.TierDatabase)
	s.putProperty(p)
	return p, nil
}

// PropertyByKey resolves a lookup key through memory, then the database.
func (s *Store) PropertyByKey(ctx context.Context, key string) (*providers.Property, error) {
	if v, ok := s.c.Get(aliasKey(key)); ok {
		return s.Property(ctx, v.(int64))
	}
	p, err := s.Store.PropertyByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	providers.ServedFrom(ctx, providers.TierDatabase)
	s.c.Set(aliasKey(key), p.ID, int64(len(key)+48), s.ttl)
	s.putProperty(p)
	return p, nil
}

// Save writes through to the store and caches the result and its keys.
func (s *Store) Save(ctx context.Context, np providers.NewProperty) (*providers.Property, bool, error) {
	p, created, err := s.Store.Save(ctx, np)
	if err != nil {
		return nil, false, err
	}
	s.putProperty(p)
	for _, k := range np.Keys {
		s.c.Set(aliasKey(k), p.ID, int64(len(k)+48), s.ttl)
	}
	return p, created, nil
}

func (s *Store) putProperty(p *providers.Property) {
	cp := *p
	s.c.Set(idKey(p.ID), &cp, propertyBytes(p), s.ttl)
}

// Section returns a section value, from memory when it is there. Expired
// values are returned too; the caller decides whether they are stale. It
// reports the tier that answered to a providers.TierTracker.
func (s *Store) Section(ctx context.Context, section, key string) (*providers.SectionRecord, error) {
	if v, ok := s.c.Get(sectionKey(section, key)); ok {
		r := *v.(*providers.SectionRecord)
		providers.ServedFrom(ctx, providers.TierMemory)
		return &r, nil
	}
	r, err := s.Store.Section(ctx, section, key)
	if err != nil {
		return nil, err
	}
	providers.ServedFrom(ctx, providers.TierDatabase)
	s.putSection(r)
	return r, nil
}

// PutSection writes through to the store and caches the value.
func (s *Store) PutSection(ctx context.Context, r providers.SectionRecord) error {
	if err := s.Store.PutSection(ctx, r); err != nil {
		return err
	}
	s.putSection(&r)
	return nil
}

func (s *Store) putSection(r *providers.SectionRecord) {
	cp := *r
	s.c.Set(sectionKey(r.Section, r.Key), &cp, int64(160+len(r.Data)+len(r.Key)), s.ttl)
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
		s.c.Del(sectionKey(r.Section, r.Key))
	}
	return n, err
}
