package dataload_test

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/floodmap"
	"github.com/propertyd/propertyd/providers/tiger"
	"github.com/propertyd/propertyd/store/engine"
)

// The fixtures of package geofile: four DC tracts (TIGER/Line's columns,
// NAD83), one with a hole, and an NFHL download of four hazard areas and a
// panel (their README says how they were written).
var (
	tractsZip = filepath.Join("..", "geofile", "testdata", "tracts.zip")
	tractsGeo = filepath.Join("..", "geofile", "testdata", "tracts.geojson")
	nfhlZip   = filepath.Join("..", "geofile", "testdata", "nfhl.zip")
)

func open(t *testing.T) engine.Store {
	t.Helper()
	db, err := engine.Open(context.Background(), filepath.Join(t.TempDir(), "d.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func kind(t *testing.T, name string) dataload.Kind {
	t.Helper()
	k, ok := dataload.Lookup(name)
	if !ok {
		t.Fatalf("no kind %s in the catalogue", name)
	}
	return k
}

// tractAt is the keys of the tracts of the served boundaries dataset name
// at a point.
func tractsAt(t *testing.T, db engine.Store, name string, lat, lng float64) []string {
	t.Helper()
	ctx := context.Background()
	ds, err := db.Datasets(ctx, providers.KindBoundaries)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Name != name {
			continue
		}
		ps, err := db.PolygonsAt(ctx, tiger.LayerTract, d.Generation, providers.Point{Lat: lat, Lng: lng})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, p := range ps {
			keys = append(keys, p.Key)
		}
		return keys
	}
	t.Fatalf("no boundaries dataset %s served", name)
	return nil
}

func TestCatalogueHoldsBoundariesAndFlood(t *testing.T) {
	var names []string
	for _, k := range dataload.Kinds() {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{providers.KindBoundaries, providers.KindFlood}) {
		t.Errorf("Kinds() = %v", names)
	}
}

// A load publishes its tracts under a new generation; the same files again
// are nothing to do; forced, they are a new generation and the former one
// is dropped.
func TestRunPublishesSkipsTheSameFilesAndDropsTheFormer(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	k := kind(t, providers.KindBoundaries)
	in := dataload.Input{Name: "dc", Files: []string{tractsZip}}
	res, err := dataload.Run(ctx, db, k, in, dataload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.Rows != 4 || res.Read != 4 || res.Resumed || res.AlreadyLoaded || res.Vertices == 0 {
		t.Errorf("Run = %+v", res)
	}
	// Census Tract 62.02 has a hole (the fixture's README): its inside is
	// in the tract, the hole in none of the four.
	if got := tractsAt(t, db, "dc", 38.896, -77.0175); !slices.Equal(got, []string{"11001006202"}) {
		t.Errorf("tracts at 62.02's inside = %v", got)
	}
	if got := tractsAt(t, db, "dc", 38.9, -77.0125); len(got) != 0 {
		t.Errorf("tracts in 62.02's hole = %v, want none", got)
	}
	again, err := dataload.Run(ctx, db, k, in, dataload.Options{})
	if err != nil || !again.AlreadyLoaded || again.Dataset.Generation != res.Dataset.Generation {
		t.Fatalf("the same files again: %+v, %v; want nothing to do", again, err)
	}
	forced, err := dataload.Run(ctx, db, k, in, dataload.Options{Force: true})
	if err != nil || forced.Dataset.Generation <= res.Dataset.Generation {
		t.Fatalf("forced: %+v, %v", forced, err)
	}
	old, err := db.PolygonsAt(ctx, tiger.LayerTract, res.Dataset.Generation, providers.Point{Lat: 38.896, Lng: -77.0175})
	if err != nil || len(old) != 0 {
		t.Errorf("the former generation still holds %v (%v)", old, err)
	}
	if ret, _ := db.RetiredGenerations(ctx, providers.KindBoundaries); len(ret) != 0 {
		t.Errorf("retired generations left: %v", ret)
	}
}

// cutting fails every StagePolygons after the first n, as a load killed
// between two transactions would stop.
type cutting struct {
	engine.Store
	n int
}

var errCut = errors.New("cut")

func (c *cutting) StagePolygons(ctx context.Context, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, polys []providers.LayerPolygon) error {
	if c.n == 0 {
		return errCut
	}
	c.n--
	return c.Store.StagePolygons(ctx, load, cp, layer, polys)
}

// A load cut after two batches of one feature resumes at its checkpoint:
// every tract is served once, none twice, and the failures file has each
// broken feature once.
func TestRunResumesAtItsCheckpointWithNoFeatureTwice(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	dir := t.TempDir()
	// The fixture's four tracts, the second with an open ring: three to
	// keep and one to refuse.
	raw, err := os.ReadFile(tractsGeo)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(raw), `[[-77.02, 38.895], [-77.005, 38.895], [-77.005, 38.905], [-77.02, 38.905], [-77.02, 38.895]]`,
		`[[-77.02, 38.895], [-77.005, 38.895], [-77.005, 38.905], [-77.02, 38.905], [-77.02, 38.9]]`, 1)
	if text == string(raw) {
		t.Fatal("the fixture changed: its first tract's ring is not where the test breaks it")
	}
	file := filepath.Join(dir, "tl_2020_11_tract.geojson")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	fails := filepath.Join(dir, "f.csv")
	k := kind(t, providers.KindBoundaries)
	in := dataload.Input{Name: "dc", Files: []string{file}}
	opts := dataload.Options{Failures: fails, BatchFeatures: 1}
	if _, err := dataload.Run(ctx, &cutting{Store: db, n: 2}, k, in, opts); !errors.Is(err, errCut) {
		t.Fatalf("cut run: %v, want the cut", err)
	}
	if ds, _ := db.Datasets(ctx, ""); len(ds) != 0 {
		t.Fatalf("a cut load was served: %+v", ds)
	}
	res, err := dataload.Run(ctx, db, k, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.Dataset.Rows != 3 || res.Dataset.Failed != 1 || res.Dataset.Vintage != "2020" {
		t.Errorf("resumed run: %+v", res)
	}
	for _, c := range []struct {
		lat, lng float64
		want     string
	}{{38.905, -77.065, "11001000101"}, {38.862, -77.048, "11001980000"}, {38.862, -76.99, "11001007401"}, {38.896, -77.0175, ""}} {
		got := tractsAt(t, db, "dc", c.lat, c.lng)
		if want := []string{c.want}; c.want == "" && len(got) != 0 || c.want != "" && !slices.Equal(got, want) {
			t.Errorf("tracts at %v,%v: %v, want %q once", c.lat, c.lng, got, c.want)
		}
	}
	f, err := os.Open(fails)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !slices.Equal(lines[0], dataload.FailuresHeader) || lines[1][1] != "1" || lines[1][3] != "no" ||
		!strings.Contains(lines[1][4], "not closed") {
		t.Errorf("failures file:\n%v\nwant the header and the first feature's open ring once", lines)
	}
}

// Files of the wrong kind, or not spatial at all, are refused before
// anything is written; what is served stays.
func TestRunRefusesTheWrongFilesAndKeepsWhatIsServed(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	if _, err := dataload.Run(ctx, db, kind(t, providers.KindFlood), dataload.Input{Name: "m", Files: []string{nfhlZip}}, dataload.Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := db.Datasets(ctx, "")
	notText := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notText, []byte("hello"), 0o644)
	for _, c := range []struct {
		kind  string
		files []string
		cause error
	}{
		{providers.KindFlood, []string{tractsZip}, floodmap.ErrNotFlood},
		{providers.KindBoundaries, []string{nfhlZip}, nil}, // two layers: the .zip is no tract file
		{providers.KindFlood, []string{notText}, nil},
	} {
		_, err := dataload.Run(ctx, db, kind(t, c.kind), dataload.Input{Name: "m", Files: c.files}, dataload.Options{})
		var refused *dataload.Refused
		if !errors.As(err, &refused) || (c.cause != nil && !errors.Is(err, c.cause)) {
			t.Errorf("%s %v: %v, want it refused (%v)", c.kind, c.files, err, c.cause)
		}
	}
	after, _ := db.Datasets(ctx, "")
	if len(after) != 1 || after[0].Generation != before[0].Generation {
		t.Errorf("served after the refusals: %+v, want %+v", after, before)
	}
}

// A feature whose points are no longitudes and latitudes (a projected
// file without its .prj, read as degrees) is refused alone: the features
// of its batch are kept.
func TestRunRefusesAFeatureOfBadCoordinatesAlone(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	raw, err := os.ReadFile(tractsGeo)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), `[-76.995, 38.855]`, `[-8565000.5, 4702000.5]`)
	if text == string(raw) {
		t.Fatal("the fixture changed: its last tract does not start where the test breaks it")
	}
	file := filepath.Join(t.TempDir(), "tracts.geojson")
	os.WriteFile(file, []byte(text), 0o644)
	fails := filepath.Join(t.TempDir(), "f.csv")
	res, err := dataload.Run(ctx, db, kind(t, providers.KindBoundaries), dataload.Input{Name: "dc", Files: []string{file}},
		dataload.Options{Failures: fails})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.Rows != 3 || res.Dataset.Failed != 1 {
		t.Errorf("Run = %d kept, %d failed; want 3 and 1", res.Dataset.Rows, res.Dataset.Failed)
	}
	out, _ := os.ReadFile(fails)
	if !strings.Contains(string(out), "tracts.geojson,4,11001007401,no,not a valid shape") {
		t.Errorf("failures file:\n%s", out)
	}
}
