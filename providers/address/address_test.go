package address_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// st builds a client address in Springfield, IL, the state most rows need.
func st(street string) providers.Address {
	return providers.Address{Street: street, City: "Springfield", State: "IL", Zip: "62701"}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		in     providers.Address
		street string
		unit   string
	}{
		// Suffixes, their long forms and common variants.
		{"street", st("123 Main Street"), "123 MAIN ST", ""},
		{"str", st("123 Main Str"), "123 MAIN ST", ""},
		{"avenue", st("500 Oak Avenue"), "500 OAK AVE", ""},
		{"av", st("500 Oak Av"), "500 OAK AVE", ""},
		{"aven", st("500 oak aven."), "500 OAK AVE", ""},
		{"boulevard", st("77 Sunset Boulevard"), "77 SUNSET BLVD", ""},
		{"blvrd", st("77 Sunset Blvrd"), "77 SUNSET BLVD", ""},
		{"road", st("9 Mill Pond Road"), "9 MILL POND RD", ""},
		{"drive", st("42 Lakeview Drive"), "42 LAKEVIEW DR", ""},
		{"lane", st("8 Cherry Lane"), "8 CHERRY LN", ""},
		{"court", st("16 Birch Court"), "16 BIRCH CT", ""},
		{"place", st("3 Elm Place"), "3 ELM PL", ""},
		{"terrace", st("21 Hill Terrace"), "21 HILL TER", ""},
		{"circle", st("5 Fox Circle"), "5 FOX CIR", ""},
		{"parkway", st("1200 Riverside Parkway"), "1200 RIVERSIDE PKWY", ""},
		{"highway as suffix", st("4410 Coastal Highway"), "4410 COASTAL HWY", ""},
		{"square", st("1 Union Square"), "1 UNION SQ", ""},
		{"trail", st("60 Pine Trail"), "60 PINE TRL", ""},
		{"way", st("10 Harbor Way"), "10 HARBOR WAY", ""},
		{"alley", st("2 Cobble Alley"), "2 COBBLE ALY", ""},
		{"expressway", st("900 Cross Bronx Expressway"), "900 CROSS BRONX EXPY", ""},
		{"freeway", st("31 Gulf Freeway"), "31 GULF FWY", ""},
		{"crossing", st("12 Deer Crossing"), "12 DEER XING", ""},
		{"point", st("7 Rocky Point"), "7 ROCKY PT", ""},
		{"numbered highway", st("2200 Highway 50"), "2200 HWY 50", ""},
		{"numbered state route", st("15 State Route 7"), "15 STATE RTE 7", ""},
		{"suffix word inside the name kept", st("100 Avenue of the Americas"), "100 AVENUE OF THE AMERICAS", ""},
		{"suffix word as the whole name kept", st("12 Park"), "12 PARK", ""},
		{"only the last suffix is abbreviated", st("8 Street Road"), "8 STREET RD", ""},
		{"spelled ordinal name", st("350 Fifth Avenue"), "350 5TH AVE", ""},
		{"spelled ordinal inside a longer name kept", st("2 First Baptist Church Road"), "2 FIRST BAPTIST CHURCH RD", ""},
		{"numeric ordinal", st("222 NW 14th"), "222 NW 14TH", ""},

		// Directionals.
		{"pre-directional", st("123 North Main Street"), "123 N MAIN ST", ""},
		{"post-directional", st("1600 Pennsylvania Avenue Northwest"), "1600 PENNSYLVANIA AVE NW", ""},
		{"post-directional typed apart", st("1600 Pennsylvania Ave. N.W."), "1600 PENNSYLVANIA AVE NW", ""},
		{"post-directional after a suffix word", st("3 Gramercy Park West"), "3 GRAMERCY PARK W", ""},
		{"both directionals", st("45 south elm st east"), "45 S ELM ST E", ""},
		{"two-word pre-directional", st("9 North West Fifth Street"), "9 NW 5TH ST", ""},
		{"grid address", st("100 West 200 North"), "100 W 200 N", ""},
		{"street named North", st("123 North St"), "123 NORTH ST", ""},
		{"street named West", st("456 West Ave"), "456 WEST AVE", ""},
		{"street named North with a post-directional", st("123 North Street West"), "123 NORTH ST W", ""},
		{"street named E in DC", st("400 E St SW"), "400 E ST SW", ""},
		{"street named N with pre-directional spelled", st("77 South N Street"), "77 S N ST", ""},
		{"directional alone is the name", st("100 North"), "100 NORTH", ""},

		// House numbers.
		{"hyphenated house number", st("123-45 67th Avenue"), "123-45 67TH AVE", ""},
		{"fraction", st("123 1/2 Main St"), "123 1/2 MAIN ST", ""},
		{"house number with letter", st("12A Elm St"), "12A ELM ST", ""},
		{"no house number", st("Main Street"), "MAIN ST", ""},

		// Units of every designator.
		{"apt", st("123 Main St Apt 4B"), "123 MAIN ST", "APT 4B"},
		{"apartment with hyphen", st("123 Main St Apartment 4-B"), "123 MAIN ST", "APT 4B"},
		{"apt after comma with pound", st("123 Main St, Apt. #4b"), "123 MAIN ST", "APT 4B"},
		{"unit", st("9 Elm Rd Unit 3"), "9 ELM RD", "UNIT 3"},
		{"unit glued by hyphen", st("9 Elm Rd Unit-3"), "9 ELM RD", "UNIT 3"},
		{"suite", st("1 Market Plaza Suite 200"), "1 MARKET PLZ", "STE 200"},
		{"ste with period", st("1 Market Plaza Ste. 200"), "1 MARKET PLZ", "STE 200"},
		{"floor", st("10 Pine St Fl 2"), "10 PINE ST", "FL 2"},
		{"floor spelled", st("10 Pine St Floor 2"), "10 PINE ST", "FL 2"},
		{"room", st("10 Pine St Rm 5"), "10 PINE ST", "RM 5"},
		{"building", st("800 Oak Dr Bldg C"), "800 OAK DR", "BLDG C"},
		{"building and apartment", st("800 Oak Dr Building C, Apt 4"), "800 OAK DR", "BLDG C APT 4"},
		{"lot", st("55 Meadow Ln Lot 7"), "55 MEADOW LN", "LOT 7"},
		{"space", st("55 Meadow Ln Space 3"), "55 MEADOW LN", "SPC 3"},
		{"spc", st("55 Meadow Ln Spc 3"), "55 MEADOW LN", "SPC 3"},
		{"trailer", st("55 Meadow Ln Trlr 2"), "55 MEADOW LN", "TRLR 2"},
		{"department", st("2 Center St Dept 12"), "2 CENTER ST", "DEPT 12"},
		{"penthouse standalone", st("40 Park Ave PH"), "40 PARK AVE", "PH"},
		{"rear standalone", st("17 Maple Ave Rear"), "17 MAPLE AVE", "REAR"},
		{"basement", st("17 Maple Ave Basement"), "17 MAPLE AVE", "BSMT"},
		{"pound sign", st("123 Main St #12"), "123 MAIN ST", "# 12"},
		{"pound sign spaced", st("123 Main St # 12"), "123 MAIN ST", "# 12"},
		{"unit after post-directional", st("1600 Pennsylvania Ave NW Apt 2"), "1600 PENNSYLVANIA AVE NW", "APT 2"},
		{"unit letter that is a directional", st("5 Oak St Unit E"), "5 OAK ST", "UNIT E"},
		{"numeric unit range", st("5 Oak St Apt 12-3"), "5 OAK ST", "APT 12-3"},
		{"designator run into its number", st("5 Oak St Apt4B"), "5 OAK ST", "APT 4B"},
		{"suite run into its number", st("5 Oak St STE200"), "5 OAK ST", "STE 200"},
		{"apt pound", st("5 Oak St Apt # 7"), "5 OAK ST", "APT 7"},
		{"letter unit typed apart", st("5 Oak St Unit N.E."), "5 OAK ST", "UNIT NE"},
		{"floor, suite and room", st("10 Pine St Bldg 2 Fl 3 Rm 301"), "10 PINE ST", "BLDG 2 FL 3 RM 301"},
		{"hangar", st("1 Airport Rd Hngr 4"), "1 AIRPORT RD", "HNGR 4"},

		// Words that look like designators but are street names.
		{"lot street", st("123 Lot St"), "123 LOT ST", ""},
		{"old unit road", st("123 Old Unit Rd"), "123 OLD UNIT RD", ""},
		{"ocean front", st("45 Ocean Front"), "45 OCEAN FRONT", ""},
		{"park side", st("100 Park Side"), "100 PARK SIDE", ""},
		{"apt without identifier", st("123 Apt 4"), "123 APT 4", ""},
		{"trailing pound sign dropped", st("123 Main St #"), "123 MAIN ST", ""},

		// Streets containing BOX are not PO boxes.
		{"boxwood", st("123 Boxwood Ln"), "123 BOXWOOD LN", ""},
		{"box elder", st("Box Elder St"), "BOX ELDER ST", ""},
		{"box canyon with number", st("12 Box Canyon Rd"), "12 BOX CANYON RD", ""},
		{"post office road", st("123 Post Office Rd"), "123 POST OFFICE RD", ""},
		{"rural route box", st("RR 2 Box 5"), "RR 2 BOX 5", ""},

		// Punctuation, case, spacing and Unicode.
		{"apostrophe joins", st("12 O'Brien St"), "12 OBRIEN ST", ""},
		{"curly apostrophe joins", st("12 O\u2019Brien St"), "12 OBRIEN ST", ""},
		{"hyphenated name splits", st("3 Wilkes-Barre Blvd"), "3 WILKES BARRE BLVD", ""},
		{"unicode letters", st("12 Calle Ñandú"), "12 CALLE ÑANDÚ", ""},
		{"sharp s", st("4 Straße"), "4 STRAßE", ""},
		{"no-break space", st("123\u00a0Main\u00a0St"), "123 MAIN ST", ""},
		{"emoji dropped", st("123 Main St 🏠"), "123 MAIN ST", ""},
		{"sql metacharacters are data", st("'; DROP TABLE properties; --"), "DROP TABLE PROPERTIES", ""},
		{"quotes and semicolons", st(`1 "Main"; St`), "1 MAIN ST", ""},
		{"unit inside SQL-looking text", st("1 Main St Apt 1' OR '1'='1"), "1 MAIN ST APT 1 OR 1 1", ""},
		{"exactly 100 characters", st("1 " + strings.Repeat("a", 95) + " St"), "1 " + strings.Repeat("A", 95) + " ST", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := address.Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q) error: %v", tt.in.Street, err)
			}
			if got.Street != tt.street || got.Unit != tt.unit {
				t.Errorf("Normalize(%q) = street %q unit %q, want street %q unit %q",
					tt.in.Street, got.Street, got.Unit, tt.street, tt.unit)
			}
			if got.City != "SPRINGFIELD" || got.State != "IL" || got.Zip != "62701" {
				t.Errorf("Normalize(%q) = city %q state %q zip %q, want SPRINGFIELD IL 62701",
					tt.in.Street, got.City, got.State, got.Zip)
			}
		})
	}
}

func TestNormalizeOtherFields(t *testing.T) {
	tests := []struct {
		name             string
		city, state, zip string
		wantCity, wantSt string
		wantZip          string
	}{
		{"codes", "Springfield", "IL", "62701", "SPRINGFIELD", "IL", "62701"},
		{"lower-case code", "springfield", "il", "62701", "SPRINGFIELD", "IL", "62701"},
		{"state name", "Falls Church", "Virginia", "22046", "FALLS CHURCH", "VA", "22046"},
		{"two-word state name", "Albany", "new york", "12207", "ALBANY", "NY", "12207"},
		{"dotted code", "Albany", "N.Y.", "12207", "ALBANY", "NY", "12207"},
		{"district of columbia", "Washington", "District of Columbia", "20502", "WASHINGTON", "DC", "20502"},
		{"washington state is not DC", "Seattle", "Washington", "98101", "SEATTLE", "WA", "98101"},
		{"puerto rico", "San Juan", "Puerto Rico", "00901", "SAN JUAN", "PR", "00901"},
		{"guam", "Hagatna", "GU", "96910", "HAGATNA", "GU", "96910"},
		{"virgin islands", "Charlotte Amalie", "U.S. Virgin Islands", "00802", "CHARLOTTE AMALIE", "VI", "00802"},
		{"american samoa", "Pago Pago", "as", "96799", "PAGO PAGO", "AS", "96799"},
		{"northern mariana islands", "Saipan", "MP", "96950", "SAIPAN", "MP", "96950"},
		{"zip plus four", "Springfield", "IL", "62701-1234", "SPRINGFIELD", "IL", "62701"},
		{"zip nine digits", "Springfield", "IL", "627011234", "SPRINGFIELD", "IL", "62701"},
		{"zip with spaces around", "Springfield", "IL", " 62701 ", "SPRINGFIELD", "IL", "62701"},
		{"no zip", "Springfield", "IL", "", "SPRINGFIELD", "IL", ""},
		{"no city", "", "IL", "62701", "", "IL", "62701"},
		{"city punctuation", "St. Louis", "MO", "63101", "ST LOUIS", "MO", "63101"},
		{"saint kept as typed", "Saint Louis", "MO", "63101", "SAINT LOUIS", "MO", "63101"},
		{"hyphenated city", "Winston-Salem", "NC", "27101", "WINSTON SALEM", "NC", "27101"},
		{"city spacing", "  new   york  ", "NY", "10001", "NEW YORK", "NY", "10001"},
		{"city apostrophe", "Coeur d'Alene", "ID", "83814", "COEUR DALENE", "ID", "83814"},
		{"unicode city", "Cataño", "PR", "00962", "CATAÑO", "PR", "00962"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := address.Normalize(providers.Address{Street: "1 Main St", City: tt.city, State: tt.state, Zip: tt.zip})
			if err != nil {
				t.Fatalf("Normalize(city %q state %q zip %q) error: %v", tt.city, tt.state, tt.zip, err)
			}
			if got.City != tt.wantCity || got.State != tt.wantSt || got.Zip != tt.wantZip {
				t.Errorf("Normalize(city %q state %q zip %q) = %q %q %q, want %q %q %q",
					tt.city, tt.state, tt.zip, got.City, got.State, got.Zip, tt.wantCity, tt.wantSt, tt.wantZip)
			}
		})
	}
}

// TestUnitGivenApartFromTheStreet: a unit given on its own (lookup's
// unit=, the import's unit column) names the record the same unit typed on
// the street names; a bare "4B" is "#4B"; a unit that is no unit, or that
// contradicts the street's, is an invalid unit.
func TestUnitGivenApartFromTheStreet(t *testing.T) {
	key := func(street, unit string) (string, error) {
		n, err := address.Normalize(providers.Address{Street: street, Unit: unit, City: "Springfield", State: "IL"})
		return n.Key(), err
	}
	same := []struct{ street, unit, asStreet string }{
		{"12 Elm St", "Apt 4", "12 Elm St Apt 4"},
		{"12 Elm St", "apartment 4", "12 Elm St Apt 4"},
		{"12 Elm St", "4B", "12 Elm St #4B"},
		{"12 Elm St", "#4B", "12 Elm St #4B"},
		{"12 Elm St", " Suite 200 ", "12 Elm St Ste 200"},
		{"12 Elm St Apt 4", "Apt 4", "12 Elm St Apt 4"},
		{"12 Elm St", "", "12 Elm St"},
		{"12 Elm St", "   ", "12 Elm St"},
	}
	for _, c := range same {
		got, err := key(c.street, c.unit)
		want, werr := key(c.asStreet, "")
		if err != nil || werr != nil || got != want {
			t.Errorf("street %q unit %q: key %q (%v), want the key of %q: %q (%v)", c.street, c.unit, got, err, c.asStreet, want, werr)
		}
	}
	if with, _ := key("12 Elm St", "Apt 4"); with == mustKey(t, "12 Elm St") {
		t.Error("12 Elm St with unit Apt 4 has the key of 12 Elm St: two properties would be one record")
	}
	for _, c := range []struct{ street, unit, msg string }{
		{"12 Elm St", "#", "is not a secondary unit"},
		{"12 Elm St", "Apt 4\n", "must not contain control characters"},
		{"12 Elm St Apt 4", "Apt 5", "is APT 5 but the street names APT 4"},
	} {
		_, err := key(c.street, c.unit)
		e := providers.As(err)
		if err == nil || e.Kind != providers.KindInvalid || len(e.Params) != 1 || e.Params[0].Parameter != "unit" ||
			!strings.Contains(e.Params[0].Message, c.msg) {
			t.Errorf("street %q unit %q: %v, want an invalid unit that %s", c.street, c.unit, err, c.msg)
		}
	}
}

func mustKey(t *testing.T, street string) string {
	t.Helper()
	n, err := address.Normalize(providers.Address{Street: street, City: "Springfield", State: "IL"})
	if err != nil {
		t.Fatal(err)
	}
	return n.Key()
}

// TestSameAddressSameKey protects "one record per address": every spelling
// in a group must produce the same key, so a repeated address costs no
// upstream call and lands on the same record.
func TestSameAddressSameKey(t *testing.T) {
	groups := [][]providers.Address{
		{
			st("123 north main street"),
			st("123 N. Main St."),
			st("  123 N MAIN ST  "),
			st("123 N Main St"),
			st("123   North   Main   Str"),
			{Street: "123 n main st", City: "springfield", State: "Illinois", Zip: "62701-0001"},
			{Street: "123 N. MAIN ST.", City: " Springfield ", State: "il", Zip: "627010001"},
		},
		{
			st("123 Main St Apt 4B"),
			st("123 Main Street, Apartment 4-B"),
			st("123 main st apt. #4b"),
			st("123 MAIN ST APT 4B"),
		},
		{
			st("1600 Pennsylvania Ave NW"),
			st("1600 Pennsylvania Avenue Northwest"),
			st("1600 pennsylvania ave. n.w."),
			st("1600 Pennsylvania Av North West"),
		},
		{
			st("350 Fifth Ave"),
			st("350 5th Avenue"),
		},
		{
			st("1 Market Plaza Suite 200"),
			st("1 Market Plz Ste 200"),
			st("1 Market Plaza, Ste. 200"),
		},
	}
	for _, g := range groups {
		first, err := address.Normalize(g[0])
		if err != nil {
			t.Fatalf("Normalize(%q): %v", g[0].Street, err)
		}
		for _, a := range g[1:] {
			n, err := address.Normalize(a)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", a.Street, err)
			}
			if n.Key() != first.Key() {
				t.Errorf("%q and %q would be two records: keys %q and %q", g[0].Street, a.Street, first.Key(), n.Key())
			}
		}
	}
}

func TestDifferentAddressesDifferentKeys(t *testing.T) {
	pairs := [][2]providers.Address{
		{st("123 Main St Apt 1"), st("123 Main St Apt 2")},
		{st("123 Main St Apt 1"), st("123 Main St")},
		{st("123 North St"), st("123 N St")},
		{st("123 Main St"), {Street: "123 Main St", State: "IL", Zip: "62701"}},
		{st("123 Main St"), {Street: "123 Main St", City: "Springfield", State: "IL"}},
		{st("123 Main St"), {Street: "123 Main St", City: "Springfield", State: "MO", Zip: "62701"}},
		{st("123 Main St #12"), st("123 Main St Unit 12")},
	}
	for _, p := range pairs {
		a, errA := address.Normalize(p[0])
		b, errB := address.Normalize(p[1])
		if errA != nil || errB != nil {
			t.Fatalf("Normalize: %v, %v", errA, errB)
		}
		if a.Key() == b.Key() {
			t.Errorf("%+v and %+v share key %q: two properties would become one", p[0], p[1], a.Key())
		}
	}
}

func TestKeyAndBuilding(t *testing.T) {
	n, err := address.Normalize(providers.Address{Street: "123 North Main Street Apt 4B", City: "Springfield", State: "IL", Zip: "62701-4455"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.Key(), "123 N MAIN ST|APT 4B|SPRINGFIELD|IL|62701"; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
	want := providers.Address{Street: "123 North Main Street", City: "Springfield", State: "IL", Zip: "62701"}
	if got := n.Building(); got != want {
		t.Errorf("Building() = %+v, want %+v (the geocoder gets the building as written, without the unit)", got, want)
	}
	hand := address.Normalized{Street: "123 N MAIN ST", Unit: "APT 4B", City: "SPRINGFIELD", State: "IL"}
	if got, want := hand.Building(), (providers.Address{Street: "123 N MAIN ST", City: "SPRINGFIELD", State: "IL"}); got != want {
		t.Errorf("Building() of a Normalized made by hand = %+v, want its normalized building %+v", got, want)
	}

	n, err = address.Normalize(providers.Address{Street: "9 Elm Rd", State: "VA"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.Key(), "9 ELM RD|||VA|"; got != want {
		t.Errorf("Key() with empty parts = %q, want %q", got, want)
	}
}

// TestBuildingIsWhatTheClientWrote protects what the geocoder is sent. The
// normalized form drops what a geocoder matches on (TIGER keeps the
// apostrophe of "O'BRIEN" and the hyphen of "I-95"; "North Shore Rd" is a
// name, not a directional), so it is for identity only: the geocoder gets
// the client's text, without the unit the record keeps apart.
func TestBuildingIsWhatTheClientWrote(t *testing.T) {
	tests := []struct {
		name string
		in   providers.Address
		want providers.Address
	}{
		{"apostrophe kept", providers.Address{Street: "42 O'Brien Ct", City: "Boston", State: "MA"},
			providers.Address{Street: "42 O'Brien Ct", City: "Boston", State: "MA"}},
		{"typographic apostrophe as TIGER writes it", providers.Address{Street: "42 O\u2019Brien Ct", City: "Coeur d\u2019Alene", State: "ID"},
			providers.Address{Street: "42 O'Brien Ct", City: "Coeur d'Alene", State: "ID"}},
		{"backtick typed for an apostrophe", providers.Address{Street: "42 O`Brien Ct", State: "MA"},
			providers.Address{Street: "42 O'Brien Ct", State: "MA"}},
		{"suffix and directionals as typed", providers.Address{Street: "123 North Main Street West", State: "Illinois", Zip: "62701-1234"},
			providers.Address{Street: "123 North Main Street West", State: "IL", Zip: "62701"}},
		{"hyphens and periods as typed", providers.Address{Street: "2200 I-95 Frontage Rd.", City: "Wilkes-Barre", State: "PA"},
			providers.Address{Street: "2200 I-95 Frontage Rd.", City: "Wilkes-Barre", State: "PA"}},
		{"queens house number", providers.Address{Street: "123-45 67th Ave", City: "Queens", State: "NY"},
			providers.Address{Street: "123-45 67th Ave", City: "Queens", State: "NY"}},
		{"blanks trimmed and collapsed", providers.Address{Street: "  12   Elm\u00a0 St ", City: " St.  Louis ", State: " mo "},
			providers.Address{Street: "12 Elm St", City: "St. Louis", State: "MO"}},
		{"unit cut with its comma", providers.Address{Street: "42 O'Brien Court, Apt. 4", State: "MA"},
			providers.Address{Street: "42 O'Brien Court", State: "MA"}},
		{"pound-sign unit", providers.Address{Street: "500 Elm Avenue #12", State: "VA"},
			providers.Address{Street: "500 Elm Avenue", State: "VA"}},
		{"several units", providers.Address{Street: "400 E St S.W. - Bldg C Apt 4", State: "DC"},
			providers.Address{Street: "400 E St S.W.", State: "DC"}},
		{"designator run into its number", providers.Address{Street: "9 Rue d'Orléans Apt4B", State: "LA"},
			providers.Address{Street: "9 Rue d'Orléans", State: "LA"}},
		{"standalone designator in brackets", providers.Address{Street: "77 Sunset Blvd (Rear)", State: "CA"},
			providers.Address{Street: "77 Sunset Blvd", State: "CA"}},
		{"a street named like a unit stays whole", providers.Address{Street: "123 Lot St", State: "IL"},
			providers.Address{Street: "123 Lot St", State: "IL"}},
		{"unicode as typed", providers.Address{Street: "12 Calle Ñandú Apt 3", City: "Cataño", State: "PR"},
			providers.Address{Street: "12 Calle Ñandú", City: "Cataño", State: "PR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := address.Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%+v): %v", tt.in, err)
			}
			if got := n.Building(); got != tt.want {
				t.Errorf("the geocoder would be sent %+v, want %+v", got, tt.want)
			}
			// The text sent is the same building: it normalizes to the
			// identity's street, with no unit left in it.
			b, err := address.Normalize(n.Building())
			if err != nil || b.Street != n.Street || b.Unit != "" {
				t.Errorf("Building() %+v normalizes to %q unit %q (%v), want %q and no unit", n.Building(), b.Street, b.Unit, err, n.Street)
			}
		})
	}
}

func TestPOBoxRefused(t *testing.T) {
	for _, street := range []string{
		"PO Box 12",
		"P.O. Box 12",
		"p o box 12",
		"P.O.Box 12",
		"POBox 12",
		"PO Box12",
		"Post Office Box 12",
		"POB 12",
		"P.O.B. 12",
		"Box 12",
		"Box #12",
		"Box 12A",
		"PO Box",
		"PO 12",
		"123 Main St PMB 456",
		"PMB 77",
		"123 Main St, P.M.B. 5",
		"General Delivery",
		"PO Box 12 Apt 3",
	} {
		_, err := address.Normalize(st(street))
		var e *providers.Error
		if !errors.As(err, &e) {
			t.Errorf("Normalize(%q) error = %v, want a *providers.Error refusing a PO box", street, err)
			continue
		}
		if e.Kind != providers.KindUnprocessable || e.Code != "not_a_property" {
			t.Errorf("Normalize(%q) = kind %v code %q, want KindUnprocessable %q", street, e.Kind, e.Code, "not_a_property")
		}
		if len(e.Params) != 1 || e.Params[0].Parameter != "street" {
			t.Errorf("Normalize(%q) params = %+v, want one naming street", street, e.Params)
		}
	}
}

func TestNormalizeInvalid(t *testing.T) {
	long := "1 " + strings.Repeat("a", 96) + " St" // 101 characters
	tests := []struct {
		name   string
		in     providers.Address
		params []string // invalid fields, in order
	}{
		{"empty street", providers.Address{Street: "", State: "IL"}, []string{"street"}},
		{"blank street", providers.Address{Street: "   ", State: "IL"}, []string{"street"}},
		{"punctuation-only street", providers.Address{Street: "#-.,", State: "IL"}, []string{"street"}},
		{"emoji-only street", providers.Address{Street: "🏠🏠", State: "IL"}, []string{"street"}},
		{"sql with no letters", providers.Address{Street: "'; --", State: "IL"}, []string{"street"}},
		{"101-character street", providers.Address{Street: long, State: "IL"}, []string{"street"}},
		{"101 multi-byte characters", providers.Address{Street: "1 " + strings.Repeat("é", 99), State: "IL"}, []string{"street"}},
		{"NUL in street", providers.Address{Street: "123 Main\x00 St", State: "IL"}, []string{"street"}},
		{"newline in street", providers.Address{Street: "123 Main St\n", State: "IL"}, []string{"street"}},
		{"tab in street", providers.Address{Street: "123\tMain St", State: "IL"}, []string{"street"}},
		{"C1 control in street", providers.Address{Street: "123 Main\u0085St", State: "IL"}, []string{"street"}},
		{"DEL in street", providers.Address{Street: "123 Main\x7fSt", State: "IL"}, []string{"street"}},
		{"invalid UTF-8 in street", providers.Address{Street: "123 Ma\xffin St", State: "IL"}, []string{"street"}},
		{"missing state", providers.Address{Street: "1 Main St"}, []string{"state"}},
		{"unknown state code", providers.Address{Street: "1 Main St", State: "XX"}, []string{"state"}},
		{"military state code", providers.Address{Street: "1 Main St", State: "AE"}, []string{"state"}},
		{"unknown state name", providers.Address{Street: "1 Main St", State: "Ontario"}, []string{"state"}},
		{"state with digits", providers.Address{Street: "1 Main St", State: "V1A"}, []string{"state"}},
		{"NUL in state", providers.Address{Street: "1 Main St", State: "IL\x00"}, []string{"state"}},
		{"short zip", providers.Address{Street: "1 Main St", State: "IL", Zip: "6270"}, []string{"zip"}},
		{"letters in zip", providers.Address{Street: "1 Main St", State: "IL", Zip: "ABCDE"}, []string{"zip"}},
		{"bad zip plus four", providers.Address{Street: "1 Main St", State: "IL", Zip: "62701-12"}, []string{"zip"}},
		{"unicode digits in zip", providers.Address{Street: "1 Main St", State: "IL", Zip: "６２７０１"}, []string{"zip"}},
		{"invalid UTF-8 in zip", providers.Address{Street: "1 Main St", State: "IL", Zip: "\xff2701"}, []string{"zip"}},
		{"long city", providers.Address{Street: "1 Main St", City: strings.Repeat("x", 101), State: "IL"}, []string{"city"}},
		{"punctuation-only city", providers.Address{Street: "1 Main St", City: "--", State: "IL"}, []string{"city"}},
		{"control in city", providers.Address{Street: "1 Main St", City: "Spring\x1bfield", State: "IL"}, []string{"city"}},
		{"everything wrong", providers.Address{Street: "", City: "\x00", State: "ZZ", Zip: "1"}, []string{"street", "city", "state", "zip"}},
		{"street and zip", providers.Address{Street: "\xfe", State: "IL", Zip: "1234x"}, []string{"street", "zip"}},
		{"invalid field wins over PO box", providers.Address{Street: "PO Box 1", State: "Q"}, []string{"state"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := address.Normalize(tt.in)
			var e *providers.Error
			if !errors.As(err, &e) {
				t.Fatalf("Normalize(%+v) = %+v, %v; want an invalid_parameter error", tt.in, n, err)
			}
			if e.Kind != providers.KindInvalid || e.Code != "invalid_parameter" {
				t.Errorf("error kind %v code %q, want KindInvalid invalid_parameter", e.Kind, e.Code)
			}
			var got []string
			for _, p := range e.Params {
				got = append(got, p.Parameter)
				if p.Message == "" {
					t.Errorf("param %s has no message for the client", p.Parameter)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.params, ",") {
				t.Errorf("invalid params = %v, want %v (client would not learn which fields to fix)", got, tt.params)
			}
			for _, p := range tt.params {
				if !strings.Contains(e.Message, p) {
					t.Errorf("message %q does not name %s", e.Message, p)
				}
			}
			if n != (address.Normalized{}) {
				t.Errorf("Normalize returned %+v with an error, want the zero value", n)
			}
		})
	}
}

func TestNormalizeErrorMessages(t *testing.T) {
	tests := []struct {
		in   providers.Address
		want string
	}{
		{providers.Address{State: "IL"}, "invalid parameter street: is required"},
		{providers.Address{Street: "1 " + strings.Repeat("b", 99), State: "IL"}, "invalid parameter street: must be at most 100 characters"},
		{providers.Address{Street: "1\x00", State: "IL"}, "invalid parameter street: must not contain control characters"},
		{providers.Address{Street: "1\xff", State: "IL"}, "invalid parameter street: must be valid UTF-8"},
		{providers.Address{Street: "!!", State: "IL"}, "invalid parameter street: must contain a letter or digit"},
		{providers.Address{Street: "1 Main", State: "IL", Zip: "1"}, "invalid parameter zip: must be 5 digits or ZIP+4 (12345-6789)"},
		{providers.Address{Street: "1 Main"}, "invalid parameter state: is required"},
		{providers.Address{Street: "", State: "", Zip: "x"},
			"invalid parameters: street: is required; state: is required; zip: must be 5 digits or ZIP+4 (12345-6789)"},
	}
	for _, tt := range tests {
		_, err := address.Normalize(tt.in)
		if e := providers.As(err); e == nil || e.Message != tt.want {
			t.Errorf("Normalize(%+v) message = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestParseUnit(t *testing.T) {
	tests := []struct{ in, building, unit string }{
		{"123 North Main Street, Apartment #4-b", "123 N MAIN ST", "APT 4B"},
		{"123 Main St", "123 MAIN ST", ""},
		{"10 Pine St Bldg 2 Fl 3 Rm 301", "10 PINE ST", "BLDG 2 FL 3 RM 301"},
		{"PO Box 12", "PO BOX 12", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		b, u := address.ParseUnit(tt.in)
		if b != tt.building || u != tt.unit {
			t.Errorf("ParseUnit(%q) = %q, %q; want %q, %q", tt.in, b, u, tt.building, tt.unit)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502", "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502"},
		{"1600 Pennsylvania Ave NW, WASHINGTON, DC, 20037", "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20037"},
		{"1600 Pennsylvania Avenue North West, Washington, District of Columbia, 20502-0001", "1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502"},
		{"3 GRAMERCY PARK W, NEW YORK, NY, 10003", "3 GRAMERCY PARK W, NEW YORK, NY, 10003"},
		{"222 NW 14TH ST, CORVALLIS, OR, 97330", "222 NW 14TH ST, CORVALLIS, OR, 97330"},
		{" 2525  buckelew drive ,falls church,va,22046 ", "2525 BUCKELEW DR, FALLS CHURCH, VA, 22046"},
		{"79 WISTFUL VISTA, WISTFUL VISTA, IL, ", "79 WISTFUL VIS, WISTFUL VISTA, IL, "},
		{"4600 SILVER HILL RD", "4600 SILVER HILL RD"},
		{"4600 SILVER HILL RD, SUITLAND, MD, 20746, USA", "4600 SILVER HILL RD, SUITLAND, MD, 20746, USA"},
		{"", ""},
	}
	for _, tt := range tests {
		got := address.Canonical(tt.in)
		if got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := address.Canonical(got); again != got {
			t.Errorf("Canonical is not idempotent: %q then %q", got, again)
		}
	}
}

// TestCanonicalMatchesNormalizedStreet checks that a geocoder echoing back
// the street a client typed yields the same street the client's lookup key
// holds, so the two forms of one building compare equal.
func TestCanonicalMatchesNormalizedStreet(t *testing.T) {
	for _, street := range []string{"123 North Main Street", "1600 Pennsylvania Avenue Northwest", "350 Fifth Ave", "2200 Highway 50"} {
		n, err := address.Normalize(st(street))
		if err != nil {
			t.Fatal(err)
		}
		c := address.Canonical(street + ", Springfield, IL, 62701")
		if want := n.Street + ", SPRINGFIELD, IL, 62701"; c != want {
			t.Errorf("Canonical(%q) = %q, want %q", street, c, want)
		}
	}
}

func TestStateHelpers(t *testing.T) {
	for _, code := range []string{"VA", "va", "DC", "PR", "GU", "VI", "AS", "MP", "WY"} {
		if !address.IsState(code) {
			t.Errorf("IsState(%q) = false, want true", code)
		}
	}
	for _, code := range []string{"", "V", "VAA", "XX", "AA", "AE", "AP", "FM", "MH", "PW", "V.", "Ｖ"} {
		if address.IsState(code) {
			t.Errorf("IsState(%q) = true, want false", code)
		}
	}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Virginia", "VA", true},
		{"  virginia ", "VA", true},
		{"West Virginia", "WV", true},
		{"District of Columbia", "DC", true},
		{"Washington, D.C.", "DC", true},
		{"n.c.", "NC", true},
		{"Virgin Islands", "VI", true},
		{"Northern Mariana Islands", "MP", true},
		{"Virginia1", "", false},
		{"Virgínia", "", false},
		{strings.Repeat("a", 65), "", false},
	}
	for _, tt := range tests {
		got, ok := address.StateCode(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("StateCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestZipCodeAndCity(t *testing.T) {
	zips := []struct {
		in, want string
		ok       bool
	}{
		{"62701", "62701", true},
		{"62701-1234", "62701", true},
		{"627011234", "62701", true},
		{"6270", "", false},
		{"62701-", "", false},
		{"62701 1234", "", false},
		{"627O1", "", false},
	}
	for _, tt := range zips {
		got, ok := address.ZipCode(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ZipCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if got := address.City(" st.  louis "); got != "ST LOUIS" {
		t.Errorf("City(%q) = %q, want %q", " st.  louis ", got, "ST LOUIS")
	}
}

// TestStateFIPSCoversEveryState: every place a lookup accepts has the FIPS
// code its GEOIDs start with, so a load by state can name any of them.
func TestStateFIPSCoversEveryState(t *testing.T) {
	for _, c := range []struct{ code, fips string }{{"CA", "06"}, {"tx", "48"}, {"DC", "11"}, {"PR", "72"}, {"WY", "56"}} {
		if got, ok := address.StateFIPS(c.code); !ok || got != c.fips {
			t.Errorf("StateFIPS(%q) = %q, %v; want %q", c.code, got, ok, c.fips)
		}
	}
	for _, bad := range []string{"", "XX", "C", "CAL", "California", "C'", "06"} {
		if got, ok := address.StateFIPS(bad); ok {
			t.Errorf("StateFIPS(%q) = %q; want no state", bad, got)
		}
	}
	states := address.States()
	if len(states) != 56 {
		t.Errorf("States() lists %d places, want 56 (50 states, DC, 5 territories)", len(states))
	}
	for _, s := range states {
		fips, ok := address.StateFIPS(s)
		if !ok {
			t.Errorf("States() lists %q, which has no FIPS code", s)
		}
		if back, ok := address.StateOfFIPS(fips); !ok || back != s {
			t.Errorf("StateOfFIPS(%q) = %q, %v; want %q back", fips, back, ok, s)
		}
	}
	for _, bad := range []string{"", "1", "011", "03", "DC", "99"} {
		if got, ok := address.StateOfFIPS(bad); ok {
			t.Errorf("StateOfFIPS(%q) = %q; want no state", bad, got)
		}
	}
}
