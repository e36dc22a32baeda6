package address

import (
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func TestHouseNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"123", 123, true},
		{"0123", 123, true},
		{"0", 0, true},
		{"12A", 12, true},
		{"12a", 12, true},
		{"12 1/2", 12, true},
		{"1 3/4", 1, true},
		{"117-11", HyphenBase + 117*1_000_000 + 11, true},
		{"117-01", HyphenBase + 117*1_000_000 + 1, true},
		{"117-11A", HyphenBase + 117*1_000_000 + 11, true},
		{"  42  ", 42, true},
		{"999999999", 999999999, true},
		// Refused: no leading digit, letters before the number, other
		// scripts' digits, too long, junk after it.
		{"", 0, false},
		{"A", 0, false},
		{"N101", 0, false},
		{"W5322", 0, false},
		{"1/2", 0, false},
		{"12 A", 0, false},
		{"12 1/2 3", 0, false},
		{"1000000000", 0, false},
		{"99999999999999999999999", 0, false},
		{"١٢٣", 0, false},
		{"12-", 0, false},
		{"-12", 0, false},
		{"12-A", 0, false},
		{"1234567-1", 0, false},
		{"12ABC", 0, false},
		{"12.5", 0, false},
		{"12 ½", 0, false},
	} {
		got, ok := HouseNumber(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("HouseNumber(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// A Queens number sorts within its block's range and in no plain range,
// and keeps the parity of its building number, the side of the street.
func TestHouseNumberQueensOrderAndParity(t *testing.T) {
	lo, _ := HouseNumber("117-01")
	n, _ := HouseNumber("117-11")
	hi, _ := HouseNumber("117-99")
	if !(lo < n && n < hi) {
		t.Fatalf("117-11 (%d) is not between 117-01 (%d) and 117-99 (%d): a Queens address would miss its range", n, lo, hi)
	}
	next, _ := HouseNumber("118-01")
	if next <= hi {
		t.Errorf("118-01 (%d) sorts before 117-99 (%d)", next, hi)
	}
	if n%2 != 1 {
		t.Errorf("117-11 reads as even (%d): it would be looked for on the wrong side", n)
	}
	if big, _ := HouseNumber("999999999"); big >= lo {
		t.Errorf("a plain number (%d) sorts among the hyphenated (%d)", big, lo)
	}
}

func TestSplitNumber(t *testing.T) {
	for _, tc := range []struct{ in, number, name string }{
		{"117-11 SUTPHIN BLVD", "117-11", "SUTPHIN BLVD"},
		{"12 1/2 ELM ST", "12 1/2", "ELM ST"},
		{"123 N MAIN ST", "123", "N MAIN ST"},
		{"12A ELM ST", "12A", "ELM ST"},
		{"5TH AVE", "", "5TH AVE"},
		{"123 3 NOTCH RD", "123", "3 NOTCH RD"},
		{"", "", ""},
		{"100", "100", ""},
	} {
		number, name := SplitNumber(tc.in)
		if number != tc.number || name != tc.name {
			t.Errorf("SplitNumber(%q) = %q, %q; want %q, %q", tc.in, number, name, tc.number, tc.name)
		}
	}
}

// StreetName of a TIGER FULLNAME is the name a lookup of an address on that
// street normalizes to after its number: that is how a range joins a lookup.
func TestStreetNameJoinsLookup(t *testing.T) {
	for _, tc := range []struct{ fullname, lookup, want string }{
		{"State Hwy 360", "1101 State Highway 360", "STATE HWY 360"},
		{"Hwy 360", "1101 highway 360", "HWY 360"},
		{"N Main St", "123 North Main Street", "N MAIN ST"},
		{"Sutphin Blvd", "117-11 Sutphin Boulevard", "SUTPHIN BLVD"},
		{"Elm St", "12 1/2 Elm St Apt 3", "ELM ST"},
		{"Pennsylvania Ave NW", "1600 Pennsylvania Avenue N.W.", "PENNSYLVANIA AVE NW"},
		{"Fifth Ave", "350 5th Avenue", "5TH AVE"},
		{"North St", "12 North Street", "NORTH ST"},
		{"O'Brien Ct", "42 O'Brien Court", "OBRIEN CT"},
		{"3 Notch Rd", "123 3 Notch Rd", "3 NOTCH RD"},
		{"Avenue of the Americas", "1211 Avenue of the Americas", "AVENUE OF THE AMERICAS"},
		{"Calle Ñandú", "5 calle ñandú", "CALLE ÑANDÚ"},
		{"Lueppold Rd", "15 Lueppold Road", "LUEPPOLD RD"},
		{"I- 95", "10 I 95", "I 95"},
		{"I-95", "10 I-95", "I95"},
	} {
		got := StreetName(tc.fullname)
		if got != tc.want {
			t.Errorf("StreetName(%q) = %q; want %q", tc.fullname, got, tc.want)
		}
		n, err := Normalize(providers.Address{Street: tc.lookup, State: "NY"})
		if err != nil {
			t.Fatalf("Normalize(%q): %v", tc.lookup, err)
		}
		if _, name := SplitNumber(n.Street); name != got {
			t.Errorf("a lookup of %q has street name %q, but the range named %q has %q: they would not join", tc.lookup, name, tc.fullname, got)
		}
	}
}

// StreetName is idempotent, as Normalize is.
func TestStreetNameIdempotent(t *testing.T) {
	for _, s := range []string{"State Hwy 360", "N Main St", "Avenue of the Americas", "Old Unit Rd", "Lot St", "Ocean Front", "County Road 12 Ste 4"} {
		once := StreetName(s)
		if twice := StreetName(once); twice != once {
			t.Errorf("StreetName(%q) = %q but StreetName(%q) = %q", s, once, once, twice)
		}
	}
}
