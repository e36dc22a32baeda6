package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("DatasetsRetiredAreNamedByTheirDataset", testDatasetsRetiredByName)
	register("DatasetsListTheFactsAndTheExtracts", testDatasetsListFactsAndExtracts)
}

// testDatasetsRetiredByName: the generations of two datasets of one kind
// retire each under its dataset's name, and are forgotten each by it.
func testDatasetsRetiredByName(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	a, _, err := db.BeginDataset(ctx, "flood", "a", "fp1")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := db.BeginDataset(ctx, "flood", "b", "fp1")
	if err != nil {
		t.Fatal(err)
	}
	// Other files of each abandon its load.
	for _, name := range []string{"a", "b"} {
		if _, _, err := db.BeginDataset(ctx, "flood", name, "fp2"); err != nil {
			t.Fatal(err)
		}
	}
	want := []providers.Retired{{Name: "a", Generation: a.Generation}, {Name: "b", Generation: b.Generation}}
	if ret, err := db.RetiredGenerations(ctx, "flood"); err != nil || !slices.Equal(ret, want) {
		t.Fatalf("RetiredGenerations = %v, %v; want %v", ret, err, want)
	}
	// Forgetting b's generation under a's name forgets nothing.
	if err := db.ForgetGeneration(ctx, "flood", "a", b.Generation); err != nil {
		t.Fatal(err)
	}
	if err := db.ForgetGeneration(ctx, "flood", "a", a.Generation); err != nil {
		t.Fatal(err)
	}
	if ret, _ := db.RetiredGenerations(ctx, "flood"); !slices.Equal(ret, want[1:]) {
		t.Errorf("after forgetting a's: %v, want b's alone %v", ret, want[1:])
	}
}

// RetiredByDatasetGo: the assessor datasets number their generations each
// from 1, so two datasets have generations of the same number; replacing
// one drops its former generation and leaves the other's, served, alone,
// and a load abandoned drops its own rows alone. count runs a query of one
// number on the engine's database.
func RetiredByDatasetGo(t *testing.T, db Store, count func(t *testing.T, query string) int64) {
	ctx := context.Background()
	r := func(key string) providers.FactRow {
		return row(key, providers.FactsKey(key, "62701", ""), providers.Facts{Bedrooms: ptr(3)})
	}
	a1 := load(t, db, "a", "fa1", 1, "2026-01-01", nil, r("1 A ST"), r("2 A ST"))
	b1 := load(t, db, "b", "fb1", 2, "2026-01-01", nil, r("1 B ST"))
	if a1.Generation != b1.Generation {
		t.Fatalf("generations %d and %d: want both datasets' first to be of one number", a1.Generation, b1.Generation)
	}
	a2 := load(t, db, "a", "fa2", 1, "2026-02-01", nil, r("3 A ST"))
	// A load of b's abandoned for other files, its rows written.
	l, _, err := db.BeginFacts(ctx, "b", "fb2")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFacts(ctx, &l, nil, []providers.FactRow{r("9 B ST")}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.BeginFacts(ctx, "b", "fb3"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  int64
	}{
		{`SELECT COUNT(*) FROM fact_rows WHERE dataset = 'a' AND generation = ` + strconv.FormatInt(a1.Generation, 10), 0},
		{`SELECT COUNT(*) FROM fact_rows WHERE dataset = 'a' AND generation = ` + strconv.FormatInt(a2.Generation, 10), 1},
		{`SELECT COUNT(*) FROM fact_rows WHERE dataset = 'b' AND generation = ` + strconv.FormatInt(b1.Generation, 10), 1},
		{`SELECT COUNT(*) FROM fact_rows WHERE dataset = 'b' AND generation = ` + strconv.FormatInt(l.Generation, 10), 0},
		{`SELECT COUNT(*) FROM dataset_retired`, 0},
	} {
		if got := count(t, c.query); got != c.want {
			t.Errorf("%s = %d, want %d", c.query, got, c.want)
		}
	}
	if ret, err := db.RetiredGenerations(ctx, providers.KindParcels); err != nil || len(ret) != 0 {
		t.Errorf("RetiredGenerations(parcels) = %v, %v; want every one dropped", ret, err)
	}
	sets, _ := db.FactSets(ctx)
	for _, s := range sets {
		if s.Dataset == "b" && s.Generation != b1.Generation {
			t.Errorf("b is served from generation %d, want %d", s.Generation, b1.Generation)
		}
	}
}

// testDatasetsListFactsAndExtracts: an assessor dataset's and an
// extract's publications are datasets served like any kind's: listed by
// Datasets with their counts, date and coverage, and each moves
// DatasetsVersion, the one version a fleet watches.
func testDatasetsListFactsAndExtracts(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	v0, _ := db.DatasetsVersion(ctx)
	l, _, err := db.BeginFacts(ctx, "cook", "f1")
	if err != nil {
		t.Fatal(err)
	}
	rows := []providers.FactRow{
		{Key: "p1", Point: &providers.Point{Lat: 41.9, Lng: -87.7}, Facts: providers.Facts{Bedrooms: ptr(2)}},
		{Key: "p2", Point: &providers.Point{Lat: 41.95, Lng: -87.6}, Facts: providers.Facts{Bedrooms: ptr(3)}},
	}
	if err := db.PutFacts(ctx, &l, nil, rows, 5, 3, 200); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishFacts(ctx, l, providers.FactSet{Source: "cook-county-assessor", Priority: 1, AsOf: "2026-09-30",
		FailuresFile: "/srv/load/cook.failures.csv", Took: 2 * time.Second}, nil); err != nil {
		t.Fatal(err)
	}
	v1, _ := db.DatasetsVersion(ctx)
	if v1 == v0 {
		t.Errorf("DatasetsVersion stayed %s across an assessor dataset's publication", v1)
	}
	ds, err := db.Datasets(ctx, providers.KindParcels)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Datasets(parcels) = %+v, %v; want the one published", ds, err)
	}
	d := ds[0]
	var meta struct {
		Source     string `json:"source"`
		Precedence int    `json:"precedence"`
	}
	_ = json.Unmarshal(d.Meta, &meta)
	if d.Name != "cook" || d.Rows != 2 || d.Failed != 3 || d.Vintage != "2026-09-30" || d.Generation != l.Generation ||
		d.FailuresFile != "/srv/load/cook.failures.csv" || d.Took != 2*time.Second || d.LoadedAt.IsZero() ||
		d.Coverage != (providers.BBox{West: -87.7, South: 41.9, East: -87.6, North: 41.95}) ||
		meta.Source != "cook-county-assessor" || meta.Precedence != 1 {
		t.Errorf("the assessor dataset is listed as %+v (meta %s)", d, d.Meta)
	}

	ts := time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)
	x := loadOSM(t, db, "dc", "x1", ts, place(1, "parks", "park", "Park", 38.9, -77.03), place(2, "parks", "park", "Green", 38.91, -77.02))
	v2, _ := db.DatasetsVersion(ctx)
	if v2 == v1 {
		t.Errorf("DatasetsVersion stayed %s across an extract's publication", v2)
	}
	ds, err = db.Datasets(ctx, providers.KindOSM)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Datasets(osm) = %+v, %v; want the one published", ds, err)
	}
	if d := ds[0]; d.Name != "dc" || d.Generation != x.Generation || d.Rows != 2 || d.Vintage != "2026-11-20" || d.Coverage != dc {
		t.Errorf("the extract is listed as %+v", d)
	}
	// A newer extract of the same name replaces its row, retiring nothing
	// left undropped.
	loadOSM(t, db, "dc", "x2", ts.Add(24*time.Hour), place(1, "parks", "park", "Park", 38.9, -77.03))
	ds, _ = db.Datasets(ctx, providers.KindOSM)
	if len(ds) != 1 || ds[0].Rows != 1 || ds[0].Vintage != "2026-11-21" {
		t.Errorf("after a newer extract, Datasets(osm) = %+v", ds)
	}
	if v3, _ := db.DatasetsVersion(ctx); v3 == v2 {
		t.Errorf("DatasetsVersion stayed %s across a newer extract", v3)
	}
	if ret, _ := db.RetiredGenerations(ctx, providers.KindOSM); len(ret) != 0 {
		t.Errorf("RetiredGenerations(osm) = %v, want the former extract dropped", ret)
	}
	if all, _ := db.Datasets(ctx, ""); len(all) != 2 {
		t.Errorf("Datasets() = %+v, want the assessor dataset and the extract", all)
	}
}
