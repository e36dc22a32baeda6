package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/store/engine"
)

// The generated extract is one the loader reads whole: every feature of
// the mix kept, none skipped, its box and date from the header.
func TestGeneratedExtractLoadsWhole(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.osm.pbf")
	const features = 20_000
	if err := writeExtract(file, features); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := engine.Open(ctx, filepath.Join(dir, "p.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := osmextract.Load(ctx, db, file, osmextract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, p, a := extractCounts(features)
	x := res.Extract
	if x.Buildings != int64(b) || x.Places != int64(p) || x.Addresses != int64(a) || x.Skipped != 0 {
		t.Errorf("loaded %+v; want %d buildings, %d places, %d addresses, none skipped", x, b, p, a)
	}
	want := providers.BBox{South: extractBox[0], North: extractBox[1], West: extractBox[2], East: extractBox[3]}
	if x.Coverage != want || x.Date() != "2026-11-20" {
		t.Errorf("coverage %+v of %s; want %+v of 2026-11-20", x.Coverage, x.Date(), want)
	}
	if res.Facts == nil || res.Facts.Rows != int64(b) {
		t.Errorf("facts dataset %+v; want the %d buildings' rows", res.Facts, b)
	}
}
