package address_test

import (
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// A line and the same address in fields are one key: one record,
// whichever form a client uses.
func TestNormalizeLineIsTheKeyOfTheFields(t *testing.T) {
	tests := []struct {
		line   string
		fields providers.Address
	}{
		{"350 5th Ave, New York, NY 10118", providers.Address{Street: "350 5th Ave", City: "New York", State: "NY", Zip: "10118"}},
		{"350 Fifth Avenue, New York, New York, 10118-0110", providers.Address{Street: "350 5th Ave", City: "New York", State: "NY", Zip: "10118"}},
		{"350 5th Ave, New York NY 10118", providers.Address{Street: "350 5th Ave", City: "New York", State: "NY", Zip: "10118"}},
		{"  350  5th   Ave ,  New York ,  NY  ", providers.Address{Street: "350 5th Ave", City: "New York", State: "NY"}},
		{"4600 Silver Hill Rd, Washington, DC 20233", providers.Address{Street: "4600 Silver Hill Rd", City: "Washington", State: "DC", Zip: "20233"}},
		{"2525 buckelew dr falls church va 22046", providers.Address{Street: "2525 Buckelew Dr", City: "Falls Church", State: "VA", Zip: "22046"}},
		{"1600 Pennsylvania Ave NW Washington DC 20500", providers.Address{Street: "1600 Pennsylvania Ave NW", City: "Washington", State: "DC", Zip: "20500"}},
		{"1600 Pennsylvania Avenue NW, Washington, District of Columbia", providers.Address{Street: "1600 Pennsylvania Ave NW", City: "Washington", State: "DC"}},
		{"100 Main St, Charleston, West Virginia 25301", providers.Address{Street: "100 Main St", City: "Charleston", State: "WV", Zip: "25301"}},
		{"350 5th Ave, Apt 4, New York, NY 10118", providers.Address{Street: "350 5th Ave", Unit: "Apt 4", City: "New York", State: "NY", Zip: "10118"}},
		{"350 5th Ave Apt 4, New York, NY 10118", providers.Address{Street: "350 5th Ave Apt 4", City: "New York", State: "NY", Zip: "10118"}},
		{"7 Calle Ñandú, San Juan, PR 00901", providers.Address{Street: "7 Calle Ñandú", City: "San Juan", State: "PR", Zip: "00901"}},
		{"12 Elm St, TX", providers.Address{Street: "12 Elm St", State: "TX"}},
		{"1600 Pennsylvania Ave NW, Washington DC 20500", providers.Address{Street: "1600 Pennsylvania Ave NW", City: "Washington", State: "DC", Zip: "20500"}},
		{"350 5th Ave, New York", providers.Address{Street: "350 5th Ave", State: "NY"}},
		{"12 Main St N Springfield IL", providers.Address{Street: "12 Main St N", City: "Springfield", State: "IL"}},
	}
	for _, tt := range tests {
		n, err := address.NormalizeLine(tt.line)
		if err != nil {
			t.Errorf("NormalizeLine(%q): %v", tt.line, err)
			continue
		}
		want, err := address.Normalize(tt.fields)
		if err != nil {
			t.Fatal(err)
		}
		if n.Key() != want.Key() {
			t.Errorf("NormalizeLine(%q) key %q, want the fields' %q", tt.line, n.Key(), want.Key())
		}
		if b := n.Building(); b.Line != strings.Join(strings.Fields(tt.line), " ") || b.Street != "" {
			t.Errorf("NormalizeLine(%q) sends %+v, want the line as written", tt.line, b)
		}
	}
}

func TestNormalizeLineRefusesWhatIsNoAddress(t *testing.T) {
	tests := []struct {
		line, code, msg string
	}{
		{"", "invalid_parameter", "must not be empty"},
		{"   ,  , ", "invalid_parameter", "must contain a letter or digit"},
		{"350 5th Ave, Springfield", "invalid_parameter", "must name the state"},
		{"10118", "invalid_parameter", "must hold a street and a state"},
		{"NY 10118", "invalid_parameter", "the street is required"},
		{"350 5th Ave\n, New York, NY", "invalid_parameter", "control characters"},
		{"350 5th Ave, New York, NY \xff", "invalid_parameter", "UTF-8"},
		{strings.Repeat("9 Elm St ", 30) + ", NY", "invalid_parameter", "at most 200 characters"},
		{"PO Box 12, New York, NY 10118", "not_a_property", "post office box"},
		{"!!!, ??, NY", "invalid_parameter", "the street must contain a letter or digit"},
	}
	for _, tt := range tests {
		_, err := address.NormalizeLine(tt.line)
		pe := providers.As(err)
		if err == nil || pe.Code != tt.code || len(pe.Params) == 0 || pe.Params[0].Parameter != "q" ||
			!strings.Contains(pe.Message+pe.Params[0].Message, tt.msg) {
			t.Errorf("NormalizeLine(%q) = %v (params %+v), want %s naming q: %q", tt.line, err, pe, tt.code, tt.msg)
		}
	}
}

func TestNormalizeAnyRefusesBothForms(t *testing.T) {
	_, err := address.NormalizeAny(providers.Address{Line: "350 5th Ave, New York, NY", Street: "350 5th Ave", State: "NY"})
	pe := providers.As(err)
	if err == nil || pe.Code != "invalid_parameter" || len(pe.Params) != 3 || pe.Params[0].Parameter != "q" ||
		pe.Params[1].Parameter != "street" || pe.Params[2].Parameter != "state" {
		t.Fatalf("NormalizeAny(line and fields) = %v %+v, want invalid_parameter naming q, street and state", err, pe)
	}
}

// TestOneFormIsTheOneRefusalOfBothForms: the gateway refuses q beside a
// field with address.OneForm before any lookup; a caller of the service
// that skips it (the batch service, an import) is refused by NormalizeAny
// in the same words.
func TestOneFormIsTheOneRefusalOfBothForms(t *testing.T) {
	a := providers.Address{Line: "350 5th Ave, New York, NY", Street: "350 5th Ave", State: "NY"}
	_, viaService := address.NormalizeAny(a)
	direct := address.OneForm(a.Line, a)
	if viaService == nil || direct == nil || viaService.Error() != direct.Error() {
		t.Fatalf("NormalizeAny: %v\nOneForm: %v\nwant one error in the same words", viaService, direct)
	}
	for _, q := range []string{"", "   ", "\t"} {
		pe := providers.As(address.OneForm(q, providers.Address{}))
		if pe.Code != "invalid_parameter" || len(pe.Params) != 1 || pe.Params[0].Parameter != "q" || pe.Params[0].Message != "must not be empty" {
			t.Errorf("OneForm(%q) = %+v, want q: must not be empty", q, pe)
		}
	}
	if err := address.OneForm("350 5th Ave, New York, NY", providers.Address{}); err != nil {
		t.Errorf("OneForm of a line alone: %v", err)
	}
}

// FuzzNormalizeLine: any line is an address or an error naming q, never a
// panic, and an address read from a line is written with the key of its
// parts.
func FuzzNormalizeLine(f *testing.F) {
	for _, s := range []string{"350 5th Ave, New York, NY 10118", "2525 buckelew dr falls church va 22046", ",,,",
		"NY", "10118", "1 A St, , , DC", "PO Box 1, DC", "1 Main St N Springfield IL 62701-1234", "x, Washington DC"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		n, err := address.NormalizeLine(line)
		if err != nil {
			if pe := providers.As(err); len(pe.Params) == 0 || pe.Params[0].Parameter != "q" {
				t.Fatalf("NormalizeLine(%q) = %v, an error that does not name q", line, err)
			}
			return
		}
		again, err := address.Normalize(providers.Address{Street: n.Street, Unit: n.Unit, City: n.City, State: n.State, Zip: n.Zip})
		if err != nil && n.Unit == "" {
			t.Fatalf("NormalizeLine(%q) = %+v, whose parts Normalize refuses: %v", line, n, err)
		}
		if err == nil && n.Unit == "" && again.Key() != n.Key() {
			t.Fatalf("NormalizeLine(%q) key %q, its parts' key %q", line, n.Key(), again.Key())
		}
	})
}
