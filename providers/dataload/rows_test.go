package dataload_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
)

// point is a row of the test's kind of points: not a polygon.
type point struct {
	key  string
	size int
}

// points is a Source of rows: each of rows in the layer its prefix names
// ("a1" in layer "a").
type points struct{ rows []point }

func (p *points) Next() (dataload.Feature, error) {
	if len(p.rows) == 0 {
		return dataload.Feature{}, io.EOF
	}
	r := p.rows[0]
	p.rows = p.rows[1:]
	return dataload.Feature{Layer: r.key[:1], Row: r, Size: r.size}, nil
}
func (p *points) Finish() (providers.Dataset, []string, error) {
	return providers.Dataset{Vintage: "2026"}, nil, nil
}
func (p *points) Close() error { return nil }

// stagedBatch is what one call of the kind's Stage wrote.
type stagedBatch struct {
	layer string
	keys  []string
	done  int64
}

// pointsKind is a kind of rows with its own Stage and Drop, which record
// what they are given; the checkpoint is written through the store's
// polygon layers (a batch of no polygons), as the kind's own table would
// write it in its batch's transaction.
func pointsKind(rows []point, staged *[]stagedBatch, dropped *[]providers.Retired, keep *bool) dataload.Kind {
	return dataload.Kind{
		Name: "points",
		Open: func(dataload.Input) (dataload.Source, error) { return &points{rows: slices.Clone(rows)}, nil },
		Stage: func(ctx context.Context, st providers.DatasetStore, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, rs []any) error {
			b := stagedBatch{layer: layer, done: cp.Done}
			for _, r := range rs {
				b.keys = append(b.keys, r.(point).key)
			}
			*staged = append(*staged, b)
			return st.(providers.PolygonStore).StagePolygons(ctx, load, cp, "", nil)
		},
		Drop: func(ctx context.Context, st providers.DatasetStore, name string, generation int64) error {
			if *keep {
				return providers.ErrKeep
			}
			*dropped = append(*dropped, providers.Retired{Name: name, Generation: generation})
			return nil
		},
	}
}

// A kind of rows gets them from the writer in batches cut where the
// layer changes, where their sizes would pass BatchBytes and at
// BatchFeatures, each with the checkpoint after it; its former generation
// goes through its own Drop, and one it keeps stays retired for the next
// drop.
func TestRunWritesRowsThroughTheKindsStageAndDrop(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	rows := []point{{"a1", 10}, {"a2", 10}, {"a3", 10}, {"b1", 5}, {"b2", 5}, {"b3", 5}, {"b4", 5}}
	var (
		staged  []stagedBatch
		dropped []providers.Retired
		keep    bool
	)
	k := pointsKind(rows, &staged, &dropped, &keep)
	in := dataload.Input{Name: "p", Files: []string{filepath.Join("..", "geofile", "testdata", "tracts.zip")}}
	opts := dataload.Options{BatchBytes: 20, BatchFeatures: 3}
	res, err := dataload.Run(ctx, db, k, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []stagedBatch{{"a", []string{"a1", "a2"}, 2}, {"a", []string{"a3"}, 3}, {"b", []string{"b1", "b2", "b3"}, 6}, {"b", []string{"b4"}, 7}}
	if len(staged) != len(want) {
		t.Fatalf("staged %+v, want %+v", staged, want)
	}
	for i := range want {
		if staged[i].layer != want[i].layer || !slices.Equal(staged[i].keys, want[i].keys) || staged[i].done != want[i].done {
			t.Errorf("batch %d = %+v, want %+v", i, staged[i], want[i])
		}
	}
	if res.Dataset.Rows != 7 || res.Dataset.Kind != "points" || res.Dataset.Vintage != "2026" {
		t.Errorf("published %+v, want 7 rows of points", res.Dataset)
	}

	// Loaded again, the former generation is the kind's to drop, by name;
	// while it keeps it, it stays retired.
	keep = true
	again, err := dataload.Run(ctx, db, k, in, dataload.Options{Force: true, BatchBytes: 20, BatchFeatures: 3})
	if err != nil {
		t.Fatal(err)
	}
	retired := []providers.Retired{{Name: "p", Generation: res.Dataset.Generation}}
	if ret, _ := db.RetiredGenerations(ctx, "points"); !slices.Equal(ret, retired) {
		t.Errorf("a generation the kind keeps: retired %v, want %v", ret, retired)
	}
	keep = false
	if err := dataload.DropRetired(ctx, db, k); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dropped, retired) {
		t.Errorf("the kind's Drop was given %v, want %v", dropped, retired)
	}
	if ret, _ := db.RetiredGenerations(ctx, "points"); len(ret) != 0 || again.Dataset.Generation == res.Dataset.Generation {
		t.Errorf("after the drop: retired %v", ret)
	}
}

// onlyDatasets is a store of the lifecycle alone, with no polygon layers.
type onlyDatasets struct{ providers.DatasetStore }

// A kind of polygons needs a store of polygon layers: given another, Run
// says so and writes nothing.
func TestRunOfPolygonsRefusesAStoreWithoutLayers(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	_, err := dataload.Run(ctx, onlyDatasets{db}, kind(t, providers.KindBoundaries),
		dataload.Input{Name: "dc", Files: []string{tractsZip}}, dataload.Options{})
	if err == nil || !strings.Contains(err.Error(), "keeps no polygon layers") {
		t.Fatalf("Run on a store without polygon layers: %v, want it refused", err)
	}
	if ds, _ := db.Datasets(ctx, ""); len(ds) != 0 {
		t.Errorf("Datasets = %+v, want nothing written", ds)
	}
	if errors.Is(err, dataload.ErrEmpty) {
		t.Errorf("refused as empty: %v", err)
	}
}
