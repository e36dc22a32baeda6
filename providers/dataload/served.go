package dataload

import (
	"context"
	"sync"

	"github.com/propertyd/propertyd/providers"
)

// Lister is what Served reads the datasets through: the store's
// providers.DatasetStore.
type Lister interface {
	Datasets(ctx context.Context, kind string) ([]providers.Dataset, error)
	DatasetsVersion(ctx context.Context) (string, error)
}

// Served is the datasets of one kind a reader answers from, as every
// instance of a fleet sees them: Read asks the store's DatasetsVersion on
// each call (one row of a small table) and lists the datasets again only
// when it changed, so an instance answers from a new load as soon as it
// is published, and never from a generation its loader has dropped: a
// read that a publication overtook is read again. It is safe for
// concurrent use.
type Served struct {
	Store Lister
	Kind  string

	mu      sync.Mutex
	version string
	list    []providers.Dataset
}

// Read calls read with the datasets served of the kind whose coverage
// holds p (none is no error: read is not called and Read returns false),
// and reads again when a publication changed what is served meanwhile, at
// most three times in all. It returns whether read was called on
// datasets that stayed served throughout, and read's error.
func (s *Served) Read(ctx context.Context, p providers.Point, read func(ds []providers.Dataset) error) (bool, error) {
	return s.ReadWhere(ctx, func(d providers.Dataset) bool { return d.Covers(p) }, read)
}

// ReadWhere is Read of the datasets keep keeps, for a reader that has no
// point yet: the local geocoder reads the address datasets of a state.
func (s *Served) ReadWhere(ctx context.Context, keep func(providers.Dataset) bool, read func(ds []providers.Dataset) error) (bool, error) {
	for range 3 {
		v, ds, err := s.datasets(ctx)
		if err != nil {
			return false, err
		}
		var kept []providers.Dataset
		for _, d := range ds {
			if keep(d) {
				kept = append(kept, d)
			}
		}
		if len(kept) == 0 {
			return false, nil
		}
		if err := read(kept); err != nil {
			return false, err
		}
		after, err := s.Store.DatasetsVersion(ctx)
		if err != nil {
			return false, err
		}
		if after == v {
			return true, nil
		}
	}
	return false, providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable,
		"the %s datasets kept changing while they were read", s.Kind)
}

// List returns every dataset served of the kind, wherever it lies, as
// Read lists them (again only when a publication changed them): for a
// reader that asks what is loaded before it has a point, as the geocoder
// asks whether a state's boundaries are before it matches an address.
func (s *Served) List(ctx context.Context) ([]providers.Dataset, error) {
	_, ds, err := s.datasets(ctx)
	return ds, err
}

// datasets returns the version served and the datasets of the kind,
// listed again when the version changed since the last listing.
func (s *Served) datasets(ctx context.Context) (string, []providers.Dataset, error) {
	v, err := s.Store.DatasetsVersion(ctx)
	if err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	if s.list != nil && s.version == v {
		ds := s.list
		s.mu.Unlock()
		return v, ds, nil
	}
	s.mu.Unlock()
	ds, err := s.Store.Datasets(ctx, s.Kind)
	if err != nil {
		return "", nil, err
	}
	if ds == nil {
		ds = []providers.Dataset{}
	}
	s.mu.Lock()
	s.version, s.list = v, ds
	s.mu.Unlock()
	return v, ds, nil
}
