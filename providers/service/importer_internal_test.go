package service

import (
	"strings"
	"testing"
)

func TestImportUnitColumn(t *testing.T) {
	cases := []struct {
		street, unit, wantUnit, wantErr string
	}{
		{"12 Elm St", "", "", ""},
		{"12 Elm St", "Apt 4B", "APT 4B", ""},
		{"12 Elm St", "4b", "# 4B", ""},
		{"12 Elm St", "#4B", "# 4B", ""},
		{"12 Elm St Apt 4B", "apartment 4b", "APT 4B", ""},
		{"12 Elm St Apt 4B", "Apt 5", "", "unit: is APT 5 but the street names APT 4B"},
		{"12 Elm St", "#", "", "unit: is not a secondary unit"},
	}
	h, _ := ParseImportHeader([]string{"street", "unit", "state"})
	for _, c := range cases {
		row := h.parseRow([]string{c.street, c.unit, "IL"})
		if c.wantErr != "" {
			if !strings.Contains(row.reason, c.wantErr) {
				t.Errorf("%q + unit %q: reason %q, want %q", c.street, c.unit, row.reason, c.wantErr)
			}
			continue
		}
		if row.reason != "" || row.n.Unit != c.wantUnit || row.n.Street != "12 ELM ST" {
			t.Errorf("%q + unit %q = %q %q (%s), want unit %q", c.street, c.unit, row.n.Street, row.n.Unit, row.reason, c.wantUnit)
		}
	}
}

func TestImportAttributes(t *testing.T) {
	h, _ := ParseImportHeader([]string{"street", "state", "bedrooms", "property_type", "reason"})
	cases := []struct {
		bedrooms, ptype string
		wantBeds        int // -1: unchanged
		wantType        string
		wantErr         string
	}{
		{"", "", -1, "", ""},
		{"0", "Single Family", 0, "single_family", ""},
		{" 100 ", "multi-family", 100, "multi_family", ""},
		{"101", "", 0, "", "bedrooms: must be a whole number from 0 to 100"},
		{"-1", "", 0, "", "bedrooms"},
		{"2.5", "", 0, "", "bedrooms"},
		{"2", "castle", 0, "", "property_type: must be one of single_family, multi_family, condo"},
	}
	for _, c := range cases {
		row := h.parseRow([]string{"12 Elm St", "IL", c.bedrooms, c.ptype, "a reason from an earlier run"})
		if c.wantErr != "" {
			if !strings.Contains(row.reason, c.wantErr) {
				t.Errorf("bedrooms %q type %q: reason %q, want %q", c.bedrooms, c.ptype, row.reason, c.wantErr)
			}
			continue
		}
		gotBeds, gotType := -1, ""
		if row.facts.Bedrooms != nil {
			gotBeds = *row.facts.Bedrooms
		}
		if row.facts.PropertyType != nil {
			gotType = *row.facts.PropertyType
		}
		if row.reason != "" || gotBeds != c.wantBeds || gotType != c.wantType {
			t.Errorf("bedrooms %q type %q = %d %q (%s), want %d %q", c.bedrooms, c.ptype, gotBeds, gotType, row.reason, c.wantBeds, c.wantType)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
