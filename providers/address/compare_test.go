package address_test

import (
	"reflect"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// The inputs and matched addresses of the first rows are the Census
// geocoder's own, from recorded answers (the White House on two TIGER
// edges, Falls Church and Suitland one-line answers, the batch answers);
// the others are this project's fixtures, one per part a match changes.
func TestDifferencesNamesThePartsAMatchChanged(t *testing.T) {
	in := func(street, city, state, zip string) providers.Address {
		return providers.Address{Street: street, City: city, State: state, Zip: zip}
	}
	tests := []struct {
		name    string
		input   providers.Address
		matched string // the geocoder's matchedAddress
		want    []string
	}{
		{"recorded: White House, ZIP corrected", in("1600 Pennsylvania Avenue NW", "Washington", "DC", "20500"),
			"1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", []string{"zip"}},
		{"recorded: White House, second edge", in("1600 Pennsylvania Avenue NW", "Washington", "DC", "20500"),
			"1600 Pennsylvania Ave NW, WASHINGTON, DC, 20037", []string{"zip"}},
		{"recorded: Falls Church exact", in("2525 buckelew dr", "falls church", "va", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", nil},
		{"recorded: ZIP left out is no difference", in("7309 carol ln", "falls church", "va", ""),
			"7309 CAROL LN, FALLS CHURCH, VA, 22042", nil},
		{"recorded: city and ZIP left out", in("3444 gallows rd", "", "VA", ""),
			"3444 GALLOWS RD, ANNANDALE, VA, 22003", nil},
		{"recorded: spelled-out directional", in("3 Gramercy Park West", "New York", "NY", "10003"),
			"3 GRAMERCY PARK W, NEW YORK, NY, 10003", nil},
		{"recorded: Suitland exact", in("4600 Silver Hill Rd", "Washington", "DC", "20233"),
			"4600 SILVER HILL RD, WASHINGTON, DC, 20233", nil},
		{"recorded: Corvallis suffix added", in("222 nw 14th", "Corvallis", "OR", ""),
			"222 NW 14TH ST, CORVALLIS, OR, 97330", []string{"street_type"}},
		{"house number changed", in("2527 Buckelew Dr", "Falls Church", "VA", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", []string{"house_number"}},
		{"house number and ZIP changed", in("2527 Buckelew Dr", "Falls Church", "VA", "22044"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", []string{"house_number", "zip"}},
		{"directional added", in("1600 Pennsylvania Ave", "Washington", "DC", "20502"),
			"1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", []string{"directional"}},
		{"pre-directional changed", in("100 S Main St", "Ann Arbor", "MI", ""),
			"100 N MAIN ST, ANN ARBOR, MI, 48104", []string{"directional"}},
		{"street name spelling", in("2525 Buckelw Dr", "Falls Church", "VA", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", []string{"street_name"}},
		{"street type changed", in("2525 Buckelew Ct", "Falls Church", "VA", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", []string{"street_type"}},
		{"suffix added", in("2525 Buckelew", "Falls Church", "VA", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", []string{"street_type"}},
		{"city corrected", in("2525 Buckelew Dr", "Fairfax", "VA", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", []string{"city"}},
		{"ordinal spelled out is no difference", in("350 Fifth Avenue", "New York", "NY", "10118"),
			"350 5TH AVE, NEW YORK, NY, 10118", nil},
		{"unit is no part of it", in("2525 Buckelew Dr Apt 4", "Falls Church", "VA", "22046"),
			"2525 BUCKELEW DR, FALLS CHURCH, VA, 22046", nil},
		{"fraction house number", in("12 1/2 Elm St", "Salem", "OR", ""),
			"12 ELM ST, SALEM, OR, 97301", []string{"house_number"}},
		{"everything", in("9 Oak Rd", "Springfield", "IL", "62701"),
			"1 N ELM ST, CHICAGO, IL, 60601", []string{"house_number", "directional", "street_name", "street_type", "city", "zip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := address.Normalize(tt.input)
			if err != nil {
				t.Fatalf("Normalize(%+v): %v", tt.input, err)
			}
			loc := matchedLocation(tt.matched)
			m, ok := address.Matched(loc)
			if !ok {
				t.Fatalf("Matched(%q) is no address", tt.matched)
			}
			if got := address.Differences(n, m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Differences(%+v, %q) = %q, want %q", tt.input, tt.matched, got, tt.want)
			}
		})
	}
}

// matchedLocation splits a geocoder's one-line match as the census module
// does: street, city, state, ZIP.
func matchedLocation(matched string) providers.Location {
	parts := splitComma(matched)
	return providers.Location{MatchedAddress: matched, Street: parts[0], City: parts[1], State: parts[2], Zip: parts[3]}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			part := s[start:i]
			for len(part) > 0 && part[0] == ' ' {
				part = part[1:]
			}
			out = append(out, part)
			start = i + 1
		}
	}
	return out
}

func TestSameAddressIsEqualOnceNormalized(t *testing.T) {
	loc := func(m string) providers.Location { return providers.Location{MatchedAddress: m} }
	// The recorded White House answer: two edges, two ZIP codes, so two
	// different addresses (two records would be made of them).
	if address.SameAddress(loc("1600 Pennsylvania Ave NW, WASHINGTON, DC, 20037"), loc("1600 Pennsylvania Ave NW, WASHINGTON, DC, 20502")) {
		t.Error("two ZIP codes taken for one address")
	}
	if !address.SameAddress(loc("1600 Pennsylvania Ave NW, WASHINGTON, DC, 20502"), loc("1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502")) {
		t.Error("one address in two cases taken for two")
	}
	if address.SameAddress(loc("100 MAIN ST, SALEM, OR, 97301"), loc("100 MAIN ST, SALEM, MA, 01970")) {
		t.Error("two states taken for one address")
	}
}
