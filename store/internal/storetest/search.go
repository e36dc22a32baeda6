package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("SearchFiltersCombineWithAnd", testSearchFiltersCombineWithAnd)
	register("SearchPagesInIDOrderWithTotal", testSearchPagesInIDOrderWithTotal)
	register("SearchRejectsPageOutOfRange", testSearchRejectsPageOutOfRange)
	register("SearchTreatsSQLMetacharactersAsData", testSearchTreatsSQLMetacharactersAsData)
	register("SearchByFactsAndPlace", testSearchByFactsAndPlace)
	register("SearchNearOrdersByDistanceThenID", testSearchNearOrdersByDistanceThenID)
	register("SearchRejectsBadLocations", testSearchRejectsBadLocations)
}

// searchFixture seeds ten records and returns the store; ids are 1..10 in
// this order.
func searchFixture(t *testing.T, open Opener) Store {
	t.Helper()
	db := open(t, nil)
	rows := []providers.Property{
		{City: "AUSTIN", State: "TX", ZipCode: "78701", Bedrooms: ptr(1), PropertyType: ptr("condo")},          // 1
		{City: "AUSTIN", State: "TX", ZipCode: "78701", Bedrooms: ptr(3), PropertyType: ptr("single_family")},  // 2
		{City: "AUSTIN", State: "TX", ZipCode: "78702", Bedrooms: ptr(2), PropertyType: ptr("townhouse")},      // 3
		{City: "AUSTIN", State: "TX", ZipCode: "78701"},                                                        // 4 unknown attributes
		{City: "DALLAS", State: "TX", ZipCode: "75201", Bedrooms: ptr(4), PropertyType: ptr("single_family")},  // 5
		{City: "Portland", State: "or", ZipCode: "97201", Bedrooms: ptr(2), PropertyType: ptr("condo")},        // 6 mixed case stored
		{City: "PORTLAND", State: "ME", ZipCode: "04101", Bedrooms: ptr(3), PropertyType: ptr("multi_family")}, // 7
		{City: "AUSTIN", State: "TX", ZipCode: "78701", Bedrooms: ptr(5), PropertyType: ptr("single_family")},  // 8
		{City: "AUSTIN", State: "TX", ZipCode: "78701", Bedrooms: ptr(2), PropertyType: ptr("condo")},          // 9
		{City: "O'HARE", State: "IL", ZipCode: "60666", Bedrooms: ptr(0), PropertyType: ptr("other")},          // 10
	}
	// The other facts and the place, record by record (4 knows no fact; 8
	// has its county stored lower case). Latitudes are 0.01 degrees
	// (1112 m) apart, north from 30.00, all on longitude -97.
	places := []struct {
		baths             float64
		year, area        int
		county, fips, trt string
		lat               float64
	}{
		{1, 2015, 750, "Travis County", "48453", "001100", 30.00},
		{2.5, 1985, 2100, "Travis County", "48453", "001100", 30.01},
		{1.5, 2005, 1400, "Travis County", "48453", "000902", 30.02},
		{0, 0, 0, "Travis County", "48453", "001100", 30.03},
		{3, 1960, 2800, "Dallas County", "48113", "003100", 30.04},
		{2, 1925, 1100, "Multnomah County", "41051", "010600", 30.05},
		{2, 1890, 3200, "Cumberland County", "23005", "000100", 30.06},
		{4, 2020, 4100, "travis county", "48453", "001100", 30.07},
		{2, 1979, 1000, "Travis County", "48453", "001700", 30.08},
		{0, 1950, 500, "Cook County", "17031", "980000", 30.09},
	}
	for i, pl := range places {
		r := &rows[i]
		r.County, r.FIPSCode, r.CensusTract = pl.county, pl.fips, pl.trt
		r.Latitude, r.Longitude = pl.lat, -97
		if i != 3 {
			r.Bathrooms, r.YearBuilt, r.LivingAreaSqft = ptr(pl.baths), ptr(pl.year), ptr(pl.area)
		}
	}
	if err := db.SeedProperties(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	return db
}

func testSearchFiltersCombineWithAnd(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	for _, tc := range []struct {
		name string
		f    providers.SearchFilter
		want []int64
	}{
		{"everything", providers.SearchFilter{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"zip", providers.SearchFilter{Zip: "78701"}, []int64{1, 2, 4, 8, 9}},
		{"zip and bedrooms range", providers.SearchFilter{Zip: "78701", MinBedrooms: ptr(2), MaxBedrooms: ptr(4)}, []int64{2, 9}},
		{"min bedrooms only", providers.SearchFilter{MinBedrooms: ptr(4)}, []int64{5, 8}},
		{"max bedrooms only includes zero", providers.SearchFilter{MaxBedrooms: ptr(1)}, []int64{1, 10}},
		{"exact bedrooms", providers.SearchFilter{MinBedrooms: ptr(2), MaxBedrooms: ptr(2)}, []int64{3, 6, 9}},
		{"empty bedrooms range", providers.SearchFilter{MinBedrooms: ptr(4), MaxBedrooms: ptr(2)}, nil},
		{"state", providers.SearchFilter{State: "TX"}, []int64{1, 2, 3, 4, 5, 8, 9}},
		{"city and state, lower case", providers.SearchFilter{City: "austin", State: "tx"}, []int64{1, 2, 3, 4, 8, 9}},
		{"city matches mixed-case stored value", providers.SearchFilter{City: "portland", State: "OR"}, []int64{6}},
		{"city alone spans states", providers.SearchFilter{City: "Portland"}, []int64{6, 7}},
		{"property type", providers.SearchFilter{PropertyTypes: []string{"single_family"}}, []int64{2, 5, 8}},
		{"type and city", providers.SearchFilter{PropertyTypes: []string{"condo"}, City: "AUSTIN"}, []int64{1, 9}},
		{"apostrophe is data", providers.SearchFilter{City: "o'hare"}, []int64{10}},
		{"no match", providers.SearchFilter{Zip: "99999"}, nil},
		{"type is exact, not case-folded", providers.SearchFilter{PropertyTypes: []string{"CONDO"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Page, tc.f.PerPage = 1, 100
			got, n, err := db.Search(context.Background(), tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) || n != len(tc.want) {
				t.Fatalf("Search(%+v) = ids %v total %d, want %v total %d", tc.f, ids, n, tc.want, len(tc.want))
			}
		})
	}
}

func testSearchPagesInIDOrderWithTotal(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	for _, tc := range []struct {
		page, perPage int
		want          []int64
	}{
		{1, 4, []int64{1, 2, 3, 4}},
		{2, 4, []int64{5, 6, 7, 8}},
		{3, 4, []int64{9, 10}},
		{4, 4, nil},
		{99, 100, nil},
		{10, 1, []int64{10}},
		{1, 10, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	} {
		got, n, err := db.Search(context.Background(), providers.SearchFilter{Page: tc.page, PerPage: tc.perPage})
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) || n != 10 {
			t.Fatalf("page %d per_page %d = ids %v total %d, want %v total 10", tc.page, tc.perPage, ids, n, tc.want)
		}
		if got == nil {
			t.Fatalf("page %d per_page %d returned a nil slice; an empty page must be an empty list", tc.page, tc.perPage)
		}
	}
	// Paging a filtered search: the total is the filter's, not the table's.
	got, n, err := db.Search(context.Background(), providers.SearchFilter{Zip: "78701", Page: 2, PerPage: 2})
	if err != nil || !reflect.DeepEqual(idsOf(got), []int64{4, 8}) || n != 5 {
		t.Fatalf("zip page 2 = %v total %d (%v), want [4 8] total 5", idsOf(got), n, err)
	}
}

func testSearchRejectsPageOutOfRange(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	for _, tc := range []struct {
		page, perPage int
		param         string
	}{
		{0, 10, "page"}, {-1, 10, "page"}, {1, 0, "per_page"}, {1, 101, "per_page"}, {1, -5, "per_page"},
		{int(^uint(0) >> 1), 100, "page"},
	} {
		_, _, err := db.Search(context.Background(), providers.SearchFilter{Page: tc.page, PerPage: tc.perPage})
		wantKind(t, err, providers.KindInvalid, "invalid_parameter")
		if pe := providers.As(err); pe.Params[0].Parameter != tc.param {
			t.Fatalf("page %d per_page %d blamed %q, want %q", tc.page, tc.perPage, pe.Params[0].Parameter, tc.param)
		}
	}
	if _, _, err := db.Search(context.Background(), providers.SearchFilter{Page: 1, PerPage: 100}); err != nil {
		t.Fatalf("per_page 100 is allowed: %v", err)
	}
}

func testSearchTreatsSQLMetacharactersAsData(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	hostile := []string{"' OR 1=1 --", "%", "_", "7870%", "7870_", `"; DROP TABLE properties; --`, "AUSTIN' --", `\`}
	for _, v := range hostile {
		for _, f := range []providers.SearchFilter{{Zip: v}, {City: v}, {State: v}, {PropertyTypes: []string{v}},
			{City: "AUSTIN", State: v}, {County: v}, {County: "Travis County", State: v}, {FIPSCode: v},
			{FIPSCode: "48453", CensusTract: v}, {PropertyTypes: []string{"condo", v}, Zip: v}} {
			f.Page, f.PerPage = 1, 100
			got, n, err := db.Search(context.Background(), f)
			if err != nil {
				t.Fatalf("Search(%+v): %v", f, err)
			}
			if len(got) != 0 || n != 0 {
				t.Fatalf("Search(%+v) matched %v (total %d); a value must be compared literally", f, idsOf(got), n)
			}
		}
	}
	if n := total(t, db, providers.SearchFilter{}); n != 10 {
		t.Fatalf("%d records after hostile searches, want the 10 seeded", n)
	}
}

func testSearchByFactsAndPlace(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	types := func(ts ...string) []string { return ts }
	box := func(w, s, e, n float64) *providers.BBox { return &providers.BBox{West: w, South: s, East: e, North: n} }
	for _, tc := range []struct {
		name string
		f    providers.SearchFilter
		want []int64
	}{
		{"min bathrooms", providers.SearchFilter{MinBathrooms: ptr(2.0)}, []int64{2, 5, 6, 7, 8, 9}},
		{"min bathrooms in halves", providers.SearchFilter{MinBathrooms: ptr(2.5)}, []int64{2, 5, 8}},
		{"min bathrooms 0 leaves out the unknown", providers.SearchFilter{MinBathrooms: ptr(0.0)}, []int64{1, 2, 3, 5, 6, 7, 8, 9, 10}},
		{"year built range", providers.SearchFilter{MinYearBuilt: ptr(1950), MaxYearBuilt: ptr(1985)}, []int64{2, 5, 9, 10}},
		{"min year built", providers.SearchFilter{MinYearBuilt: ptr(2000)}, []int64{1, 3, 8}},
		{"max year built", providers.SearchFilter{MaxYearBuilt: ptr(1900)}, []int64{7}},
		{"living area range", providers.SearchFilter{MinLivingAreaSqft: ptr(1000), MaxLivingAreaSqft: ptr(2100)}, []int64{2, 3, 6, 9}},
		{"max living area", providers.SearchFilter{MaxLivingAreaSqft: ptr(800)}, []int64{1, 10}},
		{"several types", providers.SearchFilter{PropertyTypes: types("condo", "townhouse")}, []int64{1, 3, 6, 9}},
		{"several types in a zip", providers.SearchFilter{Zip: "78701", PropertyTypes: types("single_family", "condo")}, []int64{1, 2, 8, 9}},
		{"types, state and bedrooms", providers.SearchFilter{State: "tx", PropertyTypes: types("single_family", "condo"), MinBedrooms: ptr(2)}, []int64{2, 5, 8, 9}},
		{"county in any case", providers.SearchFilter{County: "TRAVIS county"}, []int64{1, 2, 3, 4, 8, 9}},
		{"county is whole, not a prefix", providers.SearchFilter{County: "Travis"}, nil},
		{"county and state", providers.SearchFilter{County: "Dallas County", State: "TX"}, []int64{5}},
		{"county and zip", providers.SearchFilter{County: "travis county", Zip: "78701"}, []int64{1, 2, 4, 8, 9}},
		{"fips code", providers.SearchFilter{FIPSCode: "48453"}, []int64{1, 2, 3, 4, 8, 9}},
		{"fips code and tract", providers.SearchFilter{FIPSCode: "48453", CensusTract: "001100"}, []int64{1, 2, 4, 8}},
		{"tract of another county", providers.SearchFilter{FIPSCode: "48113", CensusTract: "001100"}, nil},
		{"fips code, tract and state", providers.SearchFilter{FIPSCode: "48453", CensusTract: "001100", State: "TX", MinYearBuilt: ptr(2000)}, []int64{1, 8}},
		{"state and year built", providers.SearchFilter{State: "TX", MinYearBuilt: ptr(2000)}, []int64{1, 3, 8}},
		{"zip, bathrooms and area", providers.SearchFilter{Zip: "78701", MinBathrooms: ptr(2.0), MaxLivingAreaSqft: ptr(2500)}, []int64{2, 9}},
		{"box, edges included", providers.SearchFilter{Box: box(-97.5, 30.02, -97, 30.05)}, []int64{3, 4, 5, 6}},
		{"box and type", providers.SearchFilter{Box: box(-97.5, 30.02, -96.5, 30.05), PropertyTypes: types("condo")}, []int64{6}},
		{"box and state", providers.SearchFilter{Box: box(-97.5, 30.02, -96.5, 30.05), State: "TX"}, []int64{3, 4, 5}},
		{"box just beside the records", providers.SearchFilter{Box: box(-96.99, 30, -96.5, 30.1)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Page, tc.f.PerPage = 1, 100
			got, n, err := db.Search(context.Background(), tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) || n != len(tc.want) {
				t.Fatalf("Search(%+v) = ids %v total %d, want %v total %d", tc.f, ids, n, tc.want, len(tc.want))
			}
		})
	}
	// A box pages by id like any search.
	got, n, err := db.Search(context.Background(), providers.SearchFilter{Box: box(-97.5, 29.6, -96.5, 30.5), Page: 2, PerPage: 4})
	if err != nil || !reflect.DeepEqual(idsOf(got), []int64{5, 6, 7, 8}) || n != 10 {
		t.Fatalf("box page 2 = %v total %d (%v), want [5 6 7 8] total 10", idsOf(got), n, err)
	}
}

func testSearchNearOrdersByDistanceThenID(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	near := func(lat, radius float64) *providers.Circle {
		return &providers.Circle{Center: providers.Point{Lat: lat, Lng: -97}, RadiusMeters: radius}
	}
	for _, tc := range []struct {
		name          string
		f             providers.SearchFilter
		want          []int64
		total         int
		page, perPage int
		wantDistances []float64
	}{
		{"nearest first", providers.SearchFilter{Near: near(30, 2300)}, []int64{1, 2, 3}, 3, 1, 100, []float64{0, 1112, 2224}},
		// 5 and 7 are the same whole metres from 6: the lower id first.
		{"a tie goes to the lower id", providers.SearchFilter{Near: near(30.05, 1200)}, []int64{6, 5, 7}, 3, 1, 100, []float64{0, 1112, 1112}},
		{"with a type", providers.SearchFilter{Near: near(30.05, 5000), PropertyTypes: []string{"condo"}}, []int64{6, 9}, 2, 1, 100, nil},
		{"with a state and the facts", providers.SearchFilter{Near: near(30.05, 5000), State: "TX", MinBathrooms: ptr(2.0)}, []int64{5, 8, 9, 2}, 4, 1, 100, nil},
		{"with a zip", providers.SearchFilter{Near: near(30.05, 50000), Zip: "78701"}, []int64{4, 8, 9, 2, 1}, 5, 1, 100, nil},
		{"page 2", providers.SearchFilter{Near: near(30.05, 20000)}, []int64{4, 8, 3}, 10, 2, 3, nil},
		{"past the last page", providers.SearchFilter{Near: near(30.05, 20000)}, nil, 10, 5, 3, nil},
		{"nothing in reach", providers.SearchFilter{Near: near(31, 1000)}, nil, 0, 1, 100, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Page, tc.f.PerPage = tc.page, tc.perPage
			got, n, err := db.Search(context.Background(), tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) || n != tc.total {
				t.Fatalf("Search(near %+v) = ids %v total %d, want %v total %d", *tc.f.Near, ids, n, tc.want, tc.total)
			}
			if got == nil {
				t.Fatal("an empty page must be an empty list, not nil")
			}
			for i, d := range tc.wantDistances {
				if g := tc.f.Near.Distance(got[i].Point()); g != d {
					t.Errorf("record %d is %v m away, want %v", got[i].ID, g, d)
				}
			}
		})
	}
}

func testSearchRejectsBadLocations(t *testing.T, open Opener) {
	db := searchFixture(t, open)
	at := func(lat, lng, r float64) *providers.Circle {
		return &providers.Circle{Center: providers.Point{Lat: lat, Lng: lng}, RadiusMeters: r}
	}
	for _, tc := range []struct {
		f     providers.SearchFilter
		param string
	}{
		{providers.SearchFilter{CensusTract: "001100"}, "census_tract"},
		{providers.SearchFilter{Near: at(91, 0, 100)}, "latitude"},
		{providers.SearchFilter{Near: at(30, -181, 100)}, "longitude"},
		{providers.SearchFilter{Near: at(30, -97, 0)}, "radius_m"},
		{providers.SearchFilter{Near: at(30, -97, providers.MaxSearchRadiusMeters+1)}, "radius_m"},
		{providers.SearchFilter{Near: at(30, -97, 100), Box: &providers.BBox{West: -98, South: 30, East: -97, North: 31}}, "bbox"},
		{providers.SearchFilter{Box: &providers.BBox{West: -97, South: 30, East: -98, North: 31}}, "bbox"},
		{providers.SearchFilter{Box: &providers.BBox{West: -98, South: 31, East: -97, North: 30}}, "bbox"},
		{providers.SearchFilter{Box: &providers.BBox{West: -99, South: 30, East: -97, North: 31}}, "bbox"},
		{providers.SearchFilter{Box: &providers.BBox{West: -98, South: 89.5, East: -97, North: 91}}, "bbox"},
	} {
		tc.f.Page, tc.f.PerPage = 1, 10
		_, _, err := db.Search(context.Background(), tc.f)
		wantKind(t, err, providers.KindInvalid, "invalid_parameter")
		if pe := providers.As(err); pe.Params[0].Parameter != tc.param {
			t.Errorf("Search(%+v) blamed %q, want %q", tc.f, pe.Params[0].Parameter, tc.param)
		}
	}
}
