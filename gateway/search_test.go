package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

func ptrTo[T any](v T) *T { return &v }

// Every bad value is a 400 invalid_parameter naming the parameter, charges
// nothing and changes nothing: the records and a search's answer are the
// same afterwards.
func TestSearchRefusesBadFiltersNamingThem(t *testing.T) {
	s := newStack(t, stackOptions{})
	seedSearchRecords(t, s)
	before := s.get("/v1/properties/search?state=DC&per_page=100")
	if before.status != 200 {
		t.Fatalf("search: %d %s", before.status, before.body)
	}
	for q, param := range map[string]string{
		"min_bathrooms=":            "min_bathrooms",
		"county=":                   "county",
		"county=+++":                "county",
		"fips_code=":                "fips_code",
		"bbox=":                     "bbox",
		"lat=&lng=-77&radius_m=100": "lat",
		"property_type=":            "property_type",
		"min_bathrooms=two":         "min_bathrooms",
		"min_bathrooms=2.3":         "min_bathrooms",
		"min_bathrooms=-1":          "min_bathrooms",
		"min_bathrooms=51":          "min_bathrooms",
		"min_bathrooms=1e1":         "min_bathrooms",
		"min_bathrooms=NaN":         "min_bathrooms",
		"min_year_built=1599":       "min_year_built",
		"max_year_built=2101":       "max_year_built",
		"min_year_built=2000&max_year_built=1999":                 "min_year_built",
		"min_year_built=19%2C50":                                  "min_year_built",
		"min_living_area_sqft=0":                                  "min_living_area_sqft",
		"max_living_area_sqft=10000001":                           "max_living_area_sqft",
		"min_living_area_sqft=3000&max_living_area_sqft=2000":     "min_living_area_sqft",
		"max_living_area_sqft=１０００":                               "max_living_area_sqft",
		"property_type=condo,castle":                              "property_type",
		"property_type=condo,,townhouse":                          "property_type",
		"property_type=condo,":                                    "property_type",
		"property_type=CONDO":                                     "property_type",
		"property_type=condo%27+OR+1%3D1+--":                      "property_type",
		"fips_code=1100":                                          "fips_code",
		"fips_code=11001%27":                                      "fips_code",
		"fips_code=%EF%BC%91%EF%BC%91%EF%BC%90%EF%BC%90%EF%BC%91": "fips_code",
		"census_tract=006202":                                     "census_tract",
		"census_tract=6202&fips_code=11001":                       "census_tract",
		"lat=91&lng=-77&radius_m=100":                             "lat",
		"lat=38.9&lng=-181&radius_m=100":                          "lng",
		"lat=38.9&lng=-77&radius_m=0":                             "radius_m",
		"lat=38.9&lng=-77&radius_m=50001":                         "radius_m",
		"lat=38.9&lng=-77&radius_m=99999999999999999999":          "radius_m",
		"lat=38.9&lng=-77&radius_m=1.5":                           "radius_m",
		"lat=38.9&lng=-77":                                        "radius_m",
		"lat=38.9&radius_m=100":                                   "lng",
		"radius_m=100":                                            "lat",
		"lat=38.9&lng=-77&radius_m=100&bbox=-78,38,-77,39":        "bbox",
		"bbox=-77,38,-78,39":                                      "bbox",
		"bbox=-78,39,-77,38":                                      "bbox",
		"bbox=-78,38,-76.5,39":                                    "bbox",
		"bbox=-78,38,-77,39.5":                                    "bbox",
		"bbox=-78,38,-77":                                         "bbox",
		"bbox=-78,38,-77,39,1":                                    "bbox",
		"bbox=-78,38,,39":                                         "bbox",
		"bbox=-181,38,-180.5,39":                                  "bbox",
		"bbox=-78,89.5,-77,90.5":                                  "bbox",
		"bbox=a,b,c,d":                                            "bbox",
		"bbox=-78;38;-77;39":                                      "bbox",
		"bbox=-77,38,-77,39":                                      "bbox",
		"radius=100":                                              "radius",
	} {
		r := s.get("/v1/properties/search?" + q)
		wantProblem(t, r, 400, "invalid_parameter")
		if !paramNamed(r, param) {
			t.Errorf("%s: the errors do not name %s: %s", q, param, r.body)
		}
		if got := r.header.Get("X-Request-Cost"); got != "0" {
			t.Errorf("%s: X-Request-Cost %q; a refused search costs nothing", q, got)
		}
	}
	after := s.get("/v1/properties/search?state=DC&per_page=100")
	if string(after.body) != string(before.body) || s.countProperties() != 4 {
		t.Fatalf("a refused search changed the records:\nbefore %s\nafter  %s", before.body, after.body)
	}
}

// seedSearchRecords stores four records in DC, 0.01 degrees of latitude
// (1112 m) apart going north from 38.90, all on longitude -77.03.
func seedSearchRecords(t *testing.T, s *stack) {
	t.Helper()
	var props []providers.Property
	for i, typ := range []string{"condo", "single_family", "condo", "townhouse"} {
		props = append(props, providers.Property{
			StreetAddress: "1 MAIN ST", City: "WASHINGTON", State: "DC", ZipCode: "20001",
			County: "District of Columbia", FIPSCode: "11001", CensusTract: "004701",
			Latitude: []float64{38.90, 38.91, 38.92, 38.93}[i], Longitude: -77.03,
			PropertyType: &typ, Bedrooms: ptrTo(2 + i), Bathrooms: ptrTo(1 + float64(i)/2),
			YearBuilt: ptrTo(1950 + 20*i), LivingAreaSqft: ptrTo(800 + 400*i),
			Source: "import", CreatedAt: time.Now(), UpdatedAt: time.Now(),
		})
	}
	if err := s.db.SeedProperties(context.Background(), props); err != nil {
		t.Fatal(err)
	}
}

// Near a point, results come nearest first (then by id) with distance_m in
// whole metres; in a box, by id without it. Both combine with the other
// filters.
func TestSearchNearOrdersByDistanceWithDistanceM(t *testing.T) {
	s := newStack(t, stackOptions{})
	seedSearchRecords(t, s)
	type page struct {
		Data []map[string]any `json:"data"`
		Meta map[string]any   `json:"meta"`
	}
	get := func(q string) page {
		t.Helper()
		r := s.get("/v1/properties/search?" + q)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", q, r.status, r.body)
		}
		var p page
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	idsAndDistances := func(p page) (ids, dists []any) {
		for _, d := range p.Data {
			ids, dists = append(ids, d["id"]), append(dists, d["distance_m"])
		}
		return ids, dists
	}
	// 38.92 is record 3; records 2 and 4 are both 1112 m away.
	ids, dists := idsAndDistances(get("lat=38.92&lng=-77.03&radius_m=2000"))
	if !reflect.DeepEqual(ids, []any{3.0, 2.0, 4.0}) || !reflect.DeepEqual(dists, []any{0.0, 1112.0, 1112.0}) {
		t.Fatalf("near 3: ids %v distances %v, want [3 2 4] at [0 1112 1112]", ids, dists)
	}
	p := get("lat=38.92&lng=-77.03&radius_m=5000&property_type=condo,townhouse&min_year_built=1960&per_page=1&page=2")
	if ids, _ := idsAndDistances(p); !reflect.DeepEqual(ids, []any{4.0}) || p.Meta["total"] != 2.0 {
		t.Fatalf("near 3, condos and townhouses built from 1960, page 2 of 1: ids %v meta %v, want [4] of 2", ids, p.Meta)
	}
	p = get("bbox=-77.1,38.905,-77,38.95&min_bathrooms=1.5&max_living_area_sqft=1600")
	ids, dists = idsAndDistances(p)
	if !reflect.DeepEqual(ids, []any{2.0, 3.0}) || dists[0] != nil || strings.Contains(string(s.get("/v1/properties/search?bbox=-77.1,38.905,-77,38.95").body), "distance_m") {
		t.Fatalf("box: ids %v, want [2 3] without distance_m", ids)
	}
	p = get("county=district+of+columbia&fips_code=11001&census_tract=004701&zip=20001")
	if p.Meta["total"] != 4.0 {
		t.Fatalf("county, fips code, tract and zip: total %v, want 4", p.Meta["total"])
	}
}

// A search counts its matches up to 10,000: below that meta.total is exact
// and total_exact true; past it total is 10,000, total_exact false, and
// total_pages follows total, while the pages beyond still answer.
func TestSearchTotalIsExactUpToTheCap(t *testing.T) {
	s := newStack(t, stackOptions{})
	props := make([]providers.Property, providers.MaxSearchTotal+1)
	for i := range props {
		zip := "20001"
		if i == 0 {
			zip = "20002"
		}
		props[i] = providers.Property{StreetAddress: fmt.Sprintf("%d CAP ST", i+1), City: "WASHINGTON", State: "DC",
			ZipCode: zip, Latitude: 38.9, Longitude: -77}
	}
	if err := s.db.SeedProperties(context.Background(), props); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		meta  map[string]any
		n     int
	}{
		{"zip=20001&per_page=100", map[string]any{"page": 1.0, "per_page": 100.0, "total": 10000.0, "total_exact": true, "total_pages": 100.0}, 100},
		{"state=dc&per_page=100", map[string]any{"page": 1.0, "per_page": 100.0, "total": 10000.0, "total_exact": false, "total_pages": 100.0}, 100},
		{"state=dc&per_page=100&page=101", map[string]any{"page": 101.0, "per_page": 100.0, "total": 10000.0, "total_exact": false, "total_pages": 100.0}, 1},
		{"zip=20002", map[string]any{"page": 1.0, "per_page": 25.0, "total": 1.0, "total_exact": true, "total_pages": 1.0}, 1},
	} {
		r := s.get("/v1/properties/search?" + tc.query)
		var p struct {
			Data []map[string]any `json:"data"`
			Meta map[string]any   `json:"meta"`
		}
		if err := json.Unmarshal(r.body, &p); r.status != 200 || err != nil {
			t.Fatalf("%s: %d %s", tc.query, r.status, r.body)
		}
		if !reflect.DeepEqual(p.Meta, tc.meta) || len(p.Data) != tc.n {
			t.Errorf("%s: %d records, meta %v; want %d records, meta %v", tc.query, len(p.Data), p.Meta, tc.n, tc.meta)
		}
	}
}
