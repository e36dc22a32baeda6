package osmsql

import (
	"slices"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// A batch's places and addresses are written band by band (latitude x 200,
// truncated as the engines' band expression truncates it), west to east
// within a band, whatever their order in the batch.
func TestRowsAreWrittenInBandOrder(t *testing.T) {
	pts := []providers.Point{
		{Lat: 38.9051, Lng: -77.01}, // band 7781
		{Lat: 38.9001, Lng: -77.05}, // band 7780
		{Lat: 38.9049, Lng: -77.00}, // band 7780, east of the one above
		{Lat: 38.9101, Lng: -77.09}, // band 7782
		{Lat: 38.9052, Lng: -77.02}, // band 7781, west of the first
		{Lat: -33.8651, Lng: 151.2}, // a negative band: -6773, first
	}
	r := getRows()
	defer r.release()
	got := r.inBands(len(pts), func(i int) providers.Point { return pts[i] })
	if want := []int{5, 1, 2, 4, 0, 3}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if pts[0].Lat != 38.9051 {
		t.Fatal("the caller's points were moved")
	}
}

// The argument lists of one batch share one array, each list with room
// for its own values only: appending to one never writes into the next.
func TestArgumentListsKeepToTheirRoom(t *testing.T) {
	r := getRows()
	defer r.release()
	lists := r.lists(3, 2)
	for i := range lists {
		lists[i] = append(lists[i], i, i*10)
	}
	lists[0] = append(lists[0], "past its room") // reallocates, leaves list 1 alone
	if lists[1][0] != 1 || lists[1][1] != 10 || lists[2][1] != 20 {
		t.Fatalf("lists %v", lists)
	}
	// A later batch of another shape starts empty.
	again := r.lists(2, 3)
	if len(again) != 2 || len(again[0]) != 0 || cap(again[0]) != 3 {
		t.Fatalf("lists %v (cap %d)", again, cap(again[0]))
	}
}
