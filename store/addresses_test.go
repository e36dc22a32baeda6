package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
)

// A lookup seeks an index in each table it reads: a point by state,
// street and unit, a number's ranges by state, name and each span, then
// a short run of starts (migration 0024), in the tables of each
// generation published (0025) and in the rows of 0024 an upgraded
// database keeps, never scanning a table; the generation, a constant of each generation's arm of the
// views, is tested once an arm. A drop's statements of 0024's rows each
// read their range of ids through the key.
func TestAddressLookupsSeekTheirIndexes(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	// Rows 0024 published, as an upgraded database keeps them: their
	// tables are an arm of the views while they hold any.
	for _, q := range []string{
		`INSERT INTO address_points_0024 (generation, state, street, unit, city, zip, lat, lng, key) VALUES (9, 'DC', '1 A ST', '', '', '', 0, 0, '')`,
		`INSERT INTO address_ranges_0024 (generation, state, name, span, lo, hi, descending, parity, side, zip, key, line)
			VALUES (9, 'DC', 'A ST', 0, 1, 9, 0, 'O', 'L', '', '', x'00')`,
	} {
		if _, err := db.writer.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var gens []int64
	for _, name := range []string{"oa", "nad"} {
		load, _, err := db.BeginDataset(ctx, providers.KindAddresses, name, "fp")
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, load.Generation)
		if err := db.StageAddresses(ctx, &load, providers.Checkpoint{Done: 1}, []providers.AddressPoint{{Street: "1 A ST", State: "DC"}},
			[]providers.AddressRange{{Name: "A ST", State: "DC", From: 1, To: 9, Parity: 'O', Side: 'L', Line: []providers.Point{{}, {Lat: 1}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PublishDataset(ctx, load, providers.Dataset{}); err != nil {
			t.Fatal(err)
		}
	}
	// A reader plans on the schema it last read: read it anew first.
	if err := db.readers.QueryRow("SELECT COUNT(*) FROM address_points").Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	list := fmt.Sprintf("[%d,%d]", gens[0], gens[1])
	s := addrStatements.Planned()
	for _, c := range []struct {
		name string
		args []any
		want []string
		n    int // seeks of each table of a generation
	}{
		{"pointsAt", []any{"DC", "1 A ST", "", list},
			[]string{"SEARCH address_points_0024 USING INDEX address_points_street (state=? AND street=? AND unit=? AND generation=?)",
				"SEARCH address_points_g%d USING INDEX address_points_g%d_street (street=? AND state=? AND unit=?)"}, 1},
		{"rangesOn", []any{"DC", "A ST", list, 1, 1, 1, 1, 100},
			[]string{"SEARCH address_ranges_0024 USING INDEX address_ranges_street (state=? AND name=? AND span=? AND lo>? AND lo<?)",
				"SEARCH address_ranges_0024 USING INDEX address_ranges_street (state=? AND name=? AND span=? AND lo<?)",
				"SEARCH address_ranges_g%d USING INDEX address_ranges_g%d_street (name=? AND state=? AND span=? AND lo>? AND lo<?)",
				"SEARCH address_ranges_g%d USING INDEX address_ranges_g%d_street (name=? AND state=? AND span=? AND lo<?)"}, 5},
		{"drop address_points_0024", []any{1, 5000, 1}, []string{"SEARCH address_points_0024 USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}, 0},
		{"drop address_ranges_0024", []any{1, 5000, 1}, []string{"SEARCH address_ranges_0024 USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}, 0},
	} {
		plan := strings.Join(queryPlan(t, db, s[c.name], c.args...), " | ")
		for _, w := range c.want {
			for _, g := range gens {
				if w := strings.ReplaceAll(w, "%d", fmt.Sprint(g)); !strings.Contains(plan, w) {
					t.Errorf("%s plan %q does not %q", c.name, plan, w)
				}
			}
		}
		for _, g := range gens {
			if c.n > 0 && strings.Count(plan, fmt.Sprintf("_g%d_street", g)) != c.n {
				t.Errorf("%s plan %q does not seek the index of generation %d %d times", c.name, plan, g, c.n)
			}
		}
		t.Logf("%s: %s", c.name, plan)
		if strings.Contains(plan, "SCAN address_") {
			t.Errorf("%s plan %q reads a table whole", c.name, plan)
		}
	}
}

// A batch of a superseded load leaves no row and no table of its
// generation: its checkpoint, the transaction's first statement, fails,
// and the transaction is rolled back (readers never see a load's rows
// before its publication, so the behaviour table cannot tell).
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
	var n int
	if err := db.readers.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name GLOB 'address_*_g[0-9]*'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d tables of a generation (%v) after a superseded batch, want none", n, err)
	}
}

// A database that holds no row of 0024 reads the tables of its
// generations alone: each arm of the views costs every lookup's
// preparation and a seek.
func TestAFreshDatabaseLooksUpInTheGenerationsAlone(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	load, _, err := db.BeginDataset(ctx, providers.KindAddresses, "oa", "fp")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StageAddresses(ctx, &load, providers.Checkpoint{Done: 1}, []providers.AddressPoint{{Street: "1 A ST", State: "DC"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishDataset(ctx, load, providers.Dataset{}); err != nil {
		t.Fatal(err)
	}
	if err := db.readers.QueryRow("SELECT COUNT(*) FROM address_points").Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(queryPlan(t, db, addrStatements.Planned()["pointsAt"], "DC", "1 A ST", "", fmt.Sprintf("[%d]", load.Generation)), " | ")
	if strings.Contains(plan, "_0024") || !strings.Contains(plan, fmt.Sprintf("SEARCH address_points_g%d USING INDEX", load.Generation)) {
		t.Errorf("pointsAt plan %q does not read generation %d's table alone", plan, load.Generation)
	}
}
