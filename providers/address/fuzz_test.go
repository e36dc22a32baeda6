package address_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// FuzzNormalize checks the properties the store relies on: Normalize never
// panics, a normalized address normalizes to itself (so a key computed from
// a stored record equals the key of the spelling that created it), and keys
// hold no control characters or stray separators.
func FuzzNormalize(f *testing.F) {
	for _, s := range [][4]string{
		{"123 north main street", "Springfield", "IL", "62701"},
		{"123 N. Main St. Apt #4-b", "springfield", "illinois", "62701-1234"},
		{"1600 Pennsylvania Ave N.W.", "Washington", "DC", "20502"},
		{"100 Avenue of the Americas", "New York", "NY", ""},
		{"123 North St West", "", "VA", ""},
		{"400 E St S W Bldg C Apt 4", "", "DC", ""},
		{"9 North West Fifth Street Rear", "", "OR", ""},
		{"123-45 67th Ave #12", "Queens", "NY", "11375"},
		{"123 1/2 Main St Unit 12-3", "", "CA", ""},
		{"2200 Highway 50 Lot 7", "", "NV", ""},
		{"PO Box 12", "", "IL", ""},
		{"Box Elder St", "", "UT", ""},
		{"12 Calle Ñandú", "Cataño", "PR", "00962"},
		{"'; DROP TABLE properties; --", "x", "IL", ""},
		{"123 Main\x00St", "\xff", "ZZ", "1"},
		{"# #12 - / '", "", "", ""},
		{"N W", "", "IL", ""},
		{"5-APT 3 Unit-4", "", "IL", ""},
		{"12 O'Brien St 🏠", "Coeur d'Alene", "ID", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, street, city, state, zip string) {
		n, err := address.Normalize(providers.Address{Street: street, City: city, State: state, Zip: zip})
		if err != nil {
			if e := providers.As(err); e.Kind != providers.KindInvalid && e.Kind != providers.KindUnprocessable {
				t.Fatalf("Normalize error of kind %v: %v", e.Kind, err)
			}
			return
		}
		key := n.Key()
		if !utf8.ValidString(key) {
			t.Fatalf("key %q is not valid UTF-8", key)
		}
		for _, r := range key {
			if unicode.IsControl(r) {
				t.Fatalf("key %q holds control character %U", key, r)
			}
		}
		if strings.Count(key, "|") != 4 {
			t.Fatalf("key %q does not have exactly five parts", key)
		}
		if n.Street == "" || n.State == "" {
			t.Fatalf("Normalize(%q, %q) = %+v: empty street or state without error", street, state, n)
		}

		// The normalized street line (building and unit) parses back to itself.
		line := n.Street
		if n.Unit != "" {
			line += " " + n.Unit
		}
		if b, u := address.ParseUnit(line); b != n.Street || u != n.Unit {
			t.Fatalf("ParseUnit(%q) = %q, %q; want %q, %q (from %q)", line, b, u, n.Street, n.Unit, street)
		}
		if b, u := address.ParseUnit(n.Street); b != n.Street || u != "" {
			t.Fatalf("ParseUnit(%q) = %q, %q; want the building unchanged and no unit (from %q)", n.Street, b, u, street)
		}

		// Normalizing the normalized address gives the same key. A pound-sign
		// unit grows by a space ("#1" is "# 1"), so a line at the length
		// limit is checked through ParseUnit above only.
		if utf8.RuneCountInString(line) <= address.MaxLen {
			again, err := address.Normalize(providers.Address{Street: line, City: n.City, State: n.State, Zip: n.Zip})
			if err != nil {
				t.Fatalf("normalizing %+v again: %v (from %q)", n, err, street)
			}
			if again.Key() != key {
				t.Fatalf("not idempotent: %q gives key %q, then %q (from %q)", line, key, again.Key(), street)
			}
		}

		checkWritten(t, street, n)

		// The street doubles as a geocoder match: Canonical is idempotent and
		// agrees with the building street.
		c := address.Canonical(n.Street + ", " + n.City + ", " + n.State + ", " + n.Zip)
		if address.Canonical(c) != c {
			t.Fatalf("Canonical not idempotent: %q then %q", c, address.Canonical(c))
		}
		if !strings.HasPrefix(c, n.Street+", ") {
			t.Fatalf("Canonical(%q) = %q, want it to start with the building street", n.Street, c)
		}
	})
}

// FuzzCanonical checks that Canonical never panics and is idempotent on any
// input, since it runs on whatever a geocoder answers.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"1600 PENNSYLVANIA AVE NW, WASHINGTON, DC, 20502",
		"79 WISTFUL VISTA, WISTFUL VISTA, IL, ",
		"a,,,,,b",
		"1 Main St, x, V.A., 12345-6789!, ",
		"\xff\x00,\x01",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := address.Canonical(s)
		if again := address.Canonical(c); again != c {
			t.Fatalf("Canonical(%q) = %q, then %q", s, c, again)
		}
	})
}

func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct {
		name string
		a    providers.Address
	}{
		{"typed", providers.Address{Street: "123 north main street, apt. #4-b", City: "Springfield", State: "Illinois", Zip: "62701-1234"}},
		{"standard", providers.Address{Street: "123 N MAIN ST APT 4B", City: "SPRINGFIELD", State: "IL", Zip: "62701"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := address.Normalize(bc.a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkKey(b *testing.B) {
	n, err := address.Normalize(providers.Address{Street: "123 North Main Street Apt 4B", City: "Springfield", State: "IL", Zip: "62701"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = n.Key()
	}
}

// TestIdempotentOnWordSoup checks idempotency on many random lines built
// from the words the rules react to (directionals, suffixes, designators,
// ordinals, PO-box words, numbers) and the punctuation between them, which
// byte-level fuzzing rarely assembles.
func TestIdempotentOnWordSoup(t *testing.T) {
	soupRounds := 200000
	if testing.Short() {
		soupRounds = 10000
	}
	words := strings.Fields(`N North S south E W west NE Northwest SW
		St Street Ave Avenue Park Rd Highway Hwy Route Key Trailer Trlr
		Apt Apartment Unit Ste Suite Bldg Fl Floor Lot Space Rear PH Front Side Lower
		First Fifth 5th 1st PO P O Box Post Office POB PMB
		Office Ofc Lobby Upper Bsmt Fl Rm Dept Slip Spc Bldg Unit3 Apt4B
		Main Oak Of The Americas A B C X 1 12 123 4B 0 1/2 12-3 4-B O'Brien`)
	seps := []string{" ", " ", " ", "-", "/", ".", ", ", "#", " # ", "'", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < soupRounds; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(8); n > 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		street := b.String()
		n, err := address.Normalize(providers.Address{Street: street, State: "IL"})
		if err != nil {
			continue
		}
		line := strings.TrimSpace(n.Street + " " + n.Unit)
		again, err := address.Normalize(providers.Address{Street: line, State: "IL"})
		if err != nil || identity(again) != identity(n) {
			t.Fatalf("%q normalizes to %+v, then %q to %+v (%v)", street, n, line, again, err)
		}
		checkWritten(t, street, n)
		if b, u := address.ParseUnit(n.Street); b != n.Street || u != "" {
			t.Fatalf("%q: ParseUnit(%q) = %q, %q", street, n.Street, b, u)
		}
	}
}

// identity is n without what the client wrote: the parts two spellings of
// one address share.
func identity(n address.Normalized) address.Normalized {
	n.Written = providers.Address{}
	return n
}

// checkWritten checks what the geocoder is sent for the street line typed:
// the same building (it normalizes to n.Street with no unit left in it), as
// a trimmed line of single spaces.
func checkWritten(t *testing.T, typed string, n address.Normalized) {
	t.Helper()
	w := n.Building()
	if w.Street == "" || w.Street != strings.Join(strings.Fields(w.Street), " ") {
		t.Fatalf("%q: the geocoder would be sent %q, want a trimmed line of single spaces", typed, w.Street)
	}
	b, err := address.Normalize(w)
	if err != nil || b.Street != n.Street || b.Unit != "" {
		t.Fatalf("%q: the geocoder would be sent %q, which normalizes to %q unit %q (%v); want %q and no unit",
			typed, w.Street, b.Street, b.Unit, err, n.Street)
	}
}
