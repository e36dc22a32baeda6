package factsql

import (
	"context"

	"github.com/propertyd/propertyd/providers"
)

// Store is providers.FactStore over an engine's Facts: each engine embeds
// one, so the methods are written once.
type Store struct{ Facts *Facts }

// BeginFacts starts or resumes a load of dataset (see Facts.Begin).
func (s Store) BeginFacts(ctx context.Context, dataset, fingerprint string) (providers.FactLoad, *providers.FactSet, error) {
	return s.Facts.Begin(ctx, dataset, fingerprint)
}

// PutFacts writes a batch of a load and its checkpoint (see Facts.Put).
func (s Store) PutFacts(ctx context.Context, load *providers.FactLoad, keys []providers.FactKey, rows []providers.FactRow,
	done, failed, failuresSize int64) error {
	return s.Facts.Put(ctx, load, keys, rows, done, failed, failuresSize)
}

// PublishFacts serves a load and merges the records it touches (see
// Facts.Publish).
func (s Store) PublishFacts(ctx context.Context, load providers.FactLoad, set providers.FactSet,
	progress func(done, total int)) (providers.FactSet, error) {
	return s.Facts.Publish(ctx, load, set, progress)
}

// DropFacts drops a retired generation of a dataset (see
// Facts.DropGeneration).
func (s Store) DropFacts(ctx context.Context, dataset string, generation int64) error {
	return s.Facts.DropGeneration(ctx, dataset, generation)
}

// FactSets lists the datasets served (see Facts.Sets).
func (s Store) FactSets(ctx context.Context) ([]providers.FactSet, error) { return s.Facts.Sets(ctx) }

// PutImportFacts sets the operator's own facts of a record (see
// Facts.PutImport).
func (s Store) PutImportFacts(ctx context.Context, id int64, f providers.Facts, asOf string) error {
	return s.Facts.PutImport(ctx, id, f, asOf)
}

// FactsVersion changes with every publish and import (see Facts.Version).
func (s Store) FactsVersion(ctx context.Context) (string, error) { return s.Facts.Version(ctx) }
