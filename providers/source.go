package providers

import "context"

// Source answers a key with a value and says which tier answered it
// (TierMemory, TierDatabase, TierUpstream). It is the one shape of every
// read propertyd makes: the database answers it, and each tier in front of
// it (the memory cache) is a decorator of the same shape, as Loki stacks its
// caches, so the caller learns where its value came from in the result
// rather than through its context. A miss is KindNotFound, as the store
// reports it.
type Source[K comparable, V any] interface {
	Get(ctx context.Context, key K) (V, string, error)
}

// SourceFunc is a Source made of a function.
type SourceFunc[K comparable, V any] func(ctx context.Context, key K) (V, string, error)

// Get calls f.
func (f SourceFunc[K, V]) Get(ctx context.Context, key K) (V, string, error) { return f(ctx, key) }

// Reloader is a Source with tiers in front of its origin. Reload answers
// from the origin itself, past every tier, and refreshes the tiers with
// the answer: for a caller that knows its tier's copy may be behind the
// origin's, because another instance sharing the database wrote since.
type Reloader[K comparable, V any] interface {
	Source[K, V]
	Reload(ctx context.Context, key K) (V, string, error)
}

// Reload answers key from src's origin (see Reloader); a Source without
// tiers is its own origin.
func Reload[K comparable, V any](ctx context.Context, src Source[K, V], key K) (V, string, error) {
	if r, ok := src.(Reloader[K, V]); ok {
		return r.Reload(ctx, key)
	}
	return src.Get(ctx, key)
}

// SectionID names one stored section value: the section and the natural
// key of its data.
type SectionID struct{ Section, Key string }

// Reads are the reads of a Store that may be answered by a tier in front
// of the database: records by id and by lookup key, and section values.
type Reads struct {
	Property Source[int64, *Property]
	ByKey    Source[string, *Property]
	Section  Source[SectionID, *SectionRecord]
}

// Tiered is a Store with tiers in front of it; its Reads say which tier
// answered each read.
type Tiered interface {
	Store
	Reads() Reads
}

// ReadsOf returns the reads of st: its tiers' when it has them (Tiered),
// else its own methods, each answered by the database.
func ReadsOf(st Store) Reads {
	if t, ok := st.(Tiered); ok {
		return t.Reads()
	}
	return DatabaseReads(st)
}

// DatabaseReads returns st's methods as Sources answered by TierDatabase:
// the origin the tiers of a Tiered store wrap.
func DatabaseReads(st Store) Reads {
	return Reads{
		Property: SourceFunc[int64, *Property](func(ctx context.Context, id int64) (*Property, string, error) {
			return database(st.Property(ctx, id))
		}),
		ByKey: SourceFunc[string, *Property](func(ctx context.Context, key string) (*Property, string, error) {
			return database(st.PropertyByKey(ctx, key))
		}),
		Section: SourceFunc[SectionID, *SectionRecord](func(ctx context.Context, id SectionID) (*SectionRecord, string, error) {
			return database(st.Section(ctx, id.Section, id.Key))
		}),
	}
}

// database is a database answer as a Source's: no tier answered an error.
func database[V any](v V, err error) (V, string, error) {
	if err != nil {
		return v, "", err
	}
	return v, TierDatabase, nil
}
