package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
				"Index Cond: ((street = '5 STREET 7'::text) AND (state = 'DC'::text) AND (unit = ''::text)", 2},
			{"rangesOn", []any{"DC", "STREET 7", gens, int64(402), int64(0), int64(0), int64(0), int64(500)},
				"Index Cond: ((name = 'STREET 7'::text) AND (state = 'DC'::text) AND (span = ", 10},
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

// A publication waits for no reader: a transaction reading the addresses
// served (holding its lock on address_points and address_ranges until it
// ends, as a long lookup or a backup would) leaves a load's publication,
// which attaches the load's tables to both, to finish at once, and the
// reader, on its snapshot, still reads what it read. A drop of the former
// generation, which must wait for the reader, gives up (for a later drop)
// rather than queue the reader's successors behind it for long.
func TestAnAddressPublicationWaitsForNoReader(t *testing.T) {
	ctx := context.Background()
	db, u := openFresh(t)
	load := func(name, key string) providers.DatasetLoad {
		t.Helper()
		l, _, err := db.BeginDataset(ctx, providers.KindAddresses, name, "fp-"+key)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.StageAddresses(ctx, &l, providers.Checkpoint{Done: 1},
			[]providers.AddressPoint{{Street: "1 A ST", State: "DC", Key: key}}, nil); err != nil {
			t.Fatal(err)
		}
		return l
	}
	first := load("oa-dc", "first")
	if _, err := db.PublishDataset(ctx, first, providers.Dataset{}); err != nil {
		t.Fatal(err)
	}
	reader, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(ctx)
	tx, err := reader.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	count := func() int64 {
		var n int64
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM address_points WHERE state = 'DC'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("the reader counts %d points, want 1", n)
	}
	second := load("oa-dc", "second")
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := db.PublishDataset(pctx, second, providers.Dataset{}); err != nil {
		t.Fatalf("the publication beside a reader: %v (after %v); want it done without waiting", err, time.Since(start))
	}
	if n := count(); n != 1 {
		t.Errorf("the reader counts %d points after the publication, want the 1 it read", n)
	}
	got, err := db.AddressPointsAt(ctx, []int64{second.Generation}, "DC", "1 A ST", "")
	if err != nil || len(got) != 1 || got[0].Key != "second" {
		t.Errorf("the load published beside a reader serves %+v, %v; want its point", got, err)
	}
	dctx, dcancel := context.WithTimeout(ctx, time.Second)
	defer dcancel()
	err = db.DropAddresses(dctx, first.Generation)
	if !errors.Is(err, providers.ErrKeep) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a drop of the former generation while a reader holds it: %v; want it kept for later", err)
	}
	if n := count(); n != 1 {
		t.Errorf("the reader counts %d points after a drop was tried, want the 1 it read", n)
	}
	tx.Rollback(ctx)
	if err := db.DropAddresses(ctx, first.Generation); err != nil {
		t.Errorf("the drop once the reader is done: %v", err)
	}
	if got, _ := db.AddressPointsAt(ctx, []int64{first.Generation, second.Generation}, "DC", "1 A ST", ""); len(got) != 1 || got[0].Key != "second" {
		t.Errorf("after the drop: %+v, want the second load's point alone", got)
	}
}
