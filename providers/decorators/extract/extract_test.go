package extract_test

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/extract"
)

// publishingPlaces serves the extract dc, whose load of a newer date is
// published right after the first read: one school near the point before,
// one bank after.
type publishingPlaces struct{ reads int }

var _ extract.Places = (*publishingPlaces)(nil)

func (f *publishingPlaces) OSMPlacesNear(_ context.Context, c providers.Circle, pf providers.PlaceFilter) (*providers.OSMExtract, []providers.OSMPlace, error) {
	f.reads++
	x := &providers.OSMExtract{Name: "dc", Generation: 1, Timestamp: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}
	pl := providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: 1}, Category: "schools", Type: "school", Name: "Old School",
		NameKey: "old school", Point: c.Center}
	if f.reads > 1 {
		x = &providers.OSMExtract{Name: "dc", Generation: 2, Timestamp: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
		pl = providers.OSMPlace{OSMRef: providers.OSMRef{Type: "node", ID: 2}, Category: "banks", Type: "bank", Name: "New Bank",
			NameKey: "new bank", Point: c.Center}
	}
	if !pf.Selects(c.Center, pl) {
		return x, nil, nil
	}
	return x, []providers.OSMPlace{pl}, nil
}

func (f *publishingPlaces) OSMExtracts(context.Context) ([]providers.OSMExtract, error) {
	return nil, nil
}

// TestALoadPublishedBetweenReadsIsReadWhole: an answer read in several
// reads of the extract (a capped one) is read again when a newer load of
// the extract was published between them: it lists the new extract's
// places alone, with its date.
func TestALoadPublishedBetweenReadsIsReadWhole(t *testing.T) {
	a := &extract.Amenities{Local: &publishingPlaces{}, MaxResults: 20}
	got, err := a.Amenities(context.Background(), providers.Point{Lat: 38.9, Lng: -77.03}, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount != 1 || len(got.Categories["banks"]) != 1 || got.Vintage != "2026-11-20" {
		t.Errorf("answer %+v: want the new extract's bank alone, of 2026-11-20", got)
	}
}
