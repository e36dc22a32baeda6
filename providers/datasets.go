package providers

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// The kinds of dataset loaded from files on the one loading lifecycle
// (DatasetStore, package providers/dataload).
const (
	KindBoundaries = "boundaries" // TIGER/Line census tracts and counties
	KindFlood      = "flood"      // NFHL flood hazard areas and FIRM panels
	KindParcels    = "parcels"    // assessor datasets: property facts (FactStore)
	KindOSM        = "osm"        // OpenStreetMap extracts (OSMStore)
)

// Retired is a generation of a dataset that no reader reads any more
// (replaced, or its load abandoned), waiting for the loader to drop its
// rows. The name is the dataset's: a kind that numbers its generations
// per dataset (the assessor datasets) has generations of the same number
// in several datasets.
type Retired struct {
	Name       string
	Generation int64
}

// ErrKeep is the cause of a kind's drop of a retired generation that is
// still read, or could not be dropped now (a lock another reader holds):
// the generation stays retired, and a later drop takes it.
var ErrKeep = errors.New("the generation is still in use: kept for a later drop")

// Checkpoint is how far a load has read its input: Done input features
// are committed (a resumed load skips them), Failed of them went to the
// failures file, which was FailuresSize bytes long then (a resumed load
// cuts it back to that, so no failure is written twice).
type Checkpoint struct {
	Done, Failed, FailuresSize int64
}

// DatasetLoad is a load of one dataset in progress: what it writes is kept
// under Generation, which no reader reads until PublishDataset serves it.
type DatasetLoad struct {
	Kind, Name  string
	Generation  int64
	Fingerprint string
	Checkpoint
	// Resumed is set when BeginDataset took up a load cut short before.
	Resumed bool
}

// Dataset is a dataset served: the generation of one kind and name that
// readers read.
type Dataset struct {
	Kind string
	// Name is the dataset's name within its kind, by default its file's
	// name without extension ("tl_2020_11_tract"): a later load of the same
	// name replaces it.
	Name        string
	Generation  int64
	Fingerprint string
	Rows        int64 // features kept
	Failed      int64 // features written to the failures file
	// Vintage is what the publisher dates the data by: the TIGER/Line year
	// ("2020"), the newest effective date of a flood map's panels
	// (YYYY-MM-DD).
	Vintage string
	// Coverage is the box of what the dataset covers: every feature's
	// for boundaries, the FIRM panels' for a flood map.
	Coverage BBox
	// Meta is what the kind keeps besides (a JSON object; {} for none).
	Meta json.RawMessage
	// FailuresFile is the failures file the load wrote ("" for none),
	// as its command was given it; Took is how long its last run took.
	FailuresFile string
	Took         time.Duration
	LoadedAt     time.Time
}

// Covers reports whether p is in the dataset's coverage box.
func (d Dataset) Covers(p Point) bool {
	c := d.Coverage
	return p.Lat >= c.South && p.Lat <= c.North && p.Lng >= c.West && p.Lng <= c.East
}

// DatasetStore is the one loading lifecycle of the datasets loaded from
// files: a load stages its features under a generation no reader sees
// (the kind's own store methods write them, each batch with its
// Checkpoint in the same transaction), PublishDataset serves it in one
// step, and the former generation is retired for the loader to drop
// without blocking readers. Both database engines implement it; its
// methods are safe for concurrent use.
type DatasetStore interface {
	// BeginDataset starts a load of the dataset kind/name from the files
	// named by fingerprint, or resumes the unfinished load of the same
	// fingerprint (a load of another fingerprint is abandoned: its
	// generation retired). When the dataset is served from the same
	// fingerprint and no load is pending it returns the zero DatasetLoad
	// and the served Dataset: nothing to do.
	BeginDataset(ctx context.Context, kind, name, fingerprint string) (load DatasetLoad, served *Dataset, err error)
	// PublishDataset serves load in place of the dataset's former
	// generation in one step (a reader sees the old or the new, never a
	// mix), retiring the former. d gives the counts, vintage, coverage and
	// meta; its kind, name, generation and fingerprint are the load's.
	PublishDataset(ctx context.Context, load DatasetLoad, d Dataset) (Dataset, error)
	// RetiredGenerations lists the generations of kind that no dataset
	// serves and no load writes (replaced, or abandoned), with their
	// datasets' names, whose features the loader is to drop, then
	// ForgetGeneration.
	RetiredGenerations(ctx context.Context, kind string) ([]Retired, error)
	// ForgetGeneration removes a retired generation of the dataset
	// kind/name from the list once its features are dropped.
	ForgetGeneration(ctx context.Context, kind, name string, generation int64) error
	// Datasets lists the datasets served of kind ("" for every kind), by
	// kind then name.
	Datasets(ctx context.Context, kind string) ([]Dataset, error)
	// DatasetsVersion changes whenever a dataset is published: an
	// instance that sees it change reads the datasets served again.
	DatasetsVersion(ctx context.Context) (string, error)
}
