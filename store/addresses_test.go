package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
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
		{"drop address_points", []any{1, 5000, 1}, []string{"SEARCH address_points USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"drop address_ranges", []any{1, 5000, 1}, []string{"SEARCH address_ranges USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"drop address_points_staged", []any{1, 5000, 1}, []string{"SEARCH address_points_staged USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"drop address_ranges_staged", []any{1, 5000, 1}, []string{"SEARCH address_ranges_staged USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
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

// A batch of a superseded load leaves no row staged: its checkpoint, the
// transaction's first statement, fails, and the transaction is rolled
// back (readers never see staged rows, so the behaviour table cannot tell).
func TestASupersededBatchStagesNothing(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	first, _, err := db.BeginDataset(ctx, providers.KindAddresses, "oa", "fp1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.BeginDataset(ctx, providers.KindAddresses, "oa", "fp2"); err != nil {
		t.Fatal(err)
	}
	err = db.StageAddresses(ctx, &first, providers.Checkpoint{Done: 1},
		[]providers.AddressPoint{{Street: "1 A ST", State: "DC"}},
		[]providers.AddressRange{{Name: "A ST", State: "DC", From: 1, To: 9, Parity: 'O', Side: 'L', Line: []providers.Point{{}, {Lat: 1}}}})
	if !errors.Is(err, loadsql.ErrSuperseded) {
		t.Fatalf("StageAddresses of a superseded load: %v, want superseded", err)
	}
	for _, table := range []string{"address_points_staged", "address_ranges_staged"} {
		var n int
		if err := db.readers.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s holds %d rows (%v) after a superseded batch, want none", table, n, err)
		}
	}
}
