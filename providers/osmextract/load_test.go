package osmextract_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/store"
	"github.com/propertyd/propertyd/store/postgres"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// The fixtures are testdata/franklin.osm, written by hand in the OSM wiki's
// "OSM XML" format, and testdata/franklin.osm.pbf, the same data converted
// to the wiki's "PBF Format" with osmium (testdata/README.md has the
// command).
const (
	fixturePBF = "testdata/franklin.osm.pbf"
	fixtureXML = "testdata/franklin.osm"
)

// memStore is a providers.OSMStore keeping what a load wrote, by element,
// for tests that look at the features themselves.
type memStore struct {
	places    map[string]providers.OSMPlace
	buildings map[string]providers.OSMBuilding
	addresses map[string]providers.OSMAddress
	load      providers.OSMLoad
	served    *providers.OSMExtract
	// failAfter makes PutOSM fail once it has written that many batches
	// (0: never), as a kill would stop the load.
	failAfter, puts int
}

var _ providers.OSMStore = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{places: map[string]providers.OSMPlace{}, buildings: map[string]providers.OSMBuilding{},
		addresses: map[string]providers.OSMAddress{}}
}

func (m *memStore) BeginOSM(_ context.Context, name, fp string) (providers.OSMLoad, *providers.OSMExtract, error) {
	if m.load.Fingerprint == fp {
		m.load.Resumed = true
		return m.load, m.served, nil
	}
	if m.served != nil && m.served.Fingerprint == fp {
		return providers.OSMLoad{}, m.served, nil
	}
	m.load = providers.OSMLoad{Name: name, Generation: 1, Fingerprint: fp}
	return m.load, m.served, nil
}

func (m *memStore) PutOSM(_ context.Context, load *providers.OSMLoad, b providers.OSMBatch, done int64) error {
	if m.failAfter > 0 && m.puts >= m.failAfter {
		return errors.New("killed")
	}
	m.puts++
	for _, p := range b.Places {
		m.places[p.Key()] = p
	}
	for _, x := range b.Buildings {
		m.buildings[x.Key()] = x
	}
	for _, a := range b.Addresses {
		m.addresses[a.Key()] = a
	}
	load.Done, m.load.Done = done, done
	return nil
}

func (m *memStore) SettleOSM(_ context.Context, load *providers.OSMLoad) error {
	load.Counts = &providers.OSMCounts{Places: int64(len(m.places)), Buildings: int64(len(m.buildings)),
		Addresses: int64(len(m.addresses))}
	return nil
}

func (m *memStore) PublishOSM(_ context.Context, load providers.OSMLoad, x providers.OSMExtract) (providers.OSMExtract, error) {
	x.Name, x.Generation, x.Fingerprint = load.Name, load.Generation, load.Fingerprint
	if load.Counts == nil {
		return x, errors.New("published before it was settled")
	}
	x.Places, x.Buildings, x.Addresses = load.Counts.Places, load.Counts.Buildings, load.Counts.Addresses
	m.served, m.load = &x, providers.OSMLoad{}
	return x, nil
}

func (m *memStore) OSMExtracts(context.Context) ([]providers.OSMExtract, error) { return nil, nil }

func (m *memStore) DropOSM(context.Context, string, int64) error { return nil }

func (m *memStore) OSMPlacesNear(context.Context, providers.Circle, providers.PlaceFilter) (*providers.OSMExtract, []providers.OSMPlace, error) {
	return nil, nil, nil
}

func (m *memStore) OSMAddressNearest(context.Context, providers.Point, float64, func(providers.OSMAddress) bool) (*providers.OSMExtract, providers.OSMAddress, float64, error) {
	return nil, providers.OSMAddress{}, 0, providers.NotFound(providers.CodeSectionNotFound, "no address point")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestThePBFFixtureLoadsPlacesBuildingsAndAddresses(t *testing.T) {
	st := newMemStore()
	res, err := osmextract.Load(context.Background(), st, fixturePBF, osmextract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := res.Extract
	if x.Name != "franklin" || x.Date() != "2026-11-20" || !x.Timestamp.Equal(time.Date(2026, 11, 20, 21, 21, 2, 0, time.UTC)) {
		t.Errorf("extract %q dated %s, want franklin of the header's 2026-11-20T21:21:02Z", x.Name, x.Timestamp)
	}
	if want := (providers.BBox{West: -77.07, South: 38.87, East: -76.99, North: 38.93}); x.Coverage != want {
		t.Errorf("coverage %+v, want the header's bounding box %+v", x.Coverage, want)
	}
	// The ATM and the pharmacy are no amenity; the second Bean Counter is
	// kept here and de-duplicated when answering.
	wantPlaces := map[string]string{
		"node/101": "schools/school/Garfield Elementary School", "node/102": "restaurants/cafe/Bean Counter",
		"node/103": "restaurants/cafe/Bean Counter", "node/104": "transit/bus_stop/Bus stop",
		"node/105": "grocery/supermarket/Giant", "node/106": "banks/bank/First Federal",
		"node/109": "restaurants/restaurant/Far Away Diner", "node/111": "transit/subway_entrance/McPherson Square",
		"way/201": "parks/park/Franklin Square", "way/204": "grocery/supermarket/Corner Market",
		"relation/301": "parks/park/Rock Creek Meadow", "relation/302": "hospitals/hospital/Example Hospital",
	}
	got := map[string]string{}
	for k, p := range st.places {
		got[k] = p.Category + "/" + p.Type + "/" + p.Name
	}
	if !reflect.DeepEqual(got, wantPlaces) {
		t.Errorf("places = %v\nwant %v", got, wantPlaces)
	}
	if p := st.places["way/201"]; p.Point != (providers.Point{Lat: 38.9015, Lng: -77.028}) || p.Version != 2 {
		t.Errorf("the park way is at %+v (version %d), want its box's center 38.9015,-77.028, version 2", p.Point, p.Version)
	}
	if p := st.places["relation/301"]; p.Point != (providers.Point{Lat: 38.89525, Lng: -77.039}) {
		t.Errorf("the park relation is at %+v, want its members' box's center 38.89525,-77.039", p.Point)
	}
	if b := st.buildings["way/203"]; b.Building != "apartments" || b.Levels == nil || *b.Levels != 8 ||
		b.Flats == nil || *b.Flats != 120 || b.StartDate != "1962-05" || b.Footprint == nil || len(b.Footprint.WKB) == 0 {
		t.Errorf("the apartments = %+v, want apartments of 8 levels, 120 flats, from 1962-05, with a footprint", b)
	}
	if b := st.buildings["relation/302"]; b.Building != "hospital" || b.Levels == nil || *b.Levels != 5 || b.Footprint == nil {
		t.Errorf("the hospital multipolygon = %+v, want a building of 5 levels with a footprint", b)
	} else {
		// Its box is its outer way's (210); the inner way (211) is a hole.
		f := b.Footprint
		g, err := wkb.Unmarshal(f.WKB)
		if want := (orb.Bound{Min: orb.Point{-77.033, 38.906}, Max: orb.Point{-77.031, 38.907}}); err != nil || g.Bound() != want ||
			f.West != want.Min[0] || f.South != want.Min[1] || f.East != want.Max[0] || f.North != want.Max[1] {
			t.Errorf("the hospital's footprint is %v (%v), box %+v; want the outer way's box %v", g, err, f, want)
		}
	}
	if ks := keys(st.buildings); !reflect.DeepEqual(ks, []string{"relation/302", "way/202", "way/203", "way/204"}) {
		t.Errorf("buildings %v; want the house, the apartments, the shop and the hospital (the broken and the open way skipped)", ks)
	}
	if x.Skipped != 2 {
		t.Errorf("skipped %d, want 2: the way whose node is missing and the building that is not closed", x.Skipped)
	}
	if a := st.addresses["node/110"]; a.HouseNumber != "1203" || a.Street != "Example Street Northwest" || a.Unit != "2B" ||
		a.City != "Washington" || a.Postcode != "20005" {
		t.Errorf("the address node = %+v", a)
	}
	if ks := keys(st.addresses); !reflect.DeepEqual(ks, []string{"node/106", "node/110", "way/202"}) {
		t.Errorf("addresses %v; want the bank's, the address node's and the house's", ks)
	}
	if a := st.addresses["way/202"]; a.Point.Lat < 38.8990 || a.Point.Lat > 38.8992 {
		t.Errorf("the house's address is at %+v, want inside its footprint", a.Point)
	}
}

func TestTheXMLAndThePBFLoadTheSameFeatures(t *testing.T) {
	fromPBF, fromXML := newMemStore(), newMemStore()
	if _, err := osmextract.Load(context.Background(), fromPBF, fixturePBF, osmextract.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := osmextract.Load(context.Background(), fromXML, fixtureXML, osmextract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromPBF.places, fromXML.places) || !reflect.DeepEqual(fromPBF.buildings, fromXML.buildings) ||
		!reflect.DeepEqual(fromPBF.addresses, fromXML.addresses) {
		t.Errorf("the XML and the PBF of one extract load different features:\nPBF %v %v %v\nXML %v %v %v",
			keys(fromPBF.places), keys(fromPBF.buildings), keys(fromPBF.addresses),
			keys(fromXML.places), keys(fromXML.buildings), keys(fromXML.addresses))
	}
	if res.Extract.Coverage != fromPBF.served.Coverage {
		t.Errorf("coverage from the XML's bounds %+v, from the PBF's header %+v", res.Extract.Coverage, fromPBF.served.Coverage)
	}
}

// A load counts the file's elements, every node included: its checkpoints
// and its count are the same for the PBF, whose nodes that give no feature
// never leave the decoder, and for the XML of the same data, read whole.
func TestALoadCountsEveryElementOfTheFile(t *testing.T) {
	load := func(file string) ([]int64, int64) {
		r := &recording{memStore: newMemStore()}
		res, err := osmextract.Load(context.Background(), r, file, osmextract.Options{Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.dones, res.Elements
	}
	pbf, pbfElements := load(fixturePBF)
	xml, xmlElements := load(fixtureXML)
	if !slices.Equal(pbf, xml) || pbfElements != xmlElements {
		t.Errorf("checkpoints of the PBF %v (%d elements), of the XML %v (%d elements): want the same", pbf, pbfElements, xml, xmlElements)
	}
	// franklin.osm: 51 nodes, 11 ways, 2 relations.
	if xmlElements != 64 || len(xml) == 0 || xml[0] != 1 {
		t.Errorf("the XML: %d elements, checkpoints %v; want 64, the first after the first node (a school)", xmlElements, xml)
	}
}

// A node after a way stops the load, whether the node is a feature or
// only a way's vertex, in PBF as in XML; so do a way before one of a lower
// id and a way given twice (two versions, as a history file holds them):
// each element must come once, in order of id, as osmium's commands read
// a file, for the stores keep no key that would merge a second.
func TestAnUnsortedFileStops(t *testing.T) {
	for _, file := range []string{"testdata/unsorted.osm.pbf", "testdata/unsorted.osm",
		"testdata/backwards.osm.pbf", "testdata/backwards.osm", "testdata/twice.osm.pbf", "testdata/twice.osm"} {
		st := newMemStore()
		_, err := osmextract.Load(context.Background(), st, file, osmextract.Options{})
		if !errors.Is(err, osmextract.ErrFormat) || !strings.Contains(err.Error(), "not sorted") {
			t.Errorf("%s: err = %v, want ErrFormat saying the file is not sorted", file, err)
		}
		if st.served != nil {
			t.Errorf("%s: served %+v", file, st.served)
		}
	}
}

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// failing makes a store's writes of features fail after a number of
// batches, as a killed load stops (its facts went one batch further).
type failing struct {
	*store.DB
	after, puts int
}

func (f *failing) PutOSM(ctx context.Context, load *providers.OSMLoad, b providers.OSMBatch, done int64) error {
	if f.puts >= f.after {
		return errors.New("killed")
	}
	f.puts++
	return f.DB.PutOSM(ctx, load, b, done)
}

func TestAStoppedLoadResumesAndTheSameFileAgainChangesNothing(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	opts := osmextract.Options{Batch: 2}
	if _, err := osmextract.Load(ctx, &failing{DB: db, after: 2}, fixturePBF, opts); err == nil {
		t.Fatal("a load whose third batch fails succeeded")
	}
	if xs, _ := db.OSMExtracts(ctx); len(xs) != 0 {
		t.Fatalf("a stopped load is served: %+v", xs)
	}
	res, err := osmextract.Load(ctx, db, fixturePBF, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.Extract.Places != 12 || res.Extract.Buildings != 4 || res.Extract.Addresses != 3 || res.Extract.Skipped != 2 {
		t.Errorf("resumed load = %+v, want resumed with 12 places, 4 buildings, 3 addresses, 2 skipped", res)
	}
	again, err := osmextract.Load(ctx, db, fixturePBF, opts)
	if err != nil || !again.AlreadyLoaded || again.Extract.Generation != res.Extract.Generation {
		t.Errorf("the same file again = %+v, %v; want already loaded, generation %d", again, err, res.Extract.Generation)
	}
	x, places, err := db.OSMPlacesNear(ctx, providers.Circle{Center: providers.Point{Lat: 38.9, Lng: -77.03}, RadiusMeters: 2000}, providers.PlaceFilter{})
	if err != nil || x.Name != "franklin" || len(places) != 11 {
		t.Errorf("places within 2 km = %d, %v; want 11 (all but the diner 2.6 km away)", len(places), err)
	}
	sets, err := db.FactSets(ctx)
	if err != nil || len(sets) != 1 || sets[0].Dataset != "osm-franklin" || sets[0].Rows != 3 || sets[0].Priority != osmextract.FactsPriority {
		t.Errorf("facts datasets after the resumed load = %+v, %v; want osm-franklin with the rows of the 3 buildings that give facts (the shop gives none), last in precedence", sets, err)
	}
}

func TestABadFileStopsWithAClearErrorAndLeavesTheExtractServed(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	if _, err := osmextract.Load(ctx, db, fixturePBF, osmextract.Options{}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(fixturePBF)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, body := range map[string][]byte{
		"truncated.osm.pbf": raw[:len(raw)*2/3],
		"text.osm.pbf":      []byte("this is no extract\n"),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := osmextract.Load(ctx, db, path, osmextract.Options{Name: "franklin"})
		if !errors.Is(err, osmextract.ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
		x, places, err := db.OSMPlacesNear(ctx, providers.Circle{Center: providers.Point{Lat: 38.9, Lng: -77.03}, RadiusMeters: 2000}, providers.PlaceFilter{})
		if err != nil || len(places) != 11 || x.Date() != "2026-11-20" {
			t.Errorf("after %s: %d places, %v; want the extract served before, whole", name, len(places), err)
		}
	}
}

// A load with the extract's polygon serves it as the coverage, within the
// header's box; the same file with another polygon, or none, is another
// load; a polygon of another area stops the load before anything is
// written.
func TestALoadWithAPolygonKeepsItAsTheCoverage(t *testing.T) {
	ctx := context.Background()
	poly, err := osmextract.ReadPoly("testdata/franklin-square.poly")
	if err != nil {
		t.Fatal(err)
	}
	st := newMemStore()
	res, err := osmextract.Load(ctx, st, fixturePBF, osmextract.Options{Boundary: poly})
	if err != nil {
		t.Fatal(err)
	}
	box := providers.BBox{West: -77.07, South: 38.87, East: -76.99, North: 38.93}
	if x := res.Extract; x.Coverage != box || !reflect.DeepEqual(x.Boundary, poly.WKB()) || x.Places != 12 {
		t.Errorf("extract loaded with the polygon: coverage %+v, boundary of %d bytes, %d places; want the box %+v, the polygon's %d bytes, 12 places",
			x.Coverage, len(x.Boundary), x.Places, box, len(poly.WKB()))
	}
	again, err := osmextract.Load(ctx, st, fixturePBF, osmextract.Options{Boundary: poly})
	if err != nil || !again.AlreadyLoaded {
		t.Errorf("the same file and polygon again: %+v, %v; want already loaded", again, err)
	}
	plain, err := osmextract.Load(ctx, st, fixturePBF, osmextract.Options{})
	if err != nil || plain.AlreadyLoaded || plain.Extract.Boundary != nil || plain.Extract.Coverage != box {
		t.Errorf("the same file without the polygon: %+v, %v; want it loaded again with the box alone", plain, err)
	}

	other := filepath.Join(t.TempDir(), "elsewhere.poly")
	if err := os.WriteFile(other, []byte("elsewhere\n1\n -80 40\n -79 40\n -79 41\n -80 41\nEND\nEND\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere, err := osmextract.ReadPoly(other)
	if err != nil {
		t.Fatal(err)
	}
	fresh := newMemStore()
	if _, err := osmextract.Load(ctx, fresh, fixturePBF, osmextract.Options{Boundary: elsewhere}); !errors.Is(err, osmextract.ErrPoly) {
		t.Errorf("a polygon of another area: err = %v, want ErrPoly", err)
	}
	if fresh.load.Generation != 0 || fresh.puts != 0 {
		t.Errorf("a polygon of another area began a load (%+v) and wrote %d batches; want nothing", fresh.load, fresh.puts)
	}
}

// settleBeside is a store that records whether SettleOSM began while the
// facts were being published: the publish waits (up to two seconds) for
// SettleOSM to have looked, which looks as soon as the facts' publish has
// begun or ended (waiting up to ten). It says it writes writers batches
// at once (providers.OSMWriters), and its SettleOSM can fail.
type settleBeside struct {
	providers.OSMFactStore
	writers int
	fail    bool
	seen    chan struct{} // closed once SettleOSM has looked
	mu      sync.Mutex
	facts   string // "", "publishing", "published"
	beside  bool
}

func newSettleBeside(st providers.OSMFactStore, writers int) *settleBeside {
	return &settleBeside{OSMFactStore: st, writers: writers, seen: make(chan struct{})}
}

func (s *settleBeside) OSMWriters() int { return s.writers }

func (s *settleBeside) factsAre(v string) {
	s.mu.Lock()
	s.facts = v
	s.mu.Unlock()
}

func (s *settleBeside) PublishFacts(ctx context.Context, l providers.FactLoad, set providers.FactSet,
	progress func(done, total int)) (providers.FactSet, error) {
	s.factsAre("publishing")
	select {
	case <-s.seen:
	case <-time.After(2 * time.Second):
	}
	defer s.factsAre("published")
	return s.OSMFactStore.PublishFacts(ctx, l, set, progress)
}

func (s *settleBeside) SettleOSM(ctx context.Context, load *providers.OSMLoad) error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		facts := s.facts
		s.mu.Unlock()
		if facts != "" {
			s.beside = facts == "publishing"
			break
		}
	}
	close(s.seen)
	if s.fail {
		return errors.New("the server went away")
	}
	return s.OSMFactStore.SettleOSM(ctx, load)
}

// Where the store writes side by side (PostgreSQL), the features are
// settled (counted, the engine's statistics refreshed) while the
// buildings' facts are published; with one writer (SQLite), after. The
// extract is published with the counts settled; a failed settle publishes
// nothing.
func TestALoadSettlesTheFeaturesBesideTheirFactsWhereTheStoreWritesSideBySide(t *testing.T) {
	ctx := context.Background()
	loads := func(name string, st providers.OSMFactStore, writers int, wantBeside bool) {
		t.Helper()
		s := newSettleBeside(st, writers)
		res, err := osmextract.Load(ctx, s, fixturePBF, osmextract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.beside != wantBeside {
			t.Errorf("%s: settled beside the facts' publish: %v, want %v", name, s.beside, wantBeside)
		}
		if x := res.Extract; x.Places != 12 || x.Buildings != 4 || x.Addresses != 3 {
			t.Errorf("%s: extract counts %d places, %d buildings, %d addresses; want 12, 4, 3", name, x.Places, x.Buildings, x.Addresses)
		}
		if xs, err := s.OSMExtracts(ctx); err != nil || len(xs) != 1 || xs[0].Buildings != 4 {
			t.Errorf("%s: extracts served = %+v, %v; want franklin with its 4 buildings", name, xs, err)
		}
	}
	// SQLite first: the rest needs a PostgreSQL server, and skips without.
	loads("SQLite", openStore(t), 1, false)
	openPG := func() providers.OSMFactStore {
		pg, err := postgres.Open(ctx, pgtest.Schema(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		return pg
	}
	loads("PostgreSQL", openPG(), 2, true)
	failed := newSettleBeside(openPG(), 2)
	failed.fail = true
	if _, err := osmextract.Load(ctx, failed, fixturePBF, osmextract.Options{}); err == nil {
		t.Fatal("a load whose settle failed succeeded")
	}
	if xs, err := failed.OSMExtracts(ctx); err != nil || len(xs) != 0 {
		t.Errorf("extracts served after a failed settle: %+v, %v; want none", xs, err)
	}
}

// queensPBF is a second hand-written fixture (testdata/README.md): an
// apartment block mapped as a multipolygon with a courtyard, address
// points whose postcodes are in the forms real extracts carry, and
// building ways whose geometry is broken, with their addresses.
const queensPBF = "testdata/queens-village.osm.pbf"

// The courtyard of a multipolygon building is its inner ring: the
// footprint holds it as a hole, and on both engines a record in the
// courtyard gets none of the building's facts while a record in the
// building itself gets them all, whether it was saved before the load or
// after it.
func TestACourtyardIsNotPartOfItsBuilding(t *testing.T) {
	st := newMemStore()
	if _, err := osmextract.Load(context.Background(), st, queensPBF, osmextract.Options{}); err != nil {
		t.Fatal(err)
	}
	b, ok := st.buildings["relation/301"]
	if !ok || b.Footprint == nil {
		t.Fatalf("the apartments relation was not loaded as a building: %v", keys(st.buildings))
	}
	g, err := wkb.Unmarshal(b.Footprint.WKB)
	if mp, ok := g.(orb.MultiPolygon); err != nil || !ok || len(mp) != 1 || len(mp[0]) != 2 {
		t.Errorf("the apartments' footprint is %v (%v); want one polygon with its courtyard as a hole", g, err)
	}

	courtyard := providers.Point{Lat: 40.7273, Lng: -73.7456}
	wing := providers.Point{Lat: 40.72710, Lng: -73.7456} // between the outer ring and the courtyard
	ctx := context.Background()
	check := func(t *testing.T, st interface {
		providers.OSMFactStore
		Save(context.Context, providers.NewProperty) (*providers.Property, bool, error)
		Property(context.Context, int64) (*providers.Property, error)
	}) {
		save := func(name string, p providers.Point) int64 {
			t.Helper()
			rec, _, err := st.Save(ctx, providers.NewProperty{Property: providers.Property{StreetAddress: name,
				City: "QUEENS VILLAGE", State: "NY", ZipCode: "11428", Latitude: p.Lat, Longitude: p.Lng, Source: "census"},
				Canonical: name + ", QUEENS VILLAGE, NY, 11428", Keys: []string{name + "|queens village|ny|11428"}})
			if err != nil {
				t.Fatal(err)
			}
			return rec.ID
		}
		before := map[string]int64{"courtyard": save("1 COURT ST", courtyard), "wing": save("3 COURT ST", wing)}
		if _, err := osmextract.Load(ctx, st, queensPBF, osmextract.Options{}); err != nil {
			t.Fatal(err)
		}
		after := map[string]int64{"courtyard": save("5 COURT ST", courtyard), "wing": save("7 COURT ST", wing)}
		for when, ids := range map[string]map[string]int64{"saved before the load": before, "saved after it": after} {
			in, err := st.Property(ctx, ids["wing"])
			if err != nil {
				t.Fatal(err)
			}
			if in.PropertyType == nil || *in.PropertyType != "multi_family" || in.Stories == nil || *in.Stories != 6 ||
				in.Units == nil || *in.Units != 48 || in.YearBuilt == nil || *in.YearBuilt != 1931 {
				t.Errorf("a record in the apartments' wing, %s: type %v, stories %v, units %v, built %v; want multi_family, 6, 48, 1931",
					when, val(in.PropertyType), val(in.Stories), val(in.Units), val(in.YearBuilt))
			}
			out, err := st.Property(ctx, ids["courtyard"])
			if err != nil {
				t.Fatal(err)
			}
			if out.PropertyType != nil || out.Stories != nil || out.Units != nil || out.YearBuilt != nil {
				t.Errorf("a record in the courtyard, %s, has the apartments' facts (type %v, stories %v, units %v, built %v); want none",
					when, val(out.PropertyType), val(out.Stories), val(out.Units), val(out.YearBuilt))
			}
		}
	}
	t.Run("SQLite", func(t *testing.T) { check(t, openStore(t)) })
	t.Run("PostgreSQL", func(t *testing.T) {
		pg, err := postgres.Open(ctx, pgtest.Schema(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		check(t, pg)
	})
}

// val is what *p holds, "null" for nil.
func val[T any](p *T) any {
	if p == nil {
		return "null"
	}
	return *p
}

// A building way whose geometry is broken is skipped whole, its address
// with it, and counted once: one that is not closed as one whose node the
// file lacks. The address points kept are the nodes'.
func TestABrokenBuildingWayKeepsNoAddressPoint(t *testing.T) {
	for _, file := range []string{queensPBF, strings.TrimSuffix(queensPBF, ".pbf")} {
		st := newMemStore()
		res, err := osmextract.Load(context.Background(), st, file, osmextract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"node/111", "node/112", "node/121", "node/122", "node/131", "node/132"}
		if ks := keys(st.addresses); !reflect.DeepEqual(ks, want) {
			t.Errorf("%s: address points %v; want the nodes' %v (not those of the open way 203 or the way 204 whose node is missing)",
				file, ks, want)
		}
		if x := res.Extract; x.Addresses != 6 || x.Skipped != 2 || x.Buildings != 1 {
			t.Errorf("%s: extract of %d addresses, %d buildings, %d skipped; want 6 addresses, 1 building, 2 skipped (ways 203 and 204)",
				file, x.Addresses, x.Buildings, x.Skipped)
		}
	}
}
