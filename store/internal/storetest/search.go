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
	for i := range rows {
		rows[i].Latitude, rows[i].Longitude = 30+float64(i)/100, -97
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
		{"property type", providers.SearchFilter{PropertyType: "single_family"}, []int64{2, 5, 8}},
		{"type and city", providers.SearchFilter{PropertyType: "condo", City: "AUSTIN"}, []int64{1, 9}},
		{"apostrophe is data", providers.SearchFilter{City: "o'hare"}, []int64{10}},
		{"no match", providers.SearchFilter{Zip: "99999"}, nil},
		{"type is exact, not case-folded", providers.SearchFilter{PropertyType: "CONDO"}, nil},
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
		for _, f := range []providers.SearchFilter{{Zip: v}, {City: v}, {State: v}, {PropertyType: v}, {City: "AUSTIN", State: v}} {
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
