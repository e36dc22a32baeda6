package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// A lookup seeks the index of each generation it names by the columns it
// names (the generations, one array, prune the partitions), a number's
// ranges by span and a short run of starts, in the tables of two
// generations just loaded, before the statistics know them and after
// (migrations 0024 and 0025); a generation not named is not read.
func TestAddressPlansGoThroughTheirIndexes(t *testing.T) {
	db := openOneConn(t)
	ctx := context.Background()
	var gens []int64
	for _, name := range []string{"oa", "nad"} {
		load, _, err := db.BeginDataset(ctx, providers.KindAddresses, name, "fp")
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, load.Generation)
		var ps []providers.AddressPoint
		var rs []providers.AddressRange
		for s := range 50 {
			for n := range 100 {
				ps = append(ps, providers.AddressPoint{Street: fmt.Sprintf("%d STREET %d", n, s), State: "DC", Key: "k"})
				rs = append(rs, providers.AddressRange{Name: fmt.Sprintf("STREET %d", s), State: "DC", From: int64(n * 100),
					To: int64(n*100 + 98), Parity: 'E', Side: 'L', Line: []providers.Point{{}, {Lat: 1, Lng: 1}}})
			}
		}
		if err := db.StageAddresses(ctx, &load, providers.Checkpoint{Done: 1}, ps, rs); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PublishDataset(ctx, load, providers.Dataset{}); err != nil {
			t.Fatal(err)
		}
	}
	s := addrStatements.Planned()
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			if _, err := db.pool.Exec(ctx, "ANALYZE address_points, address_ranges"); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			name string
			args []any
			want string
			n    int
		}{
			{"pointsAt", []any{"DC", "5 STREET 7", "", gens},
				"Index Cond: ((state = 'DC'::text) AND (street = '5 STREET 7'::text) AND (unit = ''::text)", 2},
			{"rangesOn", []any{"DC", "STREET 7", gens, int64(402), int64(0), int64(0), int64(0), int64(500)},
				"Index Cond: ((state = 'DC'::text) AND (name = 'STREET 7'::text) AND (span = ", 10},
			{"pointsAt", []any{"DC", "5 STREET 7", "", gens[1:]},
				"Index Scan using address_points_g" + fmt.Sprint(gens[1]) + "_street", 1},
			{"rangesOn", []any{"DC", "STREET 7", gens[1:], int64(402), int64(0), int64(0), int64(0), int64(500)},
				"Index Scan using address_ranges_g" + fmt.Sprint(gens[1]) + "_street", 5},
		} {
			plan := explain(t, db.pool, s[c.name], c.args...)
			if strings.Count(plan, c.want) != c.n || strings.Count(plan, "Index Scan") != c.n || strings.Contains(plan, "Seq Scan") {
				t.Errorf("analyzed %v: %s plan %s; want %d index scans with %s", analyzed, c.name, plan, c.n, c.want)
			}
			if testing.Verbose() {
				t.Logf("analyzed %v: %s plan %s", analyzed, c.name, plan)
			}
		}
	}
}
