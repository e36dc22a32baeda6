package providers

import (
	"context"
	"slices"
	"strconv"
	"time"
)

// OSMRef names one OpenStreetMap element: its type ("node", "way" or
// "relation", as Overpass and the OSM API spell it), its id and the version
// the extract holds.
type OSMRef struct {
	Type    string
	ID      int64
	Version int
}

// Key is the element's identity as "type/id", the same element whichever
// path (an extract, Overpass) it came by.
func (r OSMRef) Key() string { return r.Type + "/" + strconv.FormatInt(r.ID, 10) }

// OSMPlace is an element in one of the amenity categories (package
// providers/amenity chose it): a node where it is, a way or a relation at
// its centroid.
type OSMPlace struct {
	OSMRef
	Category string // a key of AmenityCategories
	Type     string // the value of the matching tag, e.g. "school"
	Name     string // the name shown: name, else brand, else the type in words
	NameKey  string // the name tag compared when de-duplicating; "" when unnamed
	Point    Point
}

// OSMBuilding is a building of an extract: a closed way or a multipolygon
// relation tagged building=*, with what its tags say of the property.
type OSMBuilding struct {
	OSMRef
	Building  string   // the building tag's value: house, detached, apartments, yes...
	Levels    *float64 // building:levels, floors above ground
	Flats     *int     // building:flats, dwellings in the building
	StartDate string   // start_date as tagged
	// Footprint is the outline as WKB with its box; Point is its centroid.
	Footprint *Parcel
	Point     Point
	// Facts are the property facts the building gives the records inside
	// it (package osmextract's BuildingFacts), kept with it: the zero
	// Facts when it gives none.
	Facts Facts
}

// OSMAddress is an address point of an extract: a node, or a building,
// tagged addr:housenumber and addr:street (a building's at its centroid).
type OSMAddress struct {
	OSMRef
	HouseNumber, Street, Unit, City, Postcode string
	Point                                     Point
}

// OSMBatch is what one transaction of a load writes.
type OSMBatch struct {
	Places    []OSMPlace
	Buildings []OSMBuilding
	Addresses []OSMAddress
	// Turn, when set, is called by PutOSM once the batch's features are
	// written and before its checkpoint is, in the same transaction, and
	// waited for; an error from it rolls the batch back. A loader writing
	// batches side by side (OSMWriters) commits them in order through it,
	// so that a checkpoint never passes a batch not yet committed.
	Turn func(ctx context.Context) error
}

// Len is the number of features in b.
func (b OSMBatch) Len() int { return len(b.Places) + len(b.Buildings) + len(b.Addresses) }

// OSMExtract is an OpenStreetMap extract served from the database: the
// generation of its features that lookups read.
type OSMExtract struct {
	// Name is the area the extract covers, by default the file's name
	// without .osm.pbf ("district-of-columbia-latest"): a later load of
	// the same name replaces this one.
	Name       string
	Generation int64
	// Coverage is the file header's bounding box, else that of its nodes;
	// with a Boundary, the polygon's bounding box within that.
	Coverage BBox
	// Boundary is the extract's bounding polygon as WKB (a MultiPolygon of
	// longitude, latitude, holes included), read from the polygon file it
	// was loaded with; nil when it was loaded without one, and Coverage
	// alone is what it covers.
	Boundary    []byte
	Timestamp   time.Time // when the data was taken from OpenStreetMap
	Fingerprint string
	Places      int64
	Buildings   int64
	Addresses   int64
	Skipped     int64 // features with a broken geometry, left out
	LoadedAt    time.Time
	// Took is how long the load took, given to PublishOSM for the
	// extract's row of the datasets served; zero as OSMExtracts lists it.
	Took time.Duration
}

// Date is the extract's data date, YYYY-MM-DD: the vintage of what is
// answered from it.
func (x OSMExtract) Date() string { return x.Timestamp.UTC().Format("2006-01-02") }

// PlaceFilter selects which places of a circle OSMPlacesNear reads, so
// that a capped amenities answer reads the few places it may list rather
// than the thousands of a downtown circle (see package amenity). Its zero
// value selects every place.
type PlaceFilter struct {
	// Within, when above zero, selects only the places within that many
	// metres of the circle's center (great-circle distance, as the
	// circle's own): the extract must still hold the whole circle.
	Within float64
	// Categories, Types and NameKeys, when any is set, select only the
	// places of one of Categories, of one of Types, or whose NameKey is
	// one of NameKeys (a place with no name has none).
	Categories, Types, NameKeys []string
}

// Selects reports whether f selects pl, a place of the circle around
// center: what OSMPlacesNear reads of the circle.
func (f PlaceFilter) Selects(center Point, pl OSMPlace) bool {
	if f.Within > 0 && center.DistanceMeters(pl.Point) > f.Within {
		return false
	}
	if len(f.Categories) == 0 && len(f.Types) == 0 && len(f.NameKeys) == 0 {
		return true
	}
	return slices.Contains(f.Categories, pl.Category) || slices.Contains(f.Types, pl.Type) ||
		(pl.NameKey != "" && slices.Contains(f.NameKeys, pl.NameKey))
}

// OSMLoad is a load of one extract in progress: its features are invisible
// until PublishOSM. Done counts the input elements committed (a resumed
// load skips them).
type OSMLoad struct {
	Name        string
	Generation  int64
	Fingerprint string
	Done        int64
	Resumed     bool
	// Counts is nil until SettleOSM has counted the load's features.
	Counts *OSMCounts
}

// OSMCounts is how many features of each kind a load holds.
type OSMCounts struct{ Places, Buildings, Addresses int64 }

// OSMFactStore is an OSMStore that keeps property facts too (both
// database engines): an extract's buildings are then a facts dataset of
// their own as well, whose rows are the buildings the store holds, so
// each building is sent to the store once.
type OSMFactStore interface {
	OSMStore
	FactStore
	// PutOSMFacts makes the buildings of load that give facts
	// (OSMBuilding.Facts, as PutOSM wrote them) the rows of the facts load
	// facts, one a building keyed by its element (OSMRef.Key) with its
	// footprint and centroid, in place of any rows the facts load had,
	// then writes its checkpoint done. The store keeps load's buildings
	// while the facts load is served (or pending), even once another
	// generation of the extract is. Cut short, it leaves the checkpoint
	// where it was; run again, it makes the same rows.
	PutOSMFacts(ctx context.Context, load OSMLoad, facts *FactLoad, done int64) error
}

// OSMWriters is an OSMStore that writes several batches of a load best
// side by side (PostgreSQL, whose server writes a batch on one core).
type OSMWriters interface {
	// OSMWriters is how many batches of a load PutOSM may write at once:
	// each holds a connection until the one before it commits (OSMBatch's
	// Turn), so no more than the store's connections. Above one, the
	// loader also runs SettleOSM beside the work on the load's facts.
	OSMWriters() int
}

// OSMStore keeps OpenStreetMap extracts. Both database engines implement
// it; its methods are safe for concurrent use.
type OSMStore interface {
	// BeginOSM starts a load of the extract name from the file named by
	// fingerprint, or resumes the unfinished load of the same fingerprint
	// (a load of another file is abandoned, its generation retired). When
	// the extract is served from the same fingerprint and no load is
	// pending it returns the zero OSMLoad and the served extract: nothing
	// to do.
	BeginOSM(ctx context.Context, name, fingerprint string) (load OSMLoad, served *OSMExtract, err error)
	// PutOSM writes a batch of the load and its checkpoint, done, in one
	// transaction. A load gives each element's features once (the
	// loader's promise: osmextract reads a file that holds each element
	// once and resumes after its checkpoint); the store merges nothing, so
	// an element given twice is kept twice.
	PutOSM(ctx context.Context, load *OSMLoad, b OSMBatch, done int64) error
	// SettleOSM readies a load whose features are all written for its
	// readers (the engine's statistics of them) and sets load.Counts. It
	// serves nothing and writes no feature, so a loader may run it beside
	// the work on the load's facts (OSMFactStore, OSMWriters).
	SettleOSM(ctx context.Context, load *OSMLoad) error
	// PublishOSM serves the load in place of the extract's former
	// generation, in one step (a reader sees the old extract or the new,
	// never a mix), with its row of the datasets served (DatasetStore,
	// KindOSM), and retires the former generation for the loader to drop
	// (DropOSM). x gives the coverage (and boundary), timestamp, skipped
	// count and the time the load took; the counts of features are the
	// store's: load.Counts, settled first where it is nil.
	PublishOSM(ctx context.Context, load OSMLoad, x OSMExtract) (OSMExtract, error)
	// DropOSM drops the features of a retired generation of the extract
	// name. It returns an error wrapping ErrKeep, having dropped what it
	// could, while a facts dataset still reads the generation's buildings
	// or its tables are busy: the generation stays retired.
	DropOSM(ctx context.Context, name string, generation int64) error
	// OSMExtracts lists the extracts served, by name.
	OSMExtracts(ctx context.Context) ([]OSMExtract, error)
	// OSMPlacesNear returns the served extract whose coverage holds the
	// whole of c (its Boundary when it has one, else its Coverage; the
	// newest where several do), and its places within c (great-circle
	// distance to the place's point) that f selects (the zero PlaceFilter:
	// all). It returns KindNotFound when no extract covers c.
	OSMPlacesNear(ctx context.Context, c Circle, f PlaceFilter) (*OSMExtract, []OSMPlace, error)
	AddressPoints
}

// AddressPoints finds the address points of the loaded extracts. The
// reverse lookup of the service reads them through it; the database
// engines implement it (OSMStore).
type AddressPoints interface {
	// OSMAddressNearest returns the address point of the served extract
	// whose coverage (Boundary, else Coverage) holds p that is nearest to p within radiusMeters,
	// that extract, and the distance (metres, great-circle). When usable
	// is set, the points it reports false for are passed over, nearest
	// first, for the next within the radius: the nearest point does not
	// decide alone when its address cannot be used (usable is called on
	// the caller's goroutine, for the points within the radius only).
	// Ties go to the smaller element (OSMRef.Key). It returns
	// KindNotFound when no extract covers p or none of its address points
	// that usable takes is that close; KindInvalid for coordinates or a
	// radius out of range.
	OSMAddressNearest(ctx context.Context, p Point, radiusMeters float64, usable func(OSMAddress) bool) (*OSMExtract, OSMAddress, float64, error)
}
