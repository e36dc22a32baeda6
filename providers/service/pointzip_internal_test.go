package service

import (
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// The postcode of an address point, in the forms OpenStreetMap's data
// writes it, read as the ZIP code of a record of New York: a ZIP code a
// state names is taken when the state is the record's; several values
// give their ZIP code when they agree and none when they do not; a
// postcode of no US form makes the point unusable.
func TestPointZipReadsThePostcodesOfRealExtracts(t *testing.T) {
	for _, tc := range []struct {
		postcode, zip string
		ok            bool
	}{
		{"", "", true},
		{"11423", "11423", true},
		{" 11423 ", "11423", true},
		{"11423-1234", "11423", true},
		{"NY 11423", "11423", true},
		{"ny 11423-1234", "11423", true},
		{"NY, 11423", "11423", true},
		{"New York 11423", "11423", true},
		{"NJ 07030", "", false},
		{"11423;11426", "", true},
		{"11423; 11423-0001", "11423", true},
		{"11423;", "11423", true},
		{"11423;V6J 3Y4", "", false},
		{"V6J 3Y4", "", false},
		{"V6J3Y4", "", false},
		{"1142", "", false},
		{"NY", "", false},
		{"XX 11423", "", false},
	} {
		zip, ok := pointZip(tc.postcode, "NY")
		if zip != tc.zip || ok != tc.ok {
			t.Errorf("pointZip(%q, NY) = %q, %v; want %q, %v", tc.postcode, zip, ok, tc.zip, tc.ok)
		}
	}
}

// An address point gives a record its house number and street in standard
// form, with the ZIP code its postcode gives; one whose postcode is no US
// form, or whose street names a unit, gives none.
func TestPointAddressIsUsableOnlyWhenItNormalizes(t *testing.T) {
	a := providers.OSMAddress{HouseNumber: "21101", Street: "Hollis Avenue", City: "Queens Village", Postcode: "NY 11423"}
	if n, ok := pointAddress(a, "NY"); !ok || n.Street != "21101 HOLLIS AVE" || n.City != "QUEENS VILLAGE" || n.Zip != "11423" {
		t.Errorf("pointAddress(%+v) = %+v, %v; want 21101 HOLLIS AVE, QUEENS VILLAGE, 11423", a, n, ok)
	}
	a.Postcode = "11423;11426"
	if n, ok := pointAddress(a, "NY"); !ok || n.Street != "21101 HOLLIS AVE" || n.Zip != "" {
		t.Errorf("pointAddress with two ZIP codes = %+v, %v; want the street without a ZIP code", n, ok)
	}
	a.Postcode = "V6J 3Y4"
	if n, ok := pointAddress(a, "NY"); ok {
		t.Errorf("pointAddress with a Canadian postal code = %+v; want none", n)
	}
	a.Postcode, a.Street = "11423", "Hollis Avenue Apt 4B"
	if n, ok := pointAddress(a, "NY"); ok {
		t.Errorf("pointAddress of a unit = %+v; want none (a point names a building)", n)
	}
}
