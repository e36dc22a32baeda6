package providers

import (
	"context"
	"encoding/json"
	"math"
	"time"
)

// SearchFilter selects properties; zero-valued fields do not filter. Filters
// combine with AND. Page is 1-based; results are ordered by id, or by
// distance then id when Near is set.
type SearchFilter struct {
	Zip   string
	City  string // compared upper-cased
	State string // compared upper-cased
	// County is the county's name, compared with ASCII letters folded
	// ("prince george's county" matches "Prince George's County").
	County   string
	FIPSCode string // 5 digits: state and county
	// CensusTract is a 6-digit tract code; tract codes repeat from county
	// to county, so it is only given with FIPSCode.
	CensusTract string
	// PropertyTypes matches a record whose type is any of them.
	PropertyTypes []string
	// The fact bounds are inclusive; a bound excludes the records whose
	// fact is unknown.
	MinBedrooms, MaxBedrooms             *int
	MinBathrooms                         *float64
	MinYearBuilt, MaxYearBuilt           *int
	MinLivingAreaSqft, MaxLivingAreaSqft *int
	// Near keeps the records within its radius and orders them by
	// Circle.Distance, then id. Box keeps the records inside it, ordered
	// by id. At most one of them is set.
	Near    *Circle
	Box     *BBox
	Page    int
	PerPage int
}

// The bounds of a search's location: a circle's radius and a box's sides.
// They keep one search's work within what a page needs (every record in
// the area is read to count and order them).
const (
	MaxSearchRadiusMeters = 50_000
	MaxSearchBoxDegrees   = 1
)

// MaxSearchTotal is the most matches a search counts, as Elasticsearch's
// track_total_hits does: counting every match of a broad search (a state,
// a common property type) costs time in proportion to the matches, and no
// client pages through ten thousand records. A store counts at most
// MaxSearchTotal+1 matches, so a total above MaxSearchTotal means "more
// than MaxSearchTotal" and any other total is exact.
const MaxSearchTotal = 10_000

// Circle is the area within RadiusMeters (great-circle distance) of Center.
type Circle struct {
	Center       Point
	RadiusMeters float64
}

// Distance is the distance a search near c shows and orders by: the
// great-circle distance from c's centre to p, rounded to whole metres.
func (c Circle) Distance(p Point) float64 { return math.Round(c.Center.DistanceMeters(p)) }

// Contains reports whether p is within c's radius (the exact distance, not
// the rounded one).
func (c Circle) Contains(p Point) bool { return c.Center.DistanceMeters(p) <= c.RadiusMeters }

// NewProperty is a record to create, with the keys that identify it.
type NewProperty struct {
	Property Property
	// Canonical is the normalized canonical address (geocoder match) without
	// unit; together with Property.Unit it is unique. Empty for records made
	// by reverse geocoding, which are identified by their coordinates only.
	Canonical string
	// Keys are normalized lookup keys (client spellings) that resolve to the
	// record from now on. They must already include the unit.
	Keys []string
}

// PropertyStore persists property records. Implementations are safe for
// concurrent use; every write is in a transaction and durable when the
// method returns.
type PropertyStore interface {
	// Property returns the record with id, or KindNotFound (property_not_found).
	Property(ctx context.Context, id int64) (*Property, error)
	// PropertyByKey returns the record a lookup key resolves to, or KindNotFound.
	PropertyByKey(ctx context.Context, key string) (*Property, error)
	// Nearest returns the record closest to p within radiusMeters, using a
	// spatial index, or KindNotFound.
	Nearest(ctx context.Context, p Point, radiusMeters float64) (*Property, error)
	// Save creates np.Property unless a record with the same canonical
	// address and unit exists (the unique constraint decides), and makes all
	// np.Keys resolve to the resulting record. It returns that record and
	// whether it was created by this call.
	Save(ctx context.Context, np NewProperty) (*Property, bool, error)
	// Search returns one page of matching records and the number of
	// matches, counted up to MaxSearchTotal+1: exact when it is at most
	// MaxSearchTotal, "more than MaxSearchTotal" when it is MaxSearchTotal+1.
	// It returns KindInvalid for a page or per_page out of range.
	Search(ctx context.Context, f SearchFilter) ([]Property, int, error)
}

// SectionRecord is one cached enrichment section value, as JSON. A record
// read from a Source may be shared with the tier that holds it: never
// write to one, copy it.
type SectionRecord struct {
	Section   string // e.g. "flood"
	Key       string // natural key of the data, e.g. a tract GEOID or a point
	Data      []byte // the section as JSON
	Source    string
	Vintage   string
	FetchedAt time.Time
	ExpiresAt time.Time
	// Missing records that the upstream answered it has no data at Key
	// (a tract the ACS does not cover): until ExpiresAt it is answered
	// without asking again. Data then holds the upstream's error as JSON
	// {"code": ..., "message": ...} (see MissingError).
	Missing bool
}

// MissingError is the error a Missing record stands for: KindNotFound with
// the code and message the upstream's answer was given.
func (r *SectionRecord) MissingError() *Error {
	var e struct{ Code, Message string }
	_ = json.Unmarshal(r.Data, &e)
	if e.Code == "" {
		e.Code, e.Message = CodeSectionNotFound, "the source has no data for this property"
	}
	return NotFound(e.Code, e.Message)
}

// SectionStore persists enrichment section values, fresh or expired: an
// expired value is still served (as stale) when the upstream fails.
type SectionStore interface {
	// Section returns the stored value for (section, key), expired or not,
	// or KindNotFound.
	Section(ctx context.Context, section, key string) (*SectionRecord, error)
	// PutSection stores r, replacing any value for its (section, key).
	PutSection(ctx context.Context, r SectionRecord) error
}

// SectionCopier is implemented by stores that write many section values
// in one transaction: a whole state's tracts (thousands of values) loaded
// at once would otherwise cost a transaction each. CopySections writes the
// values of recs that are absent or fetched later than the stored ones
// (so writing the same values twice changes nothing and an older value
// never replaces a newer one) and returns how many it wrote. It fails with
// KindInvalid as PutSection does, writing nothing. Both database engines
// and the cache in front of them implement it.
type SectionCopier interface {
	CopySections(ctx context.Context, recs []SectionRecord) (int, error)
}

// CopySections writes recs to st as SectionCopier does: in one transaction
// when st is a SectionCopier, else one PutSection each for the values
// absent or fetched later than the stored ones (a store without bulk
// writes, such as a test's, behaves the same, only slower).
func CopySections(ctx context.Context, st SectionStore, recs []SectionRecord) (int, error) {
	if c, ok := st.(SectionCopier); ok {
		return c.CopySections(ctx, recs)
	}
	n := 0
	for _, r := range recs {
		if old, err := st.Section(ctx, r.Section, r.Key); err == nil && !old.FetchedAt.Before(r.FetchedAt) {
			continue
		}
		if err := st.PutSection(ctx, r); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Store is everything propertyd persists. The gateway and the providers see
// only this interface, so a second backend (PostgreSQL for several instances)
// can be added without touching them.
type Store interface {
	PropertyStore
	SectionStore
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	Close() error
}

// FactRow is one row of an assessor dataset as the store keeps it: its
// facts, checked (CheckFacts), and how it finds its records.
type FactRow struct {
	// Key identifies the row within its dataset (a parcel number); a later
	// row of the same Key replaces an earlier one unless that one's Rank
	// is higher (one row a parcel a tax year: the newest year wins).
	Key  string
	Rank int64
	// JoinKey joins the row to a FactKey of its load (a two-file dataset),
	// which gives it FactsKey and Point; "" for none.
	JoinKey string
	// FactsKey is the row's address identity (FactsKey); "" when the row
	// joins by Point alone.
	FactsKey string
	Point    *Point
	// Parcel is the row's parcel polygon, when it has one: a record inside
	// it takes the row's facts (before any nearest point). Point is then
	// its centre.
	Parcel *Parcel
	Facts  Facts
}

// Parcel is a parcel's polygon or multipolygon as WKB (OGC well-known
// binary, WGS84 longitude/latitude) with its bounding box.
type Parcel struct {
	WKB                      []byte
	South, North, West, East float64
}

// FactKey is a row of a dataset's second file: the address identity and
// coordinates of the FactRows of the same JoinKey.
type FactKey struct {
	JoinKey  string
	FactsKey string
	Point    *Point
}

// FactLoad is a load of one dataset in progress. Its rows are invisible to
// records until PublishFacts; Done input rows are committed (a resumed
// load skips them) and Failed of them went to the failures file, which
// was FailuresSize bytes long then.
type FactLoad struct {
	Dataset      string
	Generation   int64
	Fingerprint  string
	Done         int64
	Failed       int64
	FailuresSize int64
	Resumed      bool
	// InPlace asks PublishFacts to merge the records a few thousand a
	// transaction even where the engine would rather rebuild its search
	// indexes around one transaction (see the engine's documentation):
	// slower, but the database's writer is never held for long.
	InPlace bool
}

// FactSet is a dataset served: the load whose rows records take their
// facts from.
type FactSet struct {
	Dataset     string
	Source      string // the label records show (defaults to Dataset)
	Priority    int    // 0 for the operator's import; datasets follow in their configured order
	Generation  int64
	AsOf        string // YYYY-MM-DD
	Fingerprint string
	Rows        int64 // rows kept (valid rows, one a Key); for the import, the records it gave facts
	Matched     int64 // rows that joined at least one record when published; for the import, Rows
	Failed      int64 // rows written to the failures file
	LoadedAt    time.Time
	// FailuresFile and Took are the failures file the load wrote ("" for
	// none) and how long it took, given to PublishFacts for the dataset's
	// row of the datasets served (DatasetStore, KindParcels); FactSets
	// leaves them empty.
	FailuresFile string
	Took         time.Duration
}

// FactStore keeps the assessor datasets and merges their facts into
// records (providers.MergeFacts): on Save for a new record, and on
// PublishFacts and PutImportFacts for the records they touch. Both
// database engines implement it.
type FactStore interface {
	// BeginFacts starts a load of dataset from files named by
	// fingerprint, or resumes the unfinished load of the same
	// fingerprint. served is the dataset's current FactSet, nil if none.
	BeginFacts(ctx context.Context, dataset, fingerprint string) (load FactLoad, served *FactSet, err error)
	// PutFacts writes keys and rows of the load, and its checkpoint (done,
	// failed and failuresSize), in one transaction.
	PutFacts(ctx context.Context, load *FactLoad, keys []FactKey, rows []FactRow, done, failed, failuresSize int64) error
	// PublishFacts serves the load in place of the dataset's former one,
	// in one step, with its row of the datasets served (DatasetStore,
	// KindParcels), then brings every record it or the former one touches
	// up to date and retires the former generations for the loader to
	// drop (DropFacts). progress, when not nil, is told how many records
	// are done out of how many.
	PublishFacts(ctx context.Context, load FactLoad, set FactSet, progress func(done, total int)) (FactSet, error)
	// DropFacts drops the rows of a retired generation of dataset, a few
	// thousand a transaction.
	DropFacts(ctx context.Context, dataset string, generation int64) error
	// FactSets lists the datasets served, by priority.
	FactSets(ctx context.Context) ([]FactSet, error)
	// PutImportFacts sets the operator's own facts of record id (nil
	// facts are left as they were) as of asOf, and merges the record.
	PutImportFacts(ctx context.Context, id int64, f Facts, asOf string) error
	// FactsVersion changes whenever a load or an import is published, and
	// again when a published load has merged every record it touches (a
	// load begun changes it too): an instance that sees it change drops
	// the records it holds in memory, and so drops, once the load ends,
	// any it read while the load merged them.
	FactsVersion(ctx context.Context) (string, error)
}
