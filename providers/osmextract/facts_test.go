package osmextract_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/osmextract"
)

func TestBuildingFactsFollowTheTable(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	f, i := func(v float64) *float64 { return &v }, func(v int) *int { return &v }
	for _, tc := range []struct {
		b              providers.OSMBuilding
		ptype          string
		stories        *float64
		units, year    *int
		ok             bool
		behaviourNamed string
	}{
		{providers.OSMBuilding{Building: "house", Levels: f(2), StartDate: "1925"}, "single_family", f(2), nil, i(1925), true, "a house of two levels from 1925"},
		{providers.OSMBuilding{Building: "detached"}, "single_family", nil, nil, nil, true, "a detached house"},
		{providers.OSMBuilding{Building: "semidetached_house"}, "single_family", nil, nil, nil, true, "half of a pair"},
		{providers.OSMBuilding{Building: "terrace", Levels: f(3)}, "townhouse", f(3), nil, nil, true, "a row of houses"},
		{providers.OSMBuilding{Building: "apartments", Levels: f(8), Flats: i(120), StartDate: "1962-05"}, "multi_family", f(8), i(120), nil, true, "a month is no plain year"},
		{providers.OSMBuilding{Building: "static_caravan"}, "mobile_home", nil, nil, nil, true, "a mobile home"},
		{providers.OSMBuilding{Building: "residential", Flats: i(4), StartDate: "~1900"}, "", nil, i(4), nil, true, "residential says no type; an approximate date no year"},
		{providers.OSMBuilding{Building: "yes"}, "", nil, nil, nil, false, "a building that says nothing"},
		{providers.OSMBuilding{Building: "house", StartDate: "2031"}, "single_family", nil, nil, nil, true, "a year past next year is dropped"},
		{providers.OSMBuilding{Building: "house", StartDate: "1920s"}, "single_family", nil, nil, nil, true, "a decade is no plain year"},
		{providers.OSMBuilding{Building: "house", StartDate: "19a5"}, "single_family", nil, nil, nil, true, "four characters, not four digits"},
		{providers.OSMBuilding{Building: "house", StartDate: "١٩٢٥"}, "single_family", nil, nil, nil, true, "digits of another script are no year"},
		{providers.OSMBuilding{Building: "house", StartDate: " 1925"}, "single_family", nil, nil, nil, true, "a year with a space is written as no tag writes it"},
		{providers.OSMBuilding{Building: "retail", Levels: f(500)}, "", nil, nil, nil, false, "500 levels is out of bounds"},
	} {
		got, ok := osmextract.BuildingFacts(tc.b, now)
		ptype := ""
		if got.PropertyType != nil {
			ptype = *got.PropertyType
		}
		if ok != tc.ok || ptype != tc.ptype || !sameF(got.Stories, tc.stories) || !sameI(got.Units, tc.units) || !sameI(got.YearBuilt, tc.year) {
			t.Errorf("%s: %+v gives type %q, stories %v, units %v, year %v (ok %v)", tc.behaviourNamed, tc.b, ptype,
				deref(got.Stories), deref(got.Units), deref(got.YearBuilt), ok)
		}
	}
}

func sameF(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func sameI(a, b *int) bool     { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func at(name string, lat, lng float64) providers.NewProperty {
	return providers.NewProperty{
		Property: providers.Property{StreetAddress: name, City: "WASHINGTON", State: "DC", ZipCode: "20005",
			Latitude: lat, Longitude: lng, Source: "census"},
		Canonical: name + ", WASHINGTON, DC, 20005",
		Keys:      []string{name + "|washington|dc|20005"},
	}
}

// TestBuildingsFillFactsAtTheLowestPrecedence loads the fixture into a
// database holding a record inside the house's footprint and an assessor
// dataset's year for it: the record takes the house's type and stories
// (nothing else gives them) but keeps the assessor's year; a record saved
// after the load inside the apartments takes theirs at once.
func TestBuildingsFillFactsAtTheLowestPrecedence(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	house, _, err := db.Save(ctx, at("1210 EXAMPLE ST NW", 38.8991, -77.03035))
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := db.BeginFacts(ctx, "county", "c1")
	if err != nil {
		t.Fatal(err)
	}
	year := 1930
	if err := db.PutFacts(ctx, &l, nil, []providers.FactRow{{Key: "P1", Point: &providers.Point{Lat: 38.8991, Lng: -77.03035},
		Facts: providers.Facts{YearBuilt: &year}}}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishFacts(ctx, l, providers.FactSet{Source: "county-assessor", Priority: 1, AsOf: "2026-01-01"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := osmextract.Load(ctx, db, fixturePBF, osmextract.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := db.Property(ctx, house.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.PropertyType == nil || *p.PropertyType != "single_family" || p.Stories == nil || *p.Stories != 2 ||
		p.YearBuilt == nil || *p.YearBuilt != 1930 {
		t.Errorf("the house's record: type %v, stories %v, year %v; want single_family and 2 from the building, 1930 from the assessor",
			deref(p.PropertyType), deref(p.Stories), deref(p.YearBuilt))
	}
	if !strings.Contains(p.FactsOrigin, `"stories":{"source":"openstreetmap","as_of":"2026-11-20"}`) ||
		!strings.Contains(p.FactsOrigin, `"year_built":{"source":"county-assessor"`) {
		t.Errorf("the house's provenance %s; want stories from openstreetmap as of the extract's date, the year from the assessor", p.FactsOrigin)
	}
	flat, _, err := db.Save(ctx, at("1301 FRANKLIN CT NW", 38.9013, -77.0326))
	if err != nil {
		t.Fatal(err)
	}
	if flat.PropertyType == nil || *flat.PropertyType != "multi_family" || flat.Units == nil || *flat.Units != 120 ||
		flat.Stories == nil || *flat.Stories != 8 || flat.YearBuilt != nil {
		t.Errorf("a record saved inside the apartments: type %v, units %v, stories %v, year %v; want multi_family, 120, 8, none",
			deref(flat.PropertyType), deref(flat.Units), deref(flat.Stories), deref(flat.YearBuilt))
	}
	outside, _, err := db.Save(ctx, at("1 NOWHERE ST NW", 38.9100, -77.0500))
	if err != nil || outside.PropertyType != nil || outside.Stories != nil {
		t.Errorf("a record in no building: %+v, %v; want no facts", outside, err)
	}
}
