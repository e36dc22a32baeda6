package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("SearchCountsUpToTheCap", testSearchCountsUpToTheCap)
}

// testSearchCountsUpToTheCap seeds 16,000 records (ids 1..16000): the first
// 4,096 in ZIP 10001 and the rest in 10002, the first 10,000 condos and the
// rest townhouses, bedrooms id%4. A search counts its matches exactly up
// to providers.MaxSearchTotal and reports MaxSearchTotal+1 past it, and its
// page is the same whichever plan the engine picks: a walk in id order
// (many matches, dense from the first ids), the index (few matches), or
// the index though the matches are many (none among the first ids); and
// near a point, whether it reads the whole radius or a smaller circle;
// in a box, within the first matches or past them.
func testSearchCountsUpToTheCap(t *testing.T, open Opener) {
	db := open(t, nil)
	const n = 16_000
	rows := make([]providers.Property, n)
	for i := range rows {
		id := i + 1
		zip, typ := "10001", "condo"
		if id > 4096 {
			zip = "10002"
		}
		if id > 10_000 {
			typ = "townhouse"
		}
		rows[i] = providers.Property{StreetAddress: fmt.Sprintf("%d MAIN ST", id), City: "AUSTIN", State: "TX",
			ZipCode: zip, PropertyType: ptr(typ), Bedrooms: ptr(id % 4), Latitude: 30, Longitude: -97}
	}
	if err := db.SeedProperties(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	ids := func(from, step, count int) []int64 {
		out := make([]int64, count)
		for i := range out {
			out[i] = int64(from + i*step)
		}
		return out
	}
	more := providers.MaxSearchTotal + 1
	box := &providers.BBox{West: -97.01, South: 29.99, East: -96.99, North: 30.01}
	near := func(r float64) *providers.Circle {
		return &providers.Circle{Center: providers.Point{Lat: 30, Lng: -97}, RadiusMeters: r}
	}
	for _, tc := range []struct {
		name  string
		f     providers.SearchFilter
		want  []int64
		total int
	}{
		{"every record, page 1", providers.SearchFilter{Page: 1, PerPage: 5}, ids(1, 1, 5), more},
		{"every record, the last page", providers.SearchFilter{Page: 160, PerPage: 100}, ids(15901, 1, 100), more},
		{"every record, past the end", providers.SearchFilter{Page: 161, PerPage: 100}, []int64{}, more},
		{"exactly the cap", providers.SearchFilter{PropertyTypes: []string{"condo"}, Page: 3, PerPage: 4}, ids(9, 1, 4), 10_000},
		{"the cap and one", providers.SearchFilter{PropertyTypes: []string{"condo", "townhouse"}, Page: 1, PerPage: 2}, ids(1, 1, 2), more},
		{"below the cap, the last page", providers.SearchFilter{PropertyTypes: []string{"condo"}, MaxBedrooms: ptr(2), Page: 2500, PerPage: 3},
			[]int64{9997, 9998, 10000}, 7500},
		{"few, by the index", providers.SearchFilter{Zip: "10001", MaxBedrooms: ptr(0), Page: 2, PerPage: 3}, ids(16, 4, 3), 1024},
		{"many, dense", providers.SearchFilter{MaxBedrooms: ptr(2), Page: 3, PerPage: 3}, []int64{9, 10, 12}, more},
		{"many, none among the first ids", providers.SearchFilter{Zip: "10002", Page: 2, PerPage: 3}, ids(4100, 1, 3), more},
		{"many, none among the first ids, the last page", providers.SearchFilter{Zip: "10002", Page: 3968, PerPage: 3},
			ids(15998, 1, 3), more},
		// Every record is at (30, -97): a wide circle stops reading at the
		// first that holds the cap, a filtered one reads the whole radius.
		{"near, wide", providers.SearchFilter{Near: near(50_000), Page: 2, PerPage: 3}, ids(4, 1, 3), more},
		{"near, wide, deep", providers.SearchFilter{Near: near(50_000), Page: 5000, PerPage: 3}, ids(14998, 1, 3), more},
		{"near, wide, few", providers.SearchFilter{Near: near(50_000), Zip: "10001", MaxBedrooms: ptr(0), Page: 2, PerPage: 3},
			ids(16, 4, 3), 1024},
		{"near, small", providers.SearchFilter{Near: near(10), Zip: "10001", Page: 1, PerPage: 3}, ids(1, 1, 3), 4096},
		{"box", providers.SearchFilter{Box: box, Page: 2, PerPage: 3}, ids(4, 1, 3), more},
		{"box, the last page of the cap", providers.SearchFilter{Box: box, Page: providers.MaxSearchTotal + 1, PerPage: 1},
			ids(providers.MaxSearchTotal+1, 1, 1), more},
		{"box, past the cap", providers.SearchFilter{Box: box, Page: 3968, PerPage: 3}, ids(11902, 1, 3), more},
		{"box, few", providers.SearchFilter{Box: box, Zip: "10001", MaxBedrooms: ptr(0), Page: 2, PerPage: 3}, ids(16, 4, 3), 1024},
	} {
		got, total, err := db.Search(context.Background(), tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) && !(len(ids) == 0 && len(tc.want) == 0) || total != tc.total {
			t.Errorf("%s: Search(%+v) = ids %v total %d, want %v total %d", tc.name, tc.f, ids, total, tc.want, tc.total)
		}
	}
}
