package extract_test

import (
	"context"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmxml"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/extract"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/osmwalk"
	"github.com/propertyd/propertyd/providers/modules/overpass"
	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/store"
)

// The extract loader's fixture: franklin.osm, OSM XML written by hand (the
// OpenStreetMap wiki's "OSM XML" format), and franklin.osm.pbf, the same
// data converted to the wiki's "PBF Format" with osmium (its README has
// the command).
var (
	fixtureXML = filepath.Join("..", "..", "osmextract", "testdata", "franklin.osm")
	fixturePBF = filepath.Join("..", "..", "osmextract", "testdata", "franklin.osm.pbf")
)

// franklinSquare is inside the fixture's coverage with its 2,000 m circle.
var franklinSquare = providers.Point{Lat: 38.9, Lng: -77.03}

// overpassElements reads the fixture as the Overpass API holds the same
// data: every tagged node at its position, every tagged way and relation
// at the center of its bounding box ("out center"), printed with seven
// decimals as the server prints coordinates.
func overpassElements(t *testing.T) []providertest.OSMElement {
	t.Helper()
	f, err := os.Open(fixtureXML)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := osmxml.New(context.Background(), f)
	defer sc.Close()
	nodes := map[int64][2]float64{}
	wayBox := map[int64][4]float64{}
	var out []providertest.OSMElement
	grow := func(b *[4]float64, ok *bool, lat, lng float64) {
		if !*ok {
			*b, *ok = [4]float64{lat, lat, lng, lng}, true
			return
		}
		b[0], b[1], b[2], b[3] = math.Min(b[0], lat), math.Max(b[1], lat), math.Min(b[2], lng), math.Max(b[3], lng)
	}
	center := func(b [4]float64) (float64, float64) {
		r := func(v float64) float64 { return math.Round(v*1e7) / 1e7 }
		return r((b[0] + b[1]) / 2), r((b[2] + b[3]) / 2)
	}
	for sc.Scan() {
		switch o := sc.Object().(type) {
		case *osm.Node:
			nodes[int64(o.ID)] = [2]float64{o.Lat, o.Lon}
			if len(o.Tags) > 0 {
				out = append(out, providertest.OSMElement{Type: "node", ID: int64(o.ID), Lat: o.Lat, Lng: o.Lon, Tags: o.Tags.Map()})
			}
		case *osm.Way:
			var b [4]float64
			ok := false
			for _, wn := range o.Nodes {
				if n, found := nodes[int64(wn.ID)]; found {
					grow(&b, &ok, n[0], n[1])
				}
			}
			if !ok {
				continue
			}
			wayBox[int64(o.ID)] = b
			if len(o.Tags) > 0 {
				lat, lng := center(b)
				out = append(out, providertest.OSMElement{Type: "way", ID: int64(o.ID), Lat: lat, Lng: lng, Tags: o.Tags.Map()})
			}
		case *osm.Relation:
			var b [4]float64
			ok := false
			for _, m := range o.Members {
				if wb, found := wayBox[m.Ref]; found && m.Type == osm.TypeWay {
					grow(&b, &ok, wb[0], wb[2])
					grow(&b, &ok, wb[1], wb[3])
				}
			}
			if ok {
				lat, lng := center(b)
				out = append(out, providertest.OSMElement{Type: "relation", ID: int64(o.ID), Lat: lat, Lng: lng, Tags: o.Tags.Map()})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadedStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := osmextract.Load(context.Background(), db, fixturePBF, osmextract.Options{}); err != nil {
		t.Fatal(err)
	}
	return db
}

func overpassClient(t *testing.T, elements ...providertest.OSMElement) (*overpass.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, elements...)
	c, err := overpass.New(providers.Settings{Client: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	return c, mt
}

// TestTheExtractAndOverpassAnswerAlike loads one fixture into both paths,
// the fake Overpass API and the extract loader, and asks both for the
// amenities around one point: the categories, items, names, distances and
// order must be the same, and so the walk score computed from them; only
// the source (and the extract's date) tells them apart.
func TestTheExtractAndOverpassAnswerAlike(t *testing.T) {
	ctx := context.Background()
	remote, _ := overpassClient(t, overpassElements(t)...)
	fromOverpass, err := remote.Amenities(ctx, franklinSquare, 2000)
	if err != nil {
		t.Fatal(err)
	}
	unused, mt := overpassClient(t)
	local := extract.New(loadedStore(t), unused, nil)
	fromExtract, err := local.Amenities(ctx, franklinSquare, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("the extract's answer made %d Overpass calls, want 0", n)
	}
	if fromOverpass.TotalCount != 10 {
		// The fixture: 12 places, the diner 2.6 km away, the second Bean
		// Counter the same cafe mapped twice.
		t.Errorf("Overpass's answer has %d items, want 10: %+v", fromOverpass.TotalCount, fromOverpass.Categories)
	}
	if !reflect.DeepEqual(fromExtract.Categories, fromOverpass.Categories) || fromExtract.TotalCount != fromOverpass.TotalCount ||
		fromExtract.RadiusMeters != fromOverpass.RadiusMeters || fromExtract.Attribution != fromOverpass.Attribution {
		t.Errorf("the extract and Overpass answer differently:\nextract  %+v\noverpass %+v", fromExtract, fromOverpass)
	}
	if fromExtract.Source != "osm-extract" || fromExtract.Vintage != "2026-11-20" || fromOverpass.Source != "overpass" || fromOverpass.Vintage != "" {
		t.Errorf("provenance: extract %q %q, Overpass %q %q; want osm-extract of 2026-11-20 and overpass",
			fromExtract.Source, fromExtract.Vintage, fromOverpass.Source, fromOverpass.Vintage)
	}
	a, b := osmwalk.Score(fromExtract), osmwalk.Score(fromOverpass)
	if a.WalkScore != b.WalkScore || !reflect.DeepEqual(a.Breakdown, b.Breakdown) || a.Description != b.Description {
		t.Errorf("walk scores differ: extract %+v, Overpass %+v", a, b)
	}
	if a.AmenitiesSource != "osm-extract" || a.Vintage != "2026-11-20" || b.AmenitiesSource != "overpass" {
		t.Errorf("walk score provenance: %q %q and %q", a.AmenitiesSource, a.Vintage, b.AmenitiesSource)
	}
}

func TestOutsideEveryExtractOverpassAnswers(t *testing.T) {
	ctx := context.Background()
	remote, mt := overpassClient(t, providertest.OSMElement{Type: "node", ID: 1, Lat: 40.7130, Lng: -74.0060,
		Tags: map[string]string{"amenity": "school", "name": "Downtown School"}})
	a := extract.New(loadedStore(t), remote, nil)
	got, err := a.Amenities(ctx, providers.Point{Lat: 40.7128, Lng: -74.0060}, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if n := mt.GetTotalCallCount(); n != 1 || got.Source != "overpass" || got.TotalCount != 1 {
		t.Errorf("outside the extract: %d Overpass calls, source %q, %d items; want 1 call answered by overpass", n, got.Source, got.TotalCount)
	}
	// A circle reaching past the extract's edge is not the extract's to
	// answer: what lies beyond the edge is not in it.
	if _, err := a.Amenities(ctx, providers.Point{Lat: 38.925, Lng: -77.03}, 2000); err != nil {
		t.Fatal(err)
	}
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Errorf("a circle crossing the extract's edge made %d Overpass calls in all, want 2", n)
	}
}

// TestTheCapOfTheModuleHoldsForTheExtract: with max_results=1 the
// extract's answer is capped as Overpass caps its own: in each category the
// nearest item, then the nearest of each other type, the same on both
// paths.
func TestTheCapOfTheModuleHoldsForTheExtract(t *testing.T) {
	ctx := context.Background()
	capped := map[string]string{"max_results": "1"}
	mt := httpmock.NewMockTransport()
	providertest.RegisterOverpass(mt, overpass.DefaultBaseURL, overpassElements(t)...)
	remote, err := overpass.New(providers.Settings{Client: &http.Client{Transport: mt}, Options: capped})
	if err != nil {
		t.Fatal(err)
	}
	fromOverpass, err := remote.Amenities(ctx, franklinSquare, 2000)
	if err != nil {
		t.Fatal(err)
	}
	unused, err := overpass.New(providers.Settings{Options: capped})
	if err != nil {
		t.Fatal(err)
	}
	got, err := extract.New(loadedStore(t), unused, nil).Amenities(ctx, franklinSquare, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Categories, fromOverpass.Categories) || got.TotalCount != fromOverpass.TotalCount {
		t.Errorf("capped at 1, the extract and Overpass answer differently:\nextract  %+v\noverpass %+v", got, fromOverpass)
	}
	for cat, items := range got.Categories {
		types := map[string]bool{}
		for i, it := range items {
			if i > 0 && types[it.Type] {
				t.Errorf("%s lists %q, a %s beyond max_results=1 whose type is listed already", cat, it.Name, it.Type)
			}
			types[it.Type] = true
		}
	}
	if got.TotalCount >= 10 {
		t.Errorf("capped at 1, %d items are listed; the whole answer has 10", got.TotalCount)
	}
}

// TestAnAnswerOfAnExtractNoLongerServedIsSuperseded: the service refreshes
// a stored answer whose extract was replaced, instead of serving it until
// its TTL; answers from Overpass and from the extract served stay.
func TestAnAnswerOfAnExtractNoLongerServedIsSuperseded(t *testing.T) {
	a := extract.New(loadedStore(t), nil, nil)
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a.Now = func() time.Time { return clock }
	if a.Supersedes("2026-10-01") {
		t.Error("superseded before the extracts were listed; it cannot tell yet")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !a.Supersedes("2026-10-01") {
		if time.Now().After(deadline) {
			t.Fatal("an answer of 2026-10-01 is not superseded 5 s after the listing began; only 2026-11-20 is served")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if a.Supersedes("2026-11-20") || a.Supersedes("") {
		t.Error("an answer of the extract served, or from Overpass (no vintage), is superseded")
	}
}
