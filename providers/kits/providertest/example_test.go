package providertest_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
)

// The README's "Testing against fakes": the census module geocodes an
// address the fake knows, without the network.
func ExampleRegisterCensusGeocoder() {
	mt := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, providertest.CensusPlace{
		Street: "1 MAIN ST", City: "SPRINGFIELD", State: "IL", Zip: "62701", Lat: 39.8, Lng: -89.6,
		CountyName: "Sangamon County", StateFIPS: "17", CountyFIPS: "167", Tract: "000500"})
	geo, err := census.New(providers.Settings{BaseURL: census.DefaultBaseURL, Client: &http.Client{Transport: mt}})
	if err != nil {
		fmt.Println(err)
		return
	}
	loc, err := geo.Geocode(context.Background(), providers.Address{
		Street: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loc.Street, loc.City, loc.FIPSCode, loc.CensusTract)
	// Output: 1 MAIN ST SPRINGFIELD 17167 000500
}
