package census

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func TestAddressLocationSplitsMatchedAddress(t *testing.T) {
	tests := []struct {
		in   string
		want providers.Location
	}{
		{"1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502",
			Street:         "1600 PENNSYLVANIA AVE NW", City: "WASHINGTON", State: "DC", Zip: "20502"}},
		{"2200 Market St NE, Salem, or, 97301", providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "2200 Market St NE, Salem, or, 97301",
			Street:         "2200 MARKET ST NE", City: "SALEM", State: "OR", Zip: "97301"}},
		{"10 MAIN ST, UNIT 4, BOISE, ID, 83702", providers.Location{Precision: providers.PrecisionCensus,
			MatchedAddress: "10 MAIN ST, UNIT 4, BOISE, ID, 83702",
			Street:         "10 MAIN ST", City: "BOISE", State: "ID", Zip: "83702"}},
		{"10 MAIN ST", providers.Location{Precision: providers.PrecisionCensus, MatchedAddress: "10 MAIN ST", Street: "10 MAIN ST"}},
	}
	for _, tt := range tests {
		if got := addressLocation(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("addressLocation(%q) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
		}
	}
}

func TestFillGeographiesToleratesLayerQuirks(t *testing.T) {
	const layerErr = `{"status":"Layer query encountered an error: java.lang.RuntimeException: Failed to return"}`
	tests := []struct {
		name                string
		geos                string
		county, fips, tract string
		wantCounty          bool
	}{
		{name: "current vintage names",
			geos:   `{"Counties":[{"GEOID":"16001","NAME":"Ada County","STATE":"16","COUNTY":"001"}],"Census Tracts":[{"GEOID":"16001000202","TRACT":"000202"}]}`,
			county: "Ada County", fips: "16001", tract: "000202", wantCounty: true},
		{name: "keys in other case and with a year",
			geos:   `{"COUNTIES":[{"GEOID":"16001","NAME":"Ada County"}],"2020 Census Tracts":[{"GEOID":"16001000202","TRACT":"000202"}]}`,
			county: "Ada County", fips: "16001", tract: "000202", wantCounty: true},
		{name: "error object before the geography",
			geos:   `{"Counties":[` + layerErr + `,{"GEOID":"16001","NAME":"Ada County"}],"Census Tracts":[` + layerErr + `,{"GEOID":"16001000202","TRACT":"000202"}]}`,
			county: "Ada County", fips: "16001", tract: "000202", wantCounty: true},
		{name: "tribal tracts are not census tracts",
			geos:   `{"Tribal Census Tracts":[{"GEOID":"T00100","TRACT":"T00100"}],"Counties":[{"GEOID":"16001","NAME":"Ada County"}],"Census Tracts":[{"GEOID":"16001000202","TRACT":"000202"}]}`,
			county: "Ada County", fips: "16001", tract: "000202", wantCounty: true},
		{name: "only tribal tracts",
			geos:   `{"Counties":[{"GEOID":"16001","NAME":"Ada County"}],"Tribal Census Tracts":[{"GEOID":"9400T00100","TRACT":"T00100"}]}`,
			county: "Ada County", fips: "16001", wantCounty: true},
		{name: "county layer failed: FIPS from the tract",
			geos: `{"Counties":[` + layerErr + `],"Census Tracts":[{"GEOID":"16001000202","TRACT":"000202"}]}`,
			fips: "16001", tract: "000202"},
		{name: "numeric GEOID lost its zero: STATE+COUNTY",
			geos:   `{"Counties":[{"GEOID":8031,"STATE":"08","COUNTY":"031","NAME":"Denver County","POP100":""}],"Census Tracts":[{"GEOID":"08031003701","TRACT":"3701"}]}`,
			county: "Denver County", fips: "08031", tract: "003701", wantCounty: true},
		{name: "layer that is not an array",
			geos: `{"Counties":{"GEOID":"16001"},"Census Tracts":"n/a"}`},
		{name: "empty layers", geos: `{"Counties":[],"Census Tracts":[],"States":[]}`},
		{name: "no geographies", geos: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g geographies
			if err := json.Unmarshal([]byte(tt.geos), &g); err != nil {
				t.Fatal(err)
			}
			var loc providers.Location
			found := fillGeographies(&loc, g)
			if found != tt.wantCounty || loc.County != tt.county || loc.FIPSCode != tt.fips || loc.CensusTract != tt.tract {
				t.Errorf("got county %v %q fips %q tract %q, want %v %q %q %q",
					found, loc.County, loc.FIPSCode, loc.CensusTract, tt.wantCounty, tt.county, tt.fips, tt.tract)
			}
		})
	}
}

func TestDecodingToleratesTypeDrift(t *testing.T) {
	var m addressMatch
	body := `{"matchedAddress":"1 A ST, B, CO, 80000","coordinates":{"x":"-104.5","y":39.25},
		"addressComponents":{"city":"B","state":"CO","zip":80000},"geographies":{}}`
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	loc, err := matchLocation(m)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Point != (providers.Point{Lat: 39.25, Lng: -104.5}) || loc.Zip != "80000" {
		t.Errorf("got %+v", loc)
	}
}
