package dataload_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
)

// lister serves one flood dataset whose generation moves on each time
// publish is called; versions counts the calls of DatasetsVersion.
type lister struct {
	gen, lists, versions int
}

func (l *lister) Datasets(ctx context.Context, kind string) ([]providers.Dataset, error) {
	l.lists++
	return []providers.Dataset{{Kind: kind, Name: "m", Generation: int64(l.gen),
		Coverage: providers.BBox{West: -78, South: 38, East: -77, North: 39}}}, nil
}

func (l *lister) DatasetsVersion(ctx context.Context) (string, error) {
	l.versions++
	return strconv.Itoa(l.gen), nil
}

func TestServedListsAgainOnlyWhenAPublicationChangedIt(t *testing.T) {
	ctx := context.Background()
	l := &lister{gen: 1}
	s := &dataload.Served{Store: l, Kind: providers.KindFlood}
	in := providers.Point{Lat: 38.5, Lng: -77.5}
	var got []int64
	read := func(ds []providers.Dataset) error { got = append(got, ds[0].Generation); return nil }
	for range 3 {
		if ok, err := s.Read(ctx, in, read); !ok || err != nil {
			t.Fatalf("Read inside the coverage: %v, %v", ok, err)
		}
	}
	if l.lists != 1 {
		t.Errorf("three reads listed the datasets %d times, want once", l.lists)
	}
	if ok, _ := s.Read(ctx, providers.Point{Lat: 40, Lng: -77.5}, read); ok {
		t.Error("a point outside every coverage was read")
	}
	// A publication between the read and its check: read again, from the
	// new generation.
	got = nil
	first := true
	ok, err := s.Read(ctx, in, func(ds []providers.Dataset) error {
		got = append(got, ds[0].Generation)
		if first {
			first = false
			l.gen = 2
		}
		return nil
	})
	if !ok || err != nil || len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("a read overtaken by a publication: %v, %v, read generations %v; want 1 then 2", ok, err, got)
	}
	// A load published at every read: given up, unavailable.
	_, err = s.Read(ctx, in, func([]providers.Dataset) error { l.gen++; return nil })
	if providers.KindOf(err) != providers.KindUnavailable {
		t.Errorf("reads always overtaken: %v, want unavailable", err)
	}
}

// List gives every dataset, wherever it lies, listed again only when a
// publication changed them.
func TestServedListGivesEveryDatasetFromTheSameListing(t *testing.T) {
	ctx := context.Background()
	l := &lister{gen: 1}
	s := &dataload.Served{Store: l, Kind: providers.KindBoundaries}
	for range 2 {
		ds, err := s.List(ctx)
		if err != nil || len(ds) != 1 || ds[0].Generation != 1 {
			t.Fatalf("List = %v, %v; want the one dataset", ds, err)
		}
	}
	if _, err := s.Read(ctx, providers.Point{Lat: 38.5, Lng: -77.5}, func([]providers.Dataset) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if l.lists != 1 {
		t.Errorf("two lists and a read listed the datasets %d times, want once", l.lists)
	}
	l.gen = 2
	if ds, _ := s.List(ctx); len(ds) != 1 || ds[0].Generation != 2 || l.lists != 2 {
		t.Errorf("after a publication List = %v (%d listings), want generation 2 listed again", ds, l.lists)
	}
}
