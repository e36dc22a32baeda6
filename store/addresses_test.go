package store

import (
	"strings"
	"testing"
)

// A lookup seeks its index: a point by state, street, unit and each
// generation asked; a number's ranges by state, name and each span, then
// a short run of starts (migration 0024). A drop's
// statements each read their range of ids through the key.
func TestAddressLookupsSeekTheirIndexes(t *testing.T) {
	db := openInternal(t)
	s := addrStatements.Planned()
	for _, c := range []struct {
		name string
		args []any
		want []string
	}{
		{"pointsAt", []any{"DC", "1 A ST", "", "[1,2]"},
			[]string{"SEARCH address_points USING INDEX address_points_street (state=? AND street=? AND unit=? AND generation=?)"}},
		{"rangesOn", []any{"DC", "A ST", "[1,2]", 1, 1, 1, 1, 100},
			[]string{"SEARCH address_ranges USING INDEX address_ranges_street (state=? AND name=? AND span=? AND lo>? AND lo<?)",
				"SEARCH address_ranges USING INDEX address_ranges_street (state=? AND name=? AND span=? AND lo<?)"}},
		{"dropPoints", []any{1, 5000, 1}, []string{"SEARCH address_points USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"dropRanges", []any{1, 5000, 1}, []string{"SEARCH address_ranges USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
	} {
		plan := strings.Join(queryPlan(t, db, s[c.name], c.args...), " | ")
		for _, w := range c.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s plan %q does not %q", c.name, plan, w)
			}
		}
		if c.name == "rangesOn" && strings.Count(plan, "USING INDEX address_ranges_street") != 5 {
			t.Errorf("rangesOn plan %q does not seek the index once a span", plan)
		}
		if strings.Contains(plan, "SCAN address_") {
			t.Errorf("%s plan %q reads a table whole", c.name, plan)
		}
	}
}
