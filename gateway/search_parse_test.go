package gateway

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func ptrTo[T any](v T) *T { return &v }

// Each new filter reads into the field the store searches by, and a list of
// types keeps its order without duplicates; a single type still works.
func TestSearchReadsTheFactAndPlaceFilters(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  providers.SearchFilter
	}{
		{"property_type=condo", providers.SearchFilter{PropertyTypes: []string{"condo"}}},
		{"property_type=single_family,condo", providers.SearchFilter{PropertyTypes: []string{"single_family", "condo"}}},
		{"property_type=condo,+townhouse,condo", providers.SearchFilter{PropertyTypes: []string{"condo", "townhouse"}}},
		{"min_bathrooms=2.5", providers.SearchFilter{MinBathrooms: ptrTo(2.5)}},
		{"min_bathrooms=0", providers.SearchFilter{MinBathrooms: ptrTo(0.0)}},
		{"min_year_built=1950&max_year_built=1979", providers.SearchFilter{MinYearBuilt: ptrTo(1950), MaxYearBuilt: ptrTo(1979)}},
		{"min_living_area_sqft=900&max_living_area_sqft=900", providers.SearchFilter{MinLivingAreaSqft: ptrTo(900), MaxLivingAreaSqft: ptrTo(900)}},
		{"county=Prince+George%27s++County", providers.SearchFilter{County: "Prince George's County"}},
		{"county=Do%C3%B1a+Ana+County", providers.SearchFilter{County: "Doña Ana County"}},
		{"fips_code=11001&census_tract=006202", providers.SearchFilter{FIPSCode: "11001", CensusTract: "006202"}},
		{"lat=38.8977&lng=-77.0365&radius_m=1500", providers.SearchFilter{Near: &providers.Circle{
			Center: providers.Point{Lat: 38.8977, Lng: -77.0365}, RadiusMeters: 1500}}},
		{"lat=0&lng=0&radius_m=50000", providers.SearchFilter{Near: &providers.Circle{RadiusMeters: 50000}}},
		{"bbox=-77.1,38.8,-76.9,38.95", providers.SearchFilter{Box: &providers.BBox{West: -77.1, South: 38.8, East: -76.9, North: 38.95}}},
		{"bbox=-78,38,-77,39", providers.SearchFilter{Box: &providers.BBox{West: -78, South: 38, East: -77, North: 39}}},
	} {
		vals, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q := map[string]string{}
		for k, v := range vals {
			q[k] = v[0]
		}
		got, errs := parseSearch(q)
		if len(errs) > 0 {
			t.Errorf("%s: refused: %v", tc.query, errs)
			continue
		}
		tc.want.Page, tc.want.PerPage = 1, 25
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: filter %+v, want %+v", tc.query, got, tc.want)
		}
	}
}
