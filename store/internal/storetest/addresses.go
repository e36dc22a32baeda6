package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/internal/loadsql"
)

func init() {
	register("AddressesStagedAreReadBackByTheirGeneration", testAddressesReadBack)
	register("AddressesCheckpointAloneWritesNoRow", testAddressesCheckpointAlone)
	register("AddressesOfASupersededLoadAreNotWritten", testAddressesSuperseded)
	register("AddressRangesHoldTheirNumbersEitherWayRound", testAddressRangesNumbers)
	register("AddressesMatchTheirTextExactly", testAddressesExactText)
	register("AddressesRefusedWriteNothing", testAddressesRefused)
	register("AddressesDropTheirGenerationOnly", testAddressesDrop)
	register("GeocodeCountsAreKeptByInstance", testGeocodeCounts)
}

// Each instance's report replaces its former one; a listing since a time
// has the instances that reported since, every handle sees them, and a
// report prunes the instances silent for a week.
func testGeocodeCounts(t *testing.T, open Opener) {
	ctx := context.Background()
	a, b := open(t, nil), open(t, nil)
	now := time.Now().UTC().Truncate(time.Millisecond)
	start := now.Add(-time.Hour)
	put := func(db Store, c providers.GeocodeCount) {
		t.Helper()
		if err := db.PutGeocodeCount(ctx, c); err != nil {
			t.Fatalf("PutGeocodeCount(%+v): %v", c, err)
		}
	}
	put(a, providers.GeocodeCount{Instance: "gone", StartedAt: start.Add(-30 * 24 * time.Hour), SeenAt: now.Add(-8 * 24 * time.Hour), Local: 9, Remote: 9})
	put(a, providers.GeocodeCount{Instance: "idle", StartedAt: start, SeenAt: now.Add(-10 * time.Minute), Local: 1})
	put(a, providers.GeocodeCount{Instance: "host-a/1'; DROP TABLE geocode_counts; --", StartedAt: start, SeenAt: now.Add(-time.Second), Local: 5, Remote: 1})
	put(b, providers.GeocodeCount{Instance: "host-b/2", StartedAt: start, SeenAt: now.Add(-time.Second), Local: 2, Remote: 2})
	put(b, providers.GeocodeCount{Instance: "host-b/2", StartedAt: start, SeenAt: now, Local: 7, Remote: 3})
	got, err := a.GeocodeCounts(ctx, now.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.GeocodeCount{
		{Instance: "host-a/1'; DROP TABLE geocode_counts; --", StartedAt: start, SeenAt: now.Add(-time.Second), Local: 5, Remote: 1},
		{Instance: "host-b/2", StartedAt: start, SeenAt: now, Local: 7, Remote: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GeocodeCounts(last minute) =\n%+v\nwant\n%+v", got, want)
	}
	all, err := b.GeocodeCounts(ctx, time.Time{})
	if err != nil || len(all) != 3 {
		t.Errorf("GeocodeCounts(ever) = %+v, %v; want the three instances, the one silent for a week pruned", all, err)
	}
	if err := a.PutGeocodeCount(ctx, providers.GeocodeCount{SeenAt: now}); providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("a count without an instance: %v, want KindInvalid", err)
	}
}

// beginAddresses begins a load of the addresses dataset name.
func beginAddresses(t *testing.T, db Store, name, fingerprint string) providers.DatasetLoad {
	t.Helper()
	load, _, err := db.BeginDataset(context.Background(), providers.KindAddresses, name, fingerprint)
	if err != nil || load.Generation < 1 {
		t.Fatalf("BeginDataset(%s) = %+v, %v; want a new load", name, load, err)
	}
	return load
}

func stage(t *testing.T, db Store, load *providers.DatasetLoad, cp providers.Checkpoint, ps []providers.AddressPoint, rs []providers.AddressRange) {
	t.Helper()
	if err := db.StageAddresses(context.Background(), load, cp, ps, rs); err != nil {
		t.Fatalf("StageAddresses(generation %d, %d points, %d ranges): %v", load.Generation, len(ps), len(rs), err)
	}
}

// publish serves load, whose rows readers find from then on.
func publish(t *testing.T, db Store, load providers.DatasetLoad) {
	t.Helper()
	if _, err := db.PublishDataset(context.Background(), load, providers.Dataset{Rows: load.Done}); err != nil {
		t.Fatalf("PublishDataset(%s, generation %d): %v", load.Name, load.Generation, err)
	}
}

func pointsAt(t *testing.T, db Store, gens []int64, state, street, unit string) []providers.AddressPoint {
	t.Helper()
	got, err := db.AddressPointsAt(context.Background(), gens, state, street, unit)
	if err != nil {
		t.Fatalf("AddressPointsAt(%v, %q, %q, %q): %v", gens, state, street, unit, err)
	}
	return got
}

func rangesOn(t *testing.T, db Store, gens []int64, state, name string, number int64) []providers.AddressRange {
	t.Helper()
	got, err := db.AddressRangesOn(context.Background(), gens, state, name, number)
	if err != nil {
		t.Fatalf("AddressRangesOn(%v, %q, %q, %d): %v", gens, state, name, number, err)
	}
	return got
}

func pointKeys(ps []providers.AddressPoint) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Key)
	}
	return out
}

func rangeKeys(rs []providers.AddressRange) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Key)
	}
	return out
}

// edge is a short street edge near the White House, its side and parity
// as given.
func edge(key, name string, from, to int64, parity, side byte) providers.AddressRange {
	return providers.AddressRange{Name: name, State: "DC", Zip: "20500", From: from, To: to, Parity: parity, Side: side,
		Line: []providers.Point{{Lat: 38.8977, Lng: -77.0366}, {Lat: 38.8979, Lng: -77.0350}, {Lat: 38.8981, Lng: -77.0341}},
		Key:  key}
}

// testAddressesReadBack: every field of a point and a range comes back as
// staged, and a lookup reads only the generations it names.
func testAddressesReadBack(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	load := beginAddresses(t, db, "oa-dc", "fp1")
	house := providers.AddressPoint{Street: "1600 PENNSYLVANIA AVE NW", City: "WASHINGTON", State: "DC", Zip: "20500",
		Point: providers.Point{Lat: 38.897663, Lng: -77.036574}, Key: "b0f3c0a1e2d4f5a6"}
	flat := providers.AddressPoint{Street: "1600 PENNSYLVANIA AVE NW", Unit: "APT 4B", State: "DC",
		Point: providers.Point{Lat: 38.8977, Lng: -77.0366}, Key: "line 3"}
	// The same address in another city: the caller decides which agrees.
	elsewhere := providers.AddressPoint{Street: "1600 PENNSYLVANIA AVE NW", City: "GEORGETOWN", State: "DC", Zip: "20007",
		Point: providers.Point{Lat: 38.9, Lng: -77.06}, Key: "line 4"}
	ave := edge("61599423L", "PENNSYLVANIA AVE NW", 1600, 1698, 'E', 'L')
	cp := providers.Checkpoint{Done: 10, Failed: 2, FailuresSize: 300}
	stage(t, db, &load, cp, []providers.AddressPoint{house, flat, elsewhere}, []providers.AddressRange{ave})
	if load.Checkpoint != cp {
		t.Errorf("StageAddresses left the load at %+v, want its checkpoint %+v", load.Checkpoint, cp)
	}
	gens := []int64{load.Generation}
	// A read says the generation of each row; staging takes none.
	house.Generation, flat.Generation, elsewhere.Generation, ave.Generation = load.Generation, load.Generation, load.Generation, load.Generation
	if got := pointsAt(t, db, gens, "DC", house.Street, ""); len(got) != 0 {
		t.Errorf("points of a load not yet published were read: %+v", got)
	}
	publish(t, db, load)
	if got := pointsAt(t, db, gens, "DC", house.Street, ""); !reflect.DeepEqual(got, []providers.AddressPoint{house, elsewhere}) {
		t.Errorf("the building's points = %+v, want the two staged without a unit, as written", got)
	}
	if got := pointsAt(t, db, gens, "DC", house.Street, "APT 4B"); !reflect.DeepEqual(got, []providers.AddressPoint{flat}) {
		t.Errorf("the flat's points = %+v, want %+v", got, flat)
	}
	if got := pointsAt(t, db, gens, "MD", house.Street, ""); len(got) != 0 {
		t.Errorf("the same street in another state found %+v", got)
	}
	if got := rangesOn(t, db, gens, "DC", "PENNSYLVANIA AVE NW", 1600); !reflect.DeepEqual(got, []providers.AddressRange{ave}) {
		t.Errorf("the ranges holding 1600 = %+v, want %+v", got, ave)
	}

	// A second dataset's load: its generation is read only when named.
	other := beginAddresses(t, db, "nad-dc", "fp1")
	nad := house
	nad.Key, nad.Point = "{5C2F8C52-0D1B-4A5E-9E44-0C6B1F1B9D11}", providers.Point{Lat: 38.8976, Lng: -77.0365}
	nadAve := edge("61599423R", "PENNSYLVANIA AVE NW", 1601, 1699, 'O', 'R')
	stage(t, db, &other, providers.Checkpoint{Done: 1}, []providers.AddressPoint{nad}, []providers.AddressRange{nadAve})
	publish(t, db, other)
	if got := pointKeys(pointsAt(t, db, gens, "DC", house.Street, "")); !reflect.DeepEqual(got, []string{house.Key, elsewhere.Key}) {
		t.Errorf("a lookup of generation %d alone found %v: another generation's point leaked in", load.Generation, got)
	}
	both := []int64{load.Generation, other.Generation}
	if got := pointKeys(pointsAt(t, db, both, "DC", house.Street, "")); !reflect.DeepEqual(got, []string{house.Key, elsewhere.Key, nad.Key}) {
		t.Errorf("a lookup of both generations found %v, want all three points as written", got)
	}
	if got := rangeKeys(rangesOn(t, db, []int64{other.Generation}, "DC", "PENNSYLVANIA AVE NW", 1650)); !reflect.DeepEqual(got, []string{nadAve.Key}) {
		t.Errorf("ranges of generation %d alone: %v, want [%s]", other.Generation, got, nadAve.Key)
	}
	if got := rangeKeys(rangesOn(t, db, both, "DC", "PENNSYLVANIA AVE NW", 1650)); !reflect.DeepEqual(got, []string{ave.Key, nadAve.Key}) {
		t.Errorf("ranges of both generations: %v, want both sides", got)
	}
	if got := pointsAt(t, db, []int64{other.Generation + 1000}, "DC", house.Street, ""); len(got) != 0 {
		t.Errorf("a generation never written found %+v", got)
	}
	if got := pointsAt(t, db, nil, "DC", house.Street, ""); len(got) != 0 {
		t.Errorf("no generation found %+v", got)
	}
	if got, err := db.AddressRangesOn(ctx, nil, "DC", "PENNSYLVANIA AVE NW", 1650); err != nil || len(got) != 0 {
		t.Errorf("no generation found %+v, %v", got, err)
	}
}

// testAddressesCheckpointAlone: a batch of refused rows writes its
// checkpoint alone, which a resumed load (another handle) starts from.
func testAddressesCheckpointAlone(t *testing.T, open Opener) {
	db := open(t, nil)
	load := beginAddresses(t, db, "tl_2023_11001_addrfeat", "fp1")
	stage(t, db, &load, providers.Checkpoint{Done: 5000}, []providers.AddressPoint{{Street: "1 A ST", State: "DC", Key: "1"}}, nil)
	cp := providers.Checkpoint{Done: 5007, Failed: 7, FailuresSize: 512}
	stage(t, db, &load, cp, nil, nil)
	again, _, err := open(t, nil).BeginDataset(context.Background(), providers.KindAddresses, "tl_2023_11001_addrfeat", "fp1")
	if err != nil || !again.Resumed || again.Generation != load.Generation || again.Checkpoint != cp {
		t.Fatalf("resumed load = %+v, %v; want generation %d at %+v", again, err, load.Generation, cp)
	}
	publish(t, db, again)
	if got := pointKeys(pointsAt(t, db, []int64{load.Generation}, "DC", "1 A ST", "")); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("after a checkpoint alone the points are %v, want the first batch's [1]", got)
	}
}

// testAddressesSuperseded: a load abandoned by a load of other files
// writes neither its rows nor its checkpoint.
func testAddressesSuperseded(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	first := beginAddresses(t, db, "oa-dc", "fp1")
	second := beginAddresses(t, db, "oa-dc", "fp2")
	before := first.Checkpoint
	err := db.StageAddresses(ctx, &first, providers.Checkpoint{Done: 1},
		[]providers.AddressPoint{{Street: "1 A ST", State: "DC", Key: "1"}}, []providers.AddressRange{edge("e", "A ST", 1, 99, 'O', 'L')})
	if !errors.Is(err, loadsql.ErrSuperseded) {
		t.Fatalf("a superseded load staged its batch: %v, want it refused as superseded", err)
	}
	if first.Checkpoint != before {
		t.Errorf("the refused batch set the load's checkpoint to %+v", first.Checkpoint)
	}
	if got := pointsAt(t, db, []int64{first.Generation}, "DC", "1 A ST", ""); len(got) != 0 {
		t.Errorf("the superseded batch's points were kept: %+v", got)
	}
	if got := rangesOn(t, db, []int64{first.Generation}, "DC", "A ST", 5); len(got) != 0 {
		t.Errorf("the superseded batch's ranges were kept: %+v", got)
	}
	// The load that superseded it writes, and its publication serves its
	// own rows alone.
	stage(t, db, &second, providers.Checkpoint{Done: 1}, []providers.AddressPoint{{Street: "1 A ST", State: "DC", Key: "2"}}, nil)
	publish(t, db, second)
	if got := pointKeys(pointsAt(t, db, []int64{first.Generation, second.Generation}, "DC", "1 A ST", "")); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("after the second load's publication: %v, want its point [2] alone", got)
	}
}

// testAddressRangesNumbers: a range holds the numbers from From to To,
// both included, whichever the file writes first (TIGER/Line writes 102
// to 100 where the numbers fall along the edge), and keeps its parity
// and side; ranges of every width are found at their ends and middle.
func testAddressRangesNumbers(t *testing.T, open Opener) {
	db := open(t, nil)
	load := beginAddresses(t, db, "tl_2023_11001_addrfeat", "fp1")
	down := edge("down", "MAIN ST", 102, 100, 'E', 'R')
	single := edge("single", "MAIN ST", 7, 7, 'O', 'L')
	both := edge("both", "MAIN ST", 1, 20, 'B', 'L')
	rs := []providers.AddressRange{down, single, both}
	// Widths on either side of every bound of the index's spans, and a
	// range wider than all of them, each on a street of its own.
	widths := []int64{0, 98, 99, 100, 101, 998, 999, 1000, 9999, 10000, 99999, 100000, 100001, 5_000_000_000}
	for _, w := range widths {
		rs = append(rs, edge(fmt.Sprint("w", w), fmt.Sprint("WIDTH ", w, " RD"), 3000+w, 3000, 'B', 'L'))
	}
	stage(t, db, &load, providers.Checkpoint{Done: int64(len(rs))}, nil, rs)
	publish(t, db, load)
	gens := []int64{load.Generation}
	down.Generation = load.Generation
	if got := rangesOn(t, db, gens, "DC", "MAIN ST", 101); !reflect.DeepEqual(got, []providers.AddressRange{down}) {
		t.Fatalf("the ranges holding 101 = %+v, want the one written 102 to 100, as written", got)
	}
	for _, c := range []struct {
		n    int64
		want []string
	}{{100, []string{"down"}}, {102, []string{"down"}}, {99, []string{}}, {103, []string{}},
		{7, []string{"both", "single"}}, {6, []string{"both"}}, {1, []string{"both"}}, {20, []string{"both"}}, {0, []string{}}, {21, []string{}}} {
		if got := rangeKeys(rangesOn(t, db, gens, "DC", "MAIN ST", c.n)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("MAIN ST %d is in %v, want %v", c.n, got, c.want)
		}
	}
	got := rangesOn(t, db, gens, "DC", "MAIN ST", 7)
	if len(got) == 2 && (got[1].Parity != 'O' || got[1].Side != 'L' || got[0].Parity != 'B' || got[1].From != 7 || got[1].To != 7) {
		t.Errorf("parity and side came back as %c%c and %c%c, want B L and O L", got[0].Parity, got[0].Side, got[1].Parity, got[1].Side)
	}
	for _, w := range widths {
		name, key := fmt.Sprint("WIDTH ", w, " RD"), fmt.Sprint("w", w)
		for _, n := range []int64{3000, 3000 + w/2, 3000 + w} {
			if got := rangeKeys(rangesOn(t, db, gens, "DC", name, n)); !reflect.DeepEqual(got, []string{key}) {
				t.Errorf("a range of width %d does not hold %d: found %v", w, n, got)
			}
		}
		for _, n := range []int64{2999, 3001 + w} {
			if got := rangesOn(t, db, gens, "DC", name, n); len(got) != 0 {
				t.Errorf("a range of width %d (3000 to %d) holds %d", w, 3000+w, n)
			}
		}
	}
	if got := rangesOn(t, db, gens, "DC", "MAIN ST", -1); len(got) != 0 {
		t.Errorf("a negative number found %+v", got)
	}
}

// testAddressesExactText: names with quotes, SQL, LIKE's wildcards and
// letters beyond ASCII round-trip and match themselves alone: not another
// case, another spacing, nor the same letter composed otherwise.
func testAddressesExactText(t *testing.T, open Opener) {
	db := open(t, nil)
	load := beginAddresses(t, db, "oa-pr", "fp1")
	streets := []string{
		"12 O'BRIEN ST",
		`1 ROBERT'); DROP TABLE address_points;-- ST`,
		"5 % ST", "5 _ ST", `5 \ ST`,
		"100 CALLE JOSÉ MARTÍ",             // É composed (NFC)
		"100 CALLE JOSE\u0301 MARTI\u0301", // É as E and a combining acute (NFD)
		"7 MAIN ST", "7 main st", "7 MAIN  ST",
		"9 東京 通り",
	}
	var ps []providers.AddressPoint
	var rs []providers.AddressRange
	for i, s := range streets {
		ps = append(ps, providers.AddressPoint{Street: s, Unit: "APT '1'", State: "PR", Point: providers.Point{Lat: 18.4, Lng: -66.1}, Key: fmt.Sprint(i)})
		r := edge(fmt.Sprint(i), s, 1, 99, 'B', 'L')
		r.State = "PR"
		rs = append(rs, r)
	}
	stage(t, db, &load, providers.Checkpoint{Done: int64(len(ps))}, ps, rs)
	publish(t, db, load)
	gens := []int64{load.Generation}
	for i, s := range streets {
		got := pointsAt(t, db, gens, "PR", s, "APT '1'")
		if len(got) != 1 || got[0].Key != fmt.Sprint(i) || got[0].Street != s || got[0].Unit != "APT '1'" {
			t.Errorf("the point of %q = %+v, want itself alone, byte for byte", s, got)
		}
		if got := rangesOn(t, db, gens, "PR", s, 50); len(got) != 1 || got[0].Key != fmt.Sprint(i) || got[0].Name != s {
			t.Errorf("the ranges of %q = %+v, want its own alone", s, rangeKeys(got))
		}
	}
	for _, s := range []string{"5 %", "5 ST", "12 O''BRIEN ST", "7 Main St", "100 CALLE JOSE MARTI", "7 MAIN ST "} {
		if got := pointsAt(t, db, gens, "PR", s, "APT '1'"); len(got) != 0 {
			t.Errorf("%q matched %v", s, pointKeys(got))
		}
	}
	// Text no row can hold finds nothing, on either engine.
	for _, s := range []string{"7 MAIN\x00ST", "7 MAIN \xff ST"} {
		if got := pointsAt(t, db, gens, "PR", s, ""); len(got) != 0 {
			t.Errorf("%q matched %v", s, pointKeys(got))
		}
		if got := rangesOn(t, db, gens, "PR", s, 1); len(got) != 0 {
			t.Errorf("%q matched %v", s, rangeKeys(got))
		}
	}
}

// testAddressesRefused: a batch holding one bad point or range is refused
// whole as invalid: none of its rows and not its checkpoint are written.
func testAddressesRefused(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	load := beginAddresses(t, db, "oa-dc", "fp1")
	good := providers.AddressPoint{Street: "1 A ST", State: "DC", Point: providers.Point{Lat: 38.9, Lng: -77}, Key: "good"}
	goodRange := edge("good", "A ST", 1, 99, 'O', 'L')
	point := func(f func(p *providers.AddressPoint)) []providers.AddressPoint {
		p := good
		p.Key = "bad"
		f(&p)
		return []providers.AddressPoint{good, p}
	}
	rng := func(f func(r *providers.AddressRange)) []providers.AddressRange {
		r := goodRange
		r.Key = "bad"
		f(&r)
		return []providers.AddressRange{goodRange, r}
	}
	for _, c := range []struct {
		name   string
		points []providers.AddressPoint
		ranges []providers.AddressRange
	}{
		{"a point without a street", point(func(p *providers.AddressPoint) { p.Street = "" }), nil},
		{"a point without a state", point(func(p *providers.AddressPoint) { p.State = "" }), nil},
		{"a point at latitude 91", point(func(p *providers.AddressPoint) { p.Point.Lat = 91 }), nil},
		{"a point at longitude -181", point(func(p *providers.AddressPoint) { p.Point.Lng = -181 }), nil},
		{"a point with a NUL in its street", point(func(p *providers.AddressPoint) { p.Street = "1 A\x00ST" }), nil},
		{"a point whose city is not UTF-8", point(func(p *providers.AddressPoint) { p.City = "SAN JOS\xe9" }), nil},
		{"a range without a name", nil, rng(func(r *providers.AddressRange) { r.Name = "" })},
		{"a range without a state", nil, rng(func(r *providers.AddressRange) { r.State = "" })},
		{"a range without a line", nil, rng(func(r *providers.AddressRange) { r.Line = nil })},
		{"a range of one point", nil, rng(func(r *providers.AddressRange) { r.Line = r.Line[:1] })},
		{"a range whose line leaves the globe", nil, rng(func(r *providers.AddressRange) {
			r.Line = []providers.Point{{Lat: 38.9, Lng: -77}, {Lat: 38.9, Lng: 181}}
		})},
		{"a range numbered below 0", nil, rng(func(r *providers.AddressRange) { r.From = -1 })},
		{"a range of no parity", nil, rng(func(r *providers.AddressRange) { r.Parity = 0 })},
		{"a range on side X", nil, rng(func(r *providers.AddressRange) { r.Side = 'X' })},
		{"good points with a bad range", []providers.AddressPoint{good}, rng(func(r *providers.AddressRange) { r.Name = "" })},
	} {
		before := load.Checkpoint
		err := db.StageAddresses(ctx, &load, providers.Checkpoint{Done: 99}, c.points, c.ranges)
		if providers.KindOf(err) != providers.KindInvalid {
			t.Errorf("%s: %v, want invalid", c.name, err)
		}
		if load.Checkpoint != before {
			t.Errorf("%s: the refused batch set the checkpoint to %+v", c.name, load.Checkpoint)
		}
	}
	again, _, err := open(t, nil).BeginDataset(ctx, providers.KindAddresses, "oa-dc", "fp1")
	if err != nil || again.Checkpoint != (providers.Checkpoint{}) {
		t.Errorf("after refused batches the load resumes at %+v, %v; want its start", again.Checkpoint, err)
	}
	publish(t, db, again)
	gens := []int64{load.Generation}
	if got := pointsAt(t, db, gens, "DC", "1 A ST", ""); len(got) != 0 {
		t.Errorf("a refused batch wrote its good point: %+v", got)
	}
	if got := rangesOn(t, db, gens, "DC", "A ST", 5); len(got) != 0 {
		t.Errorf("a refused batch wrote its good range: %+v", got)
	}
	if err := db.StageAddresses(ctx, &providers.DatasetLoad{Kind: providers.KindAddresses, Name: "oa-dc"}, providers.Checkpoint{},
		[]providers.AddressPoint{good}, nil); providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("a load of generation 0: %v, want invalid", err)
	}
	if err := db.StageAddresses(ctx, nil, providers.Checkpoint{}, nil, nil); providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("no load: %v, want invalid", err)
	}
}

// testAddressesDrop: a drop of more rows than one transaction deletes
// removes one generation's points and ranges, written in turns with
// another's, and leaves the other's.
func testAddressesDrop(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	old := beginAddresses(t, db, "oa-dc", "fp1")
	keep := beginAddresses(t, db, "nad-dc", "fp1")
	const streets, perStreet = 60, 200 // 12,000 points and 6,000 ranges a generation
	for from := 0; from < streets; from += 15 {
		for _, load := range []*providers.DatasetLoad{&old, &keep} {
			var ps []providers.AddressPoint
			var rs []providers.AddressRange
			for s := from; s < from+15; s++ {
				for n := range perStreet {
					ps = append(ps, providers.AddressPoint{Street: fmt.Sprintf("%d STREET %d", n, s), State: "DC",
						Point: providers.Point{Lat: 38.9, Lng: -77}, Key: fmt.Sprint(load.Generation)})
					if n%2 == 0 {
						rs = append(rs, edge(fmt.Sprint(load.Generation), fmt.Sprintf("STREET %d", s), int64(n*100), int64(n*100+98), 'E', 'L'))
					}
				}
			}
			stage(t, db, load, providers.Checkpoint{Done: load.Done + int64(len(ps))}, ps, rs)
		}
	}
	publish(t, db, old)
	publish(t, db, keep)
	both := []int64{old.Generation, keep.Generation}
	if got := pointKeys(pointsAt(t, db, both, "DC", "150 STREET 42", "")); len(got) != 2 {
		t.Fatalf("before the drop: %v, want a point of each generation", got)
	}
	if err := db.DropAddresses(ctx, old.Generation); err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{0, 29, 59} {
		for _, n := range []int{0, 101, 199} {
			want := []string{fmt.Sprint(keep.Generation)}
			if got := pointKeys(pointsAt(t, db, both, "DC", fmt.Sprintf("%d STREET %d", n, s), "")); !reflect.DeepEqual(got, want) {
				t.Errorf("after the drop, %d STREET %d is in %v, want generation %v alone", n, s, got, want)
			}
			if got := rangeKeys(rangesOn(t, db, both, "DC", fmt.Sprintf("STREET %d", s), int64(n/2*200+50))); !reflect.DeepEqual(got, want) {
				t.Errorf("after the drop, the ranges of STREET %d are %v, want generation %v alone", s, got, want)
			}
		}
	}
	// Dropping what is not there is no error.
	if err := db.DropAddresses(ctx, old.Generation); err != nil {
		t.Errorf("a second drop: %v", err)
	}
	// A load's staged rows go with its generation (an abandoned load's,
	// say): its publication then serves none.
	pending := beginAddresses(t, db, "oa-md", "fp1")
	stage(t, db, &pending, providers.Checkpoint{Done: 1}, []providers.AddressPoint{{Street: "1 A ST", State: "MD", Key: "p"}},
		[]providers.AddressRange{edge("p", "A ST", 1, 99, 'O', 'L')})
	if err := db.DropAddresses(ctx, pending.Generation); err != nil {
		t.Fatal(err)
	}
	publish(t, db, pending)
	if got := pointsAt(t, db, []int64{pending.Generation}, "MD", "1 A ST", ""); len(got) != 0 {
		t.Errorf("a point staged and dropped was served: %+v", got)
	}
	if got := rangesOn(t, db, []int64{pending.Generation}, "DC", "A ST", 5); len(got) != 0 {
		t.Errorf("a range staged and dropped was served: %+v", got)
	}
	if err := db.DropAddresses(ctx, 0); providers.KindOf(err) != providers.KindInvalid {
		t.Errorf("a drop of generation 0: %v, want invalid", err)
	}
}

// Before0025 are the rows an engine's test writes, with their arguments,
// into a database of schema 24 before AddressesKeptThrough0025 upgrades
// it: the addresses dataset oa-dc served at generation 3, with a point
// and a range (its line the little-endian WKB linestring the store
// writes, two points) published, and the load of oa-md in progress at
// generation 4, 5,000 rows done, a point of it staged. The columns are
// 0021's and 0024's.
var Before0025 = []struct {
	SQL  string
	Args []any
}{
	{`UPDATE dataset_generations SET n = 4`, nil},
	{`INSERT INTO datasets (kind, name, generation, fingerprint, row_count, loaded_at)
		VALUES ('addresses', 'oa-dc', 3, 'f1', 2, '2026-12-01T00:00:00.000Z')`, nil},
	{`INSERT INTO address_points (id, generation, state, street, unit, city, zip, lat, lng, key)
		VALUES (11, 3, 'DC', '1600 PENNSYLVANIA AVE NW', '', 'WASHINGTON', '20500', 38.8977, -77.0366, 'p1')`, nil},
	{`INSERT INTO address_ranges (id, generation, state, name, span, lo, hi, descending, parity, side, zip, key, line)
		VALUES (12, 3, 'DC', 'PENNSYLVANIA AVE NW', 0, 1600, 1698, 0, 'E', 'L', '20500', 'r1', ?)`, []any{[]byte{1, 2, 0, 0, 0, 2, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0x54, 0xc0, 0, 0, 0, 0, 0, 0, 0x43, 0x40, // (-80, 38)
		0, 0, 0, 0, 0, 0, 0x54, 0xc0, 0, 0, 0, 0, 0, 0x80, 0x43, 0x40}}}, // (-80, 39)
	{`INSERT INTO dataset_loads (kind, name, generation, fingerprint, done, started_at)
		VALUES ('addresses', 'oa-md', 4, 'f2', 5000, '2026-12-01T00:00:00.000Z')`, nil},
	{`INSERT INTO address_points_staged (generation, state, street, unit, city, zip, lat, lng, key)
		VALUES (4, 'MD', '1 MAIN ST', '', '', '', 39, -77, 'staged')`, nil},
}

// AddressesKeptThrough0025 checks, on db, a database written before
// migration 0025 (the Before0025 rows) after it: the points and ranges
// served are found as before, beside those of a generation loaded
// since, and dropped with their generation; the load that was in
// progress starts again from its first row (its staged rows went with
// 0024's staged tables), under a new generation.
func AddressesKeptThrough0025(t *testing.T, db Store) {
	ctx := context.Background()
	old := []int64{3}
	if got := pointKeys(pointsAt(t, db, old, "DC", "1600 PENNSYLVANIA AVE NW", "")); !reflect.DeepEqual(got, []string{"p1"}) {
		t.Fatalf("the point served before 0025: %v, want [p1]", got)
	}
	rs := rangesOn(t, db, old, "DC", "PENNSYLVANIA AVE NW", 1650)
	if len(rs) != 1 || rs[0].Key != "r1" || rs[0].Generation != 3 || rs[0].From != 1600 || rs[0].To != 1698 ||
		!reflect.DeepEqual(rs[0].Line, []providers.Point{{Lat: 38, Lng: -80}, {Lat: 39, Lng: -80}}) {
		t.Fatalf("the range served before 0025: %+v, want r1 of generation 3 as written", rs)
	}
	md, _, err := db.BeginDataset(ctx, providers.KindAddresses, "oa-md", "f2")
	if err != nil || md.Resumed || md.Generation <= 4 || md.Done != 0 {
		t.Fatalf("the load in progress before 0025 = %+v, %v; want it begun again under a new generation", md, err)
	}
	stage(t, db, &md, providers.Checkpoint{Done: 1}, []providers.AddressPoint{{Street: "1 MAIN ST", State: "MD", Key: "new"}}, nil)
	publish(t, db, md)
	both := []int64{3, md.Generation}
	if got := pointKeys(pointsAt(t, db, both, "MD", "1 MAIN ST", "")); !reflect.DeepEqual(got, []string{"new"}) {
		t.Errorf("1 MAIN ST, MD after the load begun again: %v, want its own point alone (not the one staged before 0025)", got)
	}
	if err := db.DropAddresses(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if got := pointsAt(t, db, both, "DC", "1600 PENNSYLVANIA AVE NW", ""); len(got) != 0 {
		t.Errorf("the point of generation 3 after its drop: %+v", got)
	}
	if got := rangesOn(t, db, both, "DC", "PENNSYLVANIA AVE NW", 1650); len(got) != 0 {
		t.Errorf("the range of generation 3 after its drop: %+v", got)
	}
	if got := pointKeys(pointsAt(t, db, both, "MD", "1 MAIN ST", "")); !reflect.DeepEqual(got, []string{"new"}) {
		t.Errorf("the drop of generation 3 took generation %d's point: %v", md.Generation, got)
	}
}
