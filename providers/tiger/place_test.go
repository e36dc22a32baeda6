package tiger_test

import (
	"testing"

	"github.com/propertyd/propertyd/providers/tiger"
)

func TestLocateGivesTheRecordsLocationFields(t *testing.T) {
	fairfax := &tiger.County{StateFP: "51", CountyFP: "059", GEOID: "51059", Name: "Fairfax", NameLSAD: "Fairfax County"}
	tract := &tiger.Tract{StateFP: "51", CountyFP: "059", TractCE: "471401", GEOID: "51059471401"}
	tests := []struct {
		name      string
		county    *tiger.County
		tract     *tiger.Tract
		want      tiger.Place
		wantFound bool
	}{
		{name: "county and tract: NAMELSAD, GEOID, TRACTCE", county: fairfax, tract: tract,
			want: tiger.Place{County: "Fairfax County", FIPSCode: "51059", CensusTract: "471401"}, wantFound: true},
		{name: "a county whose NAME and NAMELSAD are one",
			county: &tiger.County{GEOID: "11001", Name: "District of Columbia", NameLSAD: "District of Columbia"},
			want:   tiger.Place{County: "District of Columbia", FIPSCode: "11001"}, wantFound: true},
		{name: "in a county but no tract: the county stays", county: fairfax,
			want: tiger.Place{County: "Fairfax County", FIPSCode: "51059"}, wantFound: true},
		{name: "a GEOID that lost its leading zero: STATEFP and COUNTYFP",
			county: &tiger.County{StateFP: "08", CountyFP: "031", GEOID: "8031", NameLSAD: "Denver County"},
			tract:  &tiger.Tract{GEOID: "08031003701", TractCE: "3701"},
			want:   tiger.Place{County: "Denver County", FIPSCode: "08031", CensusTract: "003701"}, wantFound: true},
		{name: "a county without codes: FIPS from the tract's GEOID",
			county: &tiger.County{NameLSAD: "Ada County"}, tract: &tiger.Tract{GEOID: "16001000202", TractCE: "000202"},
			want: tiger.Place{County: "Ada County", FIPSCode: "16001", CensusTract: "000202"}, wantFound: true},
		{name: "no county (the geocoder's county layer failed): codes from the tract, not found",
			tract: &tiger.Tract{StateFP: "16", CountyFP: "001", TractCE: "000202"},
			want:  tiger.Place{FIPSCode: "16001", CensusTract: "000202"}},
		{name: "a tribal-looking tract code is not a tract",
			county: fairfax, tract: &tiger.Tract{TractCE: "T00100", GEOID: "9400T00100"},
			want: tiger.Place{County: "Fairfax County", FIPSCode: "51059"}, wantFound: true},
		{name: "blanks around the values, as a .dbf pads them",
			county: &tiger.County{GEOID: " 51059 ", NameLSAD: " Fairfax County "}, tract: &tiger.Tract{TractCE: " 471401 "},
			want: tiger.Place{County: "Fairfax County", FIPSCode: "51059", CensusTract: "471401"}, wantFound: true},
		{name: "neither: nothing, not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := tiger.Locate(tt.county, tt.tract)
			if got != tt.want || found != tt.wantFound {
				t.Errorf("Locate = %+v, %v; want %+v, %v", got, found, tt.want, tt.wantFound)
			}
		})
	}
}
