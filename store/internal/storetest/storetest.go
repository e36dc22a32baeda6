// Package storetest is the one table of behaviour every store engine must
// show: package store (SQLite) and package store/postgres run it from their
// tests, each against a real database of its kind, so a response, an ETag
// or an error does not depend on which engine a deployment chose.
//
// A test in the table names the behaviour it protects; what an engine does
// beyond the interface (SQLite's write-ahead log, PostgreSQL's connection
// handling) is tested in the engine's own package.
package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Store is what the table exercises: the providers.Store every engine
// implements, the bulk section writes a state's tracts are stored with,
// the bulk and attribute writes that import and the benchmarks use, and
// the polygon layers and the address points and ranges.
type Store interface {
	providers.Store
	providers.SectionCopier
	SeedProperties(ctx context.Context, props []providers.Property) error
	providers.OSMFactStore
	providers.PolygonStore
	providers.DatasetStore
	providers.AddressStore
	providers.GeocodeCounter
}

// Opener opens a handle on one test database, with now as its clock (nil
// means time.Now). Each call is another handle on the same database, as
// another instance of propertyd sharing it would have; the engine's test
// closes every handle at the end of the test.
type Opener func(t testing.TB, now func() time.Time) Store

// Run runs every behaviour of the table as a parallel subtest of t. fresh
// returns an Opener on a new, empty database that belongs to that subtest
// alone (and is removed when it ends).
func Run(t *testing.T, fresh func(t *testing.T) Opener) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, fresh(t))
		})
	}
}

// RunFacts runs the behaviours of the property facts alone, as Run does:
// an engine with a second way of merging facts runs them through it too.
func RunFacts(t *testing.T, fresh func(t *testing.T) Opener) {
	for _, c := range cases {
		if !strings.HasPrefix(c.name, "Facts") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, fresh(t))
		})
	}
}

type testCase struct {
	name string
	test func(t *testing.T, open Opener)
}

// cases is filled by the files of this package, one per area of behaviour.
var cases []testCase

func register(name string, test func(t *testing.T, open Opener)) {
	cases = append(cases, testCase{name, test})
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	// Sub-millisecond digits check that stored times are truncated, not
	// rounded, and a zone other than UTC that they come back in UTC.
	return &clock{t: time.Date(2024, 3, 9, 17, 45, 12, 345_678_901, time.FixedZone("EST", -5*3600))}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func ptr[T any](v T) *T { return &v }

// wantKind fails the test unless err is a *providers.Error of kind and code
// (any code when code is empty).
func wantKind(t testing.TB, err error, kind providers.Kind, code string) {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *providers.Error kind %d code %q", err, err, kind, code)
	}
	if pe.Kind != kind || (code != "" && pe.Code != code) {
		t.Fatalf("error kind %d code %q (%v), want kind %d code %q", pe.Kind, pe.Code, err, kind, code)
	}
}

// total returns the number of records matching f.
func total(t testing.TB, db Store, f providers.SearchFilter) int {
	t.Helper()
	f.Page, f.PerPage = 1, 1
	_, n, err := db.Search(context.Background(), f)
	if err != nil {
		t.Fatalf("Search(%+v): %v", f, err)
	}
	return n
}

// WhiteHouse is a fully populated record, every field set.
func WhiteHouse() providers.Property {
	return providers.Property{
		StreetAddress: "1600 PENNSYLVANIA AVE NW",
		Unit:          "",
		City:          "WASHINGTON",
		State:         "DC",
		ZipCode:       "20500",
		County:        "District of Columbia",
		FIPSCode:      "11001",
		CensusTract:   "006202",
		Latitude:      38.897663,
		Longitude:     -77.036574,
		PropertyType:  ptr("single_family"),
		Bedrooms:      ptr(16),
		Source:        "census",
	}
}

// NewAt returns a record at lat/lng in the given zip, with a canonical
// address derived from name.
func NewAt(name string, lat, lng float64) providers.NewProperty {
	return providers.NewProperty{
		Property: providers.Property{
			StreetAddress: name, City: "SPRINGFIELD", State: "IL", ZipCode: "62701",
			Latitude: lat, Longitude: lng, Source: "census",
		},
		Canonical: name + ", SPRINGFIELD, IL, 62701",
		Keys:      []string{name + "|springfield|il|62701"},
	}
}

func idsOf(ps []providers.Property) []int64 {
	var ids []int64
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}
