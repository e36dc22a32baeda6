package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("DatasetsStageUnseenThenPublishInOneStep", testDatasetsPublish)
	register("DatasetsResumeTheSameFilesAndAbandonOthers", testDatasetsResume)
	register("DatasetsOfTheSameFilesAreNothingToDo", testDatasetsSame)
	register("DatasetsRefuseASupersededLoad", testDatasetsSuperseded)
}

func squarePoly(key string, west, south, east, north float64) providers.LayerPolygon {
	return providers.LayerPolygon{Key: key, Shape: shapeOf(orb.Polygon{rect(west, south, east, north)})}
}

// testDatasetsPublish: what a load stages is under a generation no served
// dataset names until it is published; publishing a second load retires
// the first's generation, listed once for the loader to drop.
func testDatasetsPublish(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	v0, err := db.DatasetsVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	load, served, err := db.BeginDataset(ctx, "boundaries", "tl_2020_11_tract", "fp1")
	if err != nil || served != nil || load.Generation < 1 || load.Resumed {
		t.Fatalf("BeginDataset = %+v, %v, %v; want a new load, none served", load, served, err)
	}
	if err := db.StagePolygons(ctx, &load, providers.Checkpoint{Done: 2, Failed: 1, FailuresSize: 40}, "tract",
		[]providers.LayerPolygon{squarePoly("a", 0, 0, 1, 1)}); err != nil {
		t.Fatal(err)
	}
	if load.Done != 2 {
		t.Errorf("StagePolygons left the load at %+v, want its checkpoint set", load.Checkpoint)
	}
	if ds, _ := db.Datasets(ctx, ""); len(ds) != 0 {
		t.Errorf("before publishing, Datasets = %+v, want none", ds)
	}
	if v, _ := db.DatasetsVersion(ctx); v != v0 {
		t.Errorf("the version changed on a load (%s to %s): only a publication changes it", v0, v)
	}
	d, err := db.PublishDataset(ctx, load, providers.Dataset{Rows: 1, Failed: 1, Vintage: "2020",
		Coverage: providers.BBox{West: 0, South: 0, East: 1, North: 1}, Meta: json.RawMessage(`{"layers":["tract"]}`),
		FailuresFile: "/srv/load/f.csv", Took: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != load.Generation || d.Kind != "boundaries" || d.Fingerprint != "fp1" || d.LoadedAt.IsZero() {
		t.Errorf("PublishDataset = %+v", d)
	}
	ds, err := db.Datasets(ctx, "boundaries")
	if err != nil || len(ds) != 1 {
		t.Fatalf("Datasets = %+v, %v; want the one published", ds, err)
	}
	got := ds[0]
	if got.Name != "tl_2020_11_tract" || got.Rows != 1 || got.Failed != 1 || got.Vintage != "2020" ||
		got.Coverage.East != 1 || string(got.Meta) != `{"layers":["tract"]}` || !got.LoadedAt.Equal(d.LoadedAt) ||
		got.FailuresFile != "/srv/load/f.csv" || got.Took != 1500*time.Millisecond {
		t.Errorf("Datasets()[0] = %+v, want what was published", got)
	}
	if !got.Covers(providers.Point{Lat: 0.5, Lng: 0.5}) || got.Covers(providers.Point{Lat: 2, Lng: 0.5}) {
		t.Errorf("Covers disagrees with the coverage box %+v", got.Coverage)
	}
	v1, _ := db.DatasetsVersion(ctx)
	if v1 == v0 {
		t.Errorf("the version stayed %s across a publication", v1)
	}
	if other, _ := db.Datasets(ctx, "flood"); len(other) != 0 {
		t.Errorf("Datasets(flood) = %+v, want none", other)
	}

	second, _, err := db.BeginDataset(ctx, "boundaries", "tl_2020_11_tract", "fp2")
	if err != nil || second.Generation <= load.Generation {
		t.Fatalf("a second load: %+v, %v; want a newer generation than %d", second, err, load.Generation)
	}
	if err := db.StagePolygons(ctx, &second, providers.Checkpoint{Done: 1}, "tract", []providers.LayerPolygon{squarePoly("b", 0, 0, 1, 1)}); err != nil {
		t.Fatal(err)
	}
	if ret, _ := db.RetiredGenerations(ctx, "boundaries"); len(ret) != 0 {
		t.Errorf("retired before the second publication: %v", ret)
	}
	if _, err := db.PublishDataset(ctx, second, providers.Dataset{Rows: 1}); err != nil {
		t.Fatal(err)
	}
	ret, err := db.RetiredGenerations(ctx, "boundaries")
	if err != nil || !slices.Equal(ret, []providers.Retired{{Name: "tl_2020_11_tract", Generation: load.Generation}}) {
		t.Fatalf("RetiredGenerations = %v, %v; want [%d]", ret, err, load.Generation)
	}
	if keys := at(t, db, "tract", second.Generation, 0.5, 0.5); !slices.Equal(keys, []string{"b"}) {
		t.Errorf("the published generation holds %v, want [b]", keys)
	}
	if err := db.ForgetGeneration(ctx, "boundaries", "tl_2020_11_tract", load.Generation); err != nil {
		t.Fatal(err)
	}
	if ret, _ := db.RetiredGenerations(ctx, "boundaries"); len(ret) != 0 {
		t.Errorf("after ForgetGeneration: %v", ret)
	}
	if v2, _ := db.DatasetsVersion(ctx); v2 == v1 {
		t.Errorf("the version stayed %s across the second publication", v2)
	}
}

// testDatasetsResume: a load of the same fingerprint resumes at its
// checkpoint on another handle (a new process after kill -9); one of other
// files abandons it, its generation retired.
func testDatasetsResume(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	load, _, err := db.BeginDataset(ctx, "flood", "11001C", "fp1")
	if err != nil {
		t.Fatal(err)
	}
	cp := providers.Checkpoint{Done: 5000, Failed: 3, FailuresSize: 120}
	if err := db.StagePolygons(ctx, &load, cp, "hazard", []providers.LayerPolygon{squarePoly("z", 0, 0, 1, 1)}); err != nil {
		t.Fatal(err)
	}
	// A batch of refused features: its checkpoint alone, no layer named.
	cp = providers.Checkpoint{Done: 5003, Failed: 6, FailuresSize: 240}
	if err := db.StagePolygons(ctx, &load, cp, "", nil); err != nil {
		t.Fatalf("a checkpoint alone: %v", err)
	}
	again, served, err := open(t, nil).BeginDataset(ctx, "flood", "11001C", "fp1")
	if err != nil || served != nil {
		t.Fatal(err, served)
	}
	if !again.Resumed || again.Generation != load.Generation || again.Checkpoint != cp {
		t.Errorf("resumed load = %+v, want generation %d at %+v", again, load.Generation, cp)
	}
	other, _, err := db.BeginDataset(ctx, "flood", "11001C", "fp2")
	if err != nil || other.Resumed || other.Generation == load.Generation || other.Done != 0 {
		t.Fatalf("a load of other files = %+v, %v; want a new one from the start", other, err)
	}
	if ret, _ := db.RetiredGenerations(ctx, "flood"); !slices.Equal(ret, []providers.Retired{{Name: "11001C", Generation: load.Generation}}) {
		t.Errorf("RetiredGenerations = %v, want the abandoned %d", ret, load.Generation)
	}
}

// testDatasetsSame: the files a dataset is served from, given again, are
// nothing to do; a kind and a name are required.
func testDatasetsSame(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	load, _, err := db.BeginDataset(ctx, "boundaries", "counties", "fp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishDataset(ctx, load, providers.Dataset{Rows: 3}); err != nil {
		t.Fatal(err)
	}
	again, served, err := db.BeginDataset(ctx, "boundaries", "counties", "fp")
	if err != nil || again.Generation != 0 || served == nil || served.Generation != load.Generation || served.Rows != 3 {
		t.Errorf("BeginDataset of the served files = %+v, %+v, %v; want nothing to do", again, served, err)
	}
	for _, kn := range [][2]string{{"", "x"}, {"boundaries", ""}} {
		if _, _, err := db.BeginDataset(ctx, kn[0], kn[1], "fp"); providers.As(err).Kind != providers.KindInvalid {
			t.Errorf("BeginDataset(%q, %q): %v, want invalid", kn[0], kn[1], err)
		}
	}
	if _, err := db.PublishDataset(ctx, load, providers.Dataset{Meta: json.RawMessage(`[1]`)}); providers.As(err).Kind != providers.KindInvalid {
		t.Errorf("meta that is no object: %v, want invalid", err)
	}
}

// testDatasetsSuperseded: a load abandoned by a load of other files can
// neither write a checkpoint nor publish; what it tried to write is not
// kept.
func testDatasetsSuperseded(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	first, _, err := db.BeginDataset(ctx, "flood", "m", "fp1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.BeginDataset(ctx, "flood", "m", "fp2"); err != nil {
		t.Fatal(err)
	}
	err = db.StagePolygons(ctx, &first, providers.Checkpoint{Done: 1}, "hazard", []providers.LayerPolygon{squarePoly("z", 0, 0, 1, 1)})
	if err == nil {
		t.Fatal("a superseded load staged its batch")
	}
	if keys := at(t, db, "hazard", first.Generation, 0.5, 0.5); len(keys) != 0 {
		t.Errorf("the superseded batch was kept: %v", keys)
	}
	if _, err := db.PublishDataset(ctx, first, providers.Dataset{}); err == nil {
		t.Error("a superseded load was published")
	}
	if ds, _ := db.Datasets(ctx, "flood"); len(ds) != 0 {
		t.Errorf("Datasets = %+v, want none published", ds)
	}
}
