package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
)

// openAt opens (or reopens) the database at path and closes it at the end of
// the test.
func openAt(t testing.TB, path string) *store.DB {
	t.Helper()
	return openWithNow(t, path, nil)
}

// openWithNow opens the database at path with now as its clock (nil means
// time.Now) and closes it at the end of the test.
func openWithNow(t testing.TB, path string, now func() time.Time) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Now: now})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openTemp opens a fresh database in a temporary folder.
func openTemp(t testing.TB) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "propertyd.db")
	return openAt(t, path), path
}

// wantKind fails the test unless err is a *providers.Error of kind and code.
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

// whiteHouse is a fully populated record, every field set.
func whiteHouse() providers.Property {
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

// newAt returns a record at lat/lng in the given zip, with a canonical
// address derived from name.
func newAt(name string, lat, lng float64) providers.NewProperty {
	return providers.NewProperty{
		Property: providers.Property{
			StreetAddress: name, City: "SPRINGFIELD", State: "IL", ZipCode: "62701",
			Latitude: lat, Longitude: lng, Source: "census",
		},
		Canonical: name + ", SPRINGFIELD, IL, 62701",
		Keys:      []string{name + "|springfield|il|62701"},
	}
}

func ptr[T any](v T) *T { return &v }
