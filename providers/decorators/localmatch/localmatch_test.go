package localmatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/addrfile"
	"github.com/propertyd/propertyd/providers/decorators/localmatch"
)

// store is an addresses store in memory: the datasets served and their
// points and ranges, read as the engines read them (exact fields, the
// number between From and To either way round).
type store struct {
	datasets []providers.Dataset
	points   []providers.AddressPoint
	ranges   []providers.AddressRange
	err      error
	reads    atomic.Int64
}

func (s *store) Datasets(ctx context.Context, kind string) ([]providers.Dataset, error) {
	var out []providers.Dataset
	for _, d := range s.datasets {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out, nil
}

func (s *store) DatasetsVersion(ctx context.Context) (string, error) {
	return strconv.Itoa(len(s.datasets)), nil
}

func (s *store) AddressPointsAt(ctx context.Context, gens []int64, state, street, unit string) ([]providers.AddressPoint, error) {
	s.reads.Add(1)
	if s.err != nil {
		return nil, s.err
	}
	var out []providers.AddressPoint
	for _, p := range s.points {
		if slices.Contains(gens, p.Generation) && p.State == state && p.Street == street && p.Unit == unit {
			out = append(out, p)
		}
	}
	return out, nil
}

func (s *store) AddressRangesOn(ctx context.Context, gens []int64, state, name string, number int64) ([]providers.AddressRange, error) {
	s.reads.Add(1)
	if s.err != nil {
		return nil, s.err
	}
	var out []providers.AddressRange
	for _, r := range s.ranges {
		lo, hi := min(r.From, r.To), max(r.From, r.To)
		if slices.Contains(gens, r.Generation) && r.State == state && r.Name == name && lo <= number && number <= hi {
			out = append(out, r)
		}
	}
	return out, nil
}

// next is the remote geocoder behind, counting its calls, and a Locator
// that gives every point the same county.
type next struct{ calls, located atomic.Int64 }

func (n *next) Geocode(ctx context.Context, a providers.Address) (providers.Location, error) {
	n.calls.Add(1)
	return providers.Location{MatchedAddress: "REMOTE", Precision: providers.PrecisionCensus}, nil
}

func (n *next) Locate(ctx context.Context, loc *providers.Location, remote bool) error {
	n.located.Add(1)
	loc.County, loc.FIPSCode, loc.CensusTract = "Queens County", "36081", "044601"
	return nil
}

func dataset(name string, gen int64, states ...string) providers.Dataset {
	meta, _ := json.Marshal(addrfile.Meta{States: states})
	return providers.Dataset{Kind: providers.KindAddresses, Name: name, Generation: gen, Meta: meta}
}

// queens is a dataset of points in Queens (generation 1) and one of TIGER
// ranges (generation 2).
func queens() *store {
	return &store{
		datasets: []providers.Dataset{dataset("oa-queens", 1, "NY"), dataset("tl_2023_36081_addrfeat", 2, "NY")},
		points: []providers.AddressPoint{
			{Street: "117-11 SUTPHIN BLVD", City: "JAMAICA", State: "NY", Zip: "11434", Point: providers.Point{Lat: 40.6781, Lng: -73.7926}, Key: "a", Generation: 1},
			{Street: "117-11 SUTPHIN BLVD", Unit: "APT 2", City: "JAMAICA", State: "NY", Zip: "11434", Point: providers.Point{Lat: 40.6782, Lng: -73.7927}, Key: "b", Generation: 1},
			{Street: "10 MAIN ST", City: "FLUSHING", State: "NY", Zip: "11354", Point: providers.Point{Lat: 40.76, Lng: -73.83}, Key: "c", Generation: 1},
			{Street: "10 MAIN ST", City: "JAMAICA", State: "NY", Zip: "11432", Point: providers.Point{Lat: 40.70, Lng: -73.80}, Key: "d", Generation: 1},
		},
		ranges: []providers.AddressRange{
			// 100 to 198 on the left of a line running north, 0.01 degrees.
			{Name: "ELM ST", State: "NY", Zip: "11375", From: 100, To: 198, Parity: 'E', Side: 'L',
				Line: []providers.Point{{Lat: 40.72, Lng: -73.84}, {Lat: 40.73, Lng: -73.84}}, Key: "1L", Generation: 2},
			{Name: "ELM ST", State: "NY", Zip: "11375", From: 101, To: 199, Parity: 'O', Side: 'R',
				Line: []providers.Point{{Lat: 40.72, Lng: -73.84}, {Lat: 40.73, Lng: -73.84}}, Key: "1R", Generation: 2},
			// The same numbers in another ZIP code, farther east.
			{Name: "ELM ST", State: "NY", Zip: "11415", From: 100, To: 198, Parity: 'E', Side: 'L',
				Line: []providers.Point{{Lat: 40.70, Lng: -73.82}, {Lat: 40.71, Lng: -73.82}}, Key: "2L", Generation: 2},
		},
	}
}

func TestAnAddressPointIsARooftopMatchWithNoRemoteCall(t *testing.T) {
	st, nx := queens(), &next{}
	g := localmatch.New(st, nx, false)
	loc, err := g.Geocode(context.Background(), providers.Address{Street: "117-11 Sutphin Boulevard", City: "Jamaica", State: "NY", Zip: "11434"})
	if err != nil {
		t.Fatal(err)
	}
	if nx.calls.Load() != 0 {
		t.Errorf("%d remote calls, want 0", nx.calls.Load())
	}
	want := providers.Location{MatchedAddress: "117-11 SUTPHIN BLVD, JAMAICA, NY, 11434", Street: "117-11 SUTPHIN BLVD",
		City: "JAMAICA", State: "NY", Zip: "11434", Point: providers.Point{Lat: 40.6781, Lng: -73.7926},
		County: "Queens County", FIPSCode: "36081", CensusTract: "044601",
		Precision: providers.PrecisionRooftop, Dataset: "addresses/oa-queens"}
	if !equal(loc, want) {
		t.Errorf("Geocode =\n%+v\nwant\n%+v", loc, want)
	}
	if c := g.Counts(); c.Local != 1 || c.Remote != 0 {
		t.Errorf("Counts = %+v, want 1 local", c)
	}
}

func TestAUnitHasItsOwnPointElseItsBuildings(t *testing.T) {
	st := queens()
	g := localmatch.New(st, &next{}, false)
	loc, err := g.Geocode(context.Background(), providers.Address{Street: "117-11 Sutphin Blvd", Unit: "Apt 2", State: "NY", Zip: "11434"})
	if err != nil || loc.Point.Lat != 40.6782 {
		t.Errorf("unit 2: %+v, %v; want its own point", loc.Point, err)
	}
	loc, err = g.Geocode(context.Background(), providers.Address{Street: "117-11 Sutphin Blvd Apt 9", State: "NY", Zip: "11434"})
	if err != nil || loc.Point.Lat != 40.6781 || loc.Precision != providers.PrecisionRooftop {
		t.Errorf("unit 9: %+v, %v; want the building's point", loc, err)
	}
}

func TestSeveralPointsOfDifferentAddressesAreOthers(t *testing.T) {
	g := localmatch.New(queens(), &next{}, false)
	loc, err := g.Geocode(context.Background(), providers.Address{Street: "10 Main St", State: "NY"})
	if err != nil {
		t.Fatal(err)
	}
	if loc.City != "FLUSHING" || len(loc.Others) != 1 || loc.Others[0].City != "JAMAICA" || loc.Others[0].County == "" {
		t.Errorf("Geocode = %+v, want Flushing then Jamaica, both located", loc)
	}
	// The ZIP code or the city decides.
	for _, a := range []providers.Address{
		{Street: "10 Main St", State: "NY", Zip: "11432"},
		{Street: "10 Main St", City: "Jamaica", State: "NY"},
	} {
		loc, err := g.Geocode(context.Background(), a)
		if err != nil || loc.City != "JAMAICA" || loc.Others != nil {
			t.Errorf("Geocode(%+v) = %+v, %v; want Jamaica alone", a, loc, err)
		}
	}
}

func TestAPointInAnotherZIPIsNotTheAddress(t *testing.T) {
	st, nx := queens(), &next{}
	g := localmatch.New(st, nx, false)
	loc, err := g.Geocode(context.Background(), providers.Address{Street: "10 Main St", State: "NY", Zip: "11101"})
	if err != nil || loc.MatchedAddress != "REMOTE" || nx.calls.Load() != 1 {
		t.Errorf("Geocode = %+v, %v after %d calls; want the remote geocoder's", loc, err, nx.calls.Load())
	}
}

func TestARangeInterpolatesOnItsSideAndParity(t *testing.T) {
	st, nx := queens(), &next{}
	g := localmatch.New(st, nx, false)
	loc, err := g.Geocode(context.Background(), providers.Address{Street: "149 Elm Street", City: "Forest Hills", State: "NY", Zip: "11375"})
	if err != nil {
		t.Fatal(err)
	}
	if nx.calls.Load() != 0 {
		t.Errorf("%d remote calls, want 0", nx.calls.Load())
	}
	if loc.Precision != providers.PrecisionRangeInterpolation || loc.Dataset != "addresses/tl_2023_36081_addrfeat" ||
		loc.MatchedAddress != "149 ELM ST, , NY, 11375" || loc.City != "FOREST HILLS" || loc.Others != nil {
		t.Errorf("Geocode = %+v", loc)
	}
	// Odd: the right side of a line running north is east of it, half
	// way along.
	if math.Abs(loc.Point.Lat-40.725) > 0.0002 || loc.Point.Lng <= -73.84 {
		t.Errorf("point %+v, want about 40.725 and east of -73.84", loc.Point)
	}
	even, err := g.Geocode(context.Background(), providers.Address{Street: "150 Elm St", State: "NY", Zip: "11375"})
	if err != nil || even.Point.Lng >= -73.84 {
		t.Errorf("150: %+v, %v; want west of the line", even.Point, err)
	}
}

func TestRangesInSeveralZIPsAskTheGeocoderUnlessLocalOnly(t *testing.T) {
	st, nx := queens(), &next{}
	loc, err := localmatch.New(st, nx, false).Geocode(context.Background(), providers.Address{Street: "150 Elm St", City: "Queens", State: "NY"})
	if err != nil || loc.MatchedAddress != "REMOTE" {
		t.Errorf("auto: %+v, %v; want the remote geocoder's", loc, err)
	}
	loc, err = localmatch.New(st, nx, true).Geocode(context.Background(), providers.Address{Street: "150 Elm St", City: "Queens", State: "NY"})
	if err != nil || len(loc.Others) != 1 || loc.Zip == loc.Others[0].Zip {
		t.Errorf("local: %+v, %v; want two ZIP codes for the service to call ambiguous", loc, err)
	}
	if nx.calls.Load() != 1 {
		t.Errorf("%d remote calls, want 1", nx.calls.Load())
	}
}

func TestLocalOnlyIsNotFoundWithoutACall(t *testing.T) {
	st, nx := queens(), &next{}
	g := localmatch.New(st, nx, true)
	for _, a := range []providers.Address{
		{Street: "1 Nowhere Ln", State: "NY", Zip: "11375"},
		{Street: "1600 Pennsylvania Ave NW", State: "DC"},
	} {
		_, err := g.Geocode(context.Background(), a)
		if !errors.Is(err, providers.ErrNoMatch) {
			t.Errorf("Geocode(%+v) = %v, want ErrNoMatch", a, err)
		}
	}
	if nx.calls.Load() != 0 {
		t.Errorf("%d remote calls, want 0", nx.calls.Load())
	}
	if c := g.Counts(); c.Local != 0 || c.Remote != 2 {
		t.Errorf("Counts = %+v, want 2 not local", c)
	}
}

func TestAStateWithNoDatasetIsNotRead(t *testing.T) {
	st, nx := queens(), &next{}
	loc, err := localmatch.New(st, nx, false).Geocode(context.Background(), providers.Address{Street: "1600 Pennsylvania Ave NW", State: "DC"})
	if err != nil || loc.MatchedAddress != "REMOTE" || st.reads.Load() != 0 {
		t.Errorf("Geocode = %+v, %v after %d reads; want the remote geocoder's and no read", loc, err, st.reads.Load())
	}
}

func TestTheStoresErrorIsNoReasonToAskUpstream(t *testing.T) {
	st, nx := queens(), &next{}
	st.err = providers.Errorf(providers.KindUnavailable, providers.CodeDatabaseUnavailable, "down")
	_, err := localmatch.New(st, nx, false).Geocode(context.Background(), providers.Address{Street: "10 Main St", State: "NY"})
	if providers.CodeOf(err) != providers.CodeDatabaseUnavailable || nx.calls.Load() != 0 {
		t.Errorf("err = %v after %d calls; want database_unavailable and no call", err, nx.calls.Load())
	}
}

func TestInputTheLookupWouldRefuseGoesToTheGeocoder(t *testing.T) {
	st, nx := queens(), &next{}
	g := localmatch.New(st, nx, false)
	for _, a := range []providers.Address{
		{Street: "PO Box 12", State: "NY"},
		{Street: "10 Main St", State: "Atlantis"},
		{Street: "10 Main St'; DROP TABLE address_points; --", State: "NY"},
		{Street: "１０ Ｍａｉｎ Ｓｔ", State: "NY"},
	} {
		if _, err := g.Geocode(context.Background(), a); err != nil {
			t.Errorf("Geocode(%+v) = %v", a, err)
		}
	}
	if nx.calls.Load() != 4 {
		t.Errorf("%d remote calls, want 4", nx.calls.Load())
	}
}

func equal(a, b providers.Location) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// batchNext is a batch geocoder that records what it was sent.
type batchNext struct{ sent [][]providers.Address }

func (b *batchNext) GeocodeAll(ctx context.Context, addrs []providers.Address) ([]providers.BatchMatch, error) {
	b.sent = append(b.sent, addrs)
	out := make([]providers.BatchMatch, len(addrs))
	for i := range addrs {
		out[i] = providers.BatchMatch{Location: providers.Location{MatchedAddress: "REMOTE " + strconv.Itoa(i)}}
	}
	return out, nil
}

func TestABatchSendsOnlyWhatTheFilesDoNotHold(t *testing.T) {
	bn := &batchNext{}
	addrs := []providers.Address{
		{Street: "1 Nowhere Ln", State: "NY", Zip: "11375"},
		{Street: "117-11 Sutphin Blvd", State: "NY", Zip: "11434"},
		{Street: "2 Nowhere Ln", State: "NY", Zip: "11375"},
	}
	ms, err := localmatch.New(queens(), &next{}, false).Batch(bn).GeocodeAll(context.Background(), addrs)
	if err != nil {
		t.Fatal(err)
	}
	if len(bn.sent) != 1 || len(bn.sent[0]) != 2 || bn.sent[0][1].Street != "2 Nowhere Ln" {
		t.Fatalf("sent %v; want one batch of the two addresses not loaded", bn.sent)
	}
	if ms[0].Location.MatchedAddress != "REMOTE 0" || ms[1].Location.Precision != providers.PrecisionRooftop || ms[2].Location.MatchedAddress != "REMOTE 1" {
		t.Errorf("matches %+v; want each in its address's place", ms)
	}
	ms, err = localmatch.New(queens(), nil, true).Batch(nil).GeocodeAll(context.Background(), addrs)
	if err != nil || !errors.Is(ms[0].Err, providers.ErrNoMatch) || ms[1].Err != nil || !errors.Is(ms[2].Err, providers.ErrNoMatch) {
		t.Errorf("local only: %+v, %v; want the loaded address alone matched", ms, err)
	}
}
