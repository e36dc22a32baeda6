package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/addrfile"
	"github.com/propertyd/propertyd/providers/decorators/geographies"
	"github.com/propertyd/propertyd/providers/decorators/localmatch"
	"github.com/propertyd/propertyd/providers/kits/addrgen"
	"github.com/propertyd/propertyd/providers/kits/layergen"
	"github.com/propertyd/propertyd/store/engine"
	"github.com/propertyd/propertyd/store/postgres"
)

// The addresses rows (issue 39): a generated county's address points and
// TIGER/Line ranges (package addrgen) loaded with propertyd data load
// addresses, then looked up through the API, with the state's generated
// boundaries loaded beside them so that a local match's county and tract
// come from the files too: no Census call at all.
const (
	addrLoadTarget   = ">= 200,000 address points/s, peak resident memory < 300 MB"
	addrLookupTarget = "p50 < 1 ms, p99 < 5 ms per lookup, 0 Census calls"
	accuracyTarget   = "reported: no threshold (address points are preferred where both exist)"
)

// addrYear is the TIGER/Line year the generated ADDRFEAT file is named for.
const addrYear = 2024

// addressFiles are the generated county's files, written once a run: its
// address points (OpenAddresses CSV), its ranges (ADDRFEAT shapefile) and
// the generated state's tracts and counties (countyLayers), in which the
// county lies.
type addressFiles struct {
	county     addrgen.County
	files      addrgen.Files
	boundaries []string
	tracts     layergen.Tracts
	counties   map[string]string // COUNTYFP to NAMELSAD
	took       time.Duration
}

// addressFiles writes the addresses rows' files, the first time it is
// called.
func (b *bench) addressFiles() (*addressFiles, error) {
	if b.addrs != nil {
		return b.addrs, nil
	}
	t0 := time.Now()
	tracts, _ := countyLayers()
	f := &addressFiles{county: addrgen.New(b.o.addrPoints, b.o.addrRanges), tracts: tracts, counties: map[string]string{}}
	for c := range tracts.Counties() {
		f.counties[layergen.CountyFP(c)] = tracts.County(c).Attrs(layergen.CountyColumns)["NAMELSAD"].(string)
	}
	dir := filepath.Join(b.tmp, "addresses")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b.logf("writing a generated county of %s blocks: address points and ranges", thousands(int64(f.county.Rows*f.county.Cols)))
	var err error
	if f.files, err = f.county.WriteFiles(dir, addrYear); err != nil {
		return nil, err
	}
	for _, l := range []layergen.Layer{tracts.TractLayer(tigerYear), tracts.CountyLayer(tigerYear)} {
		base := filepath.Join(dir, l.Name)
		if _, err := layergen.WriteShapefile(base, l); err != nil {
			return nil, err
		}
		f.boundaries = append(f.boundaries, base+".shp")
	}
	f.took = time.Since(t0)
	b.logf("wrote %s address points and %s ranges (%s edges) in %s", thousands(f.files.PointN), thousands(f.files.RangeN),
		thousands(f.files.EdgeN), f.took.Round(time.Millisecond))
	b.addrs = f
	return f, nil
}

// addrLookup is one address looked up, with what the files say of it:
// the point it must be matched at, and the county and tract there.
type addrLookup struct {
	street, zip string
	rooftop     bool // an address point's; else a number only a range holds
	point       orb.Point
	county      string // NAMELSAD
	fips, tract string
}

// path is the lookup's URL with the sections in include (none when empty).
func (l addrLookup) path(city, state, include string) string {
	q := url.Values{"street": {l.street}, "city": {city}, "state": {state}, "zip": {l.zip}}
	if include != "" {
		q.Set("include", include)
	}
	return "/v1/properties/lookup?" + q.Encode()
}

// lookups draws n different addresses of the county from seed, alternately
// an address point's and a vacant number of a range (one no point has, so
// only the range answers it), within box when it is not nil.
func (f *addressFiles) lookups(n int, seed uint64, box *orb.Bound) ([]addrLookup, error) {
	rnd := rand.New(rand.NewPCG(seed, 39))
	g := f.county
	seen := map[string]bool{}
	out := make([]addrLookup, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries > 100*n+1000 {
			return nil, fmt.Errorf("found %d different addresses of %d (in the box %v)", len(out), n, box)
		}
		e := g.Edge(rnd.IntN(g.Edges()))
		s := rnd.IntN(2)
		sd := e.Sides[s]
		if sd.Empty() || box != nil && !box.Contains(e.Line[0]) {
			continue
		}
		l := addrLookup{zip: sd.Zip, rooftop: len(out)%2 == 0}
		if l.rooftop {
			if len(sd.Buildings) == 0 {
				continue
			}
			bd := sd.Buildings[rnd.IntN(len(sd.Buildings))]
			// As the CSV writes it: seven decimals.
			l.street, l.point = e.Street(bd.Number), orb.Point{round7(bd.Point.Lon()), round7(bd.Point.Lat())}
		} else {
			number, ok := e.Vacant(s)
			if !ok {
				continue
			}
			p, ok := addrfile.Interpolate(e.Range(s, g.State), number)
			if !ok {
				return nil, fmt.Errorf("edge %d side %d does not place its own number %d", e.Index, s, number)
			}
			l.street, l.point = e.Street(number), orb.Point{p.Lng, p.Lat}
		}
		if seen[l.street+l.zip] {
			continue
		}
		seen[l.street+l.zip] = true
		tract, ok := f.tracts.At(l.point)
		if !ok {
			return nil, fmt.Errorf("%s is outside the generated tracts", l.street)
		}
		a := tract.Attrs(layergen.TractColumns)
		l.fips, l.tract = a["STATEFP"].(string)+a["COUNTYFP"].(string), a["TRACTCE"].(string)
		l.county = f.counties[a["COUNTYFP"].(string)]
		out = append(out, l)
	}
	return out, nil
}

func round7(v float64) float64 { return math.Round(v*1e7) / 1e7 }

// addrAnswer is the part of a lookup's answer the addresses rows check.
type addrAnswer struct {
	Data struct {
		County string  `json:"county"`
		FIPS   string  `json:"fips_code"`
		Tract  string  `json:"census_tract"`
		Lat    float64 `json:"latitude"`
		Lng    float64 `json:"longitude"`
		Flood  struct {
			Source string `json:"source"`
		} `json:"flood"`
	} `json:"data"`
	Meta struct {
		Created *bool `json:"created"`
		Match   struct {
			Precision string `json:"precision"`
			Dataset   string `json:"dataset"`
		} `json:"match"`
		Sections map[string]struct {
			Status string `json:"status"`
			Source string `json:"source"`
			Cache  string `json:"cache"`
			Error  string `json:"error"`
		} `json:"sections"`
	} `json:"meta"`
}

// check says how an answer differs from what the files hold (nil: not at
// all): a record made by this lookup (unless again), matched with the
// precision of its kind at its point, in its county and tract.
func (l addrLookup) check(status int, body []byte, again bool) (addrAnswer, error) {
	var a addrAnswer
	if status != 200 {
		return a, fmt.Errorf("%s %s: HTTP %d: %.300s", l.street, l.zip, status, body)
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return a, fmt.Errorf("%s: %w", l.street, err)
	}
	want := "rooftop"
	if !l.rooftop {
		want = "range_interpolation"
	}
	switch {
	case !again && (a.Meta.Created == nil || !*a.Meta.Created):
		return a, fmt.Errorf("%s %s was not created by its first lookup", l.street, l.zip)
	case a.Meta.Match.Precision != want:
		return a, fmt.Errorf("%s %s matched %q, want %s (%s)", l.street, l.zip, a.Meta.Match.Precision, want, a.Meta.Match.Dataset)
	case math.Abs(a.Data.Lat-l.point.Lat()) > 1e-6 || math.Abs(a.Data.Lng-l.point.Lon()) > 1e-6:
		return a, fmt.Errorf("%s %s at %.7f,%.7f, the files put it at %.7f,%.7f", l.street, l.zip, a.Data.Lat, a.Data.Lng, l.point.Lat(), l.point.Lon())
	case a.Data.County != l.county || a.Data.FIPS != l.fips || a.Data.Tract != l.tract:
		return a, fmt.Errorf("%s %s in %s (%s), tract %s; the boundaries put it in %s (%s), tract %s", l.street, l.zip,
			a.Data.County, a.Data.FIPS, a.Data.Tract, l.county, l.fips, l.tract)
	}
	return a, nil
}

// addresses is the addresses scenario on SQLite, a fresh file for each load.
func (b *bench) addresses(ctx context.Context) error {
	n := 0
	return b.addressesOn(ctx, "SQLite", func(context.Context) (string, func(), error) {
		n++
		return b.sqliteFile(fmt.Sprintf("addresses-%d.db", n))
	})
}

// pgAddresses is the addresses scenario on PostgreSQL, a schema for each
// load, made after a CHECKPOINT (see pgOSM).
func (b *bench) pgAddresses(ctx context.Context) error {
	return b.addressesOn(ctx, "PostgreSQL", b.pgFresh("pg-addresses"))
}

// sqliteFile is a database file of the run and what removes it.
func (b *bench) sqliteFile(name string) (string, func(), error) {
	path := filepath.Join(b.tmp, name)
	return path, func() {
		for _, f := range []string{path, path + "-wal", path + "-shm"} {
			os.Remove(f)
		}
	}, nil
}

// pgFresh makes a schema of its own for each call, after a CHECKPOINT.
func (b *bench) pgFresh(scenario string) func(context.Context) (string, func(), error) {
	return func(ctx context.Context) (string, func(), error) {
		database, drop, err := b.pgSchema(ctx, scenario)
		if err == nil && database != "" {
			if cerr := postgres.Checkpoint(ctx, b.o.postgres); cerr != nil {
				b.logf("CHECKPOINT before the load: %v", cerr)
			}
		}
		return database, drop, err
	}
}

func (b *bench) addrLoadLabel(engineName string) string {
	g := addrgen.New(b.o.addrPoints, b.o.addrRanges)
	return fmt.Sprintf("load a generated county's address points (about %s, OpenAddresses CSV) and its %s address ranges "+
		"(TIGER/Line ADDRFEAT shapefile), each with propertyd data load addresses, on %s",
		thousands(int64(b.o.addrPoints)), thousands(int64(g.Ranges())), engineName)
}

func (b *bench) addrLookupLabel(engineName string) string {
	return fmt.Sprintf("cold lookup of a new address (no section) matched from the loaded address points and ranges, "+
		"the state's boundaries loaded, one at a time, on %s", engineName)
}

// addressesOn loads the county's files b.o.addrRuns times, each into a
// database of its own that fresh makes ready ("" when the engine is not
// there), the boundaries first (not timed), then the points and the
// ranges each with a command of its own, measured as the polygons rows
// measure theirs; the row reports the median load and the highest peak.
// The last database then serves the lookups row; on the first engine
// measured, the accuracy row follows.
func (b *bench) addressesOn(ctx context.Context, engineName string, fresh func(context.Context) (string, func(), error)) error {
	files, err := b.addressFiles()
	if err != nil {
		return err
	}
	var (
		database       string
		drop           func()
		points, ranges []loadOutcome
		fail           string
	)
	defer func() {
		if drop != nil {
			drop()
		}
	}()
	for run := 1; run <= b.o.addrRuns && fail == ""; run++ {
		if drop != nil {
			drop()
		}
		if database, drop, err = fresh(ctx); err != nil {
			return err
		}
		if database == "" {
			b.skip(row{scenario: b.addrLoadLabel(engineName), target: addrLoadTarget}, b.pgNone)
			b.skip(row{scenario: b.addrLookupLabel(engineName), target: addrLookupTarget}, b.pgNone)
			return nil
		}
		cfg := filepath.Join(b.tmp, "addresses-"+strings.ToLower(engineName)+".yaml")
		if err := os.WriteFile(cfg, []byte(configYAML(database, b.sbRoot, b.o.cacheMB, b.o.batchConc)), 0o644); err != nil {
			return err
		}
		if _, _, _, err := b.runMeasured(ctx, append([]string{"data", "load", "boundaries", "-config", cfg}, files.boundaries...)...); err != nil {
			return err
		}
		load := func(what string, want int64, path string) (loadOutcome, error) {
			b.logf("data load addresses (%s) on %s (run %d of %d)", what, engineName, run, b.o.addrRuns)
			out, took, hwm, err := b.runMeasured(ctx, "data", "load", "addresses", "-config", cfg,
				"-failures", filepath.Join(b.tmp, "addresses-"+what+".failures.csv"), path)
			if err != nil {
				return loadOutcome{}, err
			}
			if kept := outputField(out, "features kept:"); kept != thousands(want) && fail == "" {
				fail = fmt.Sprintf("data load addresses kept %s %s of %s:\n%s", kept, what, thousands(want), out)
			}
			return loadOutcome{took: took, hwm: hwm, vertices: want}, nil
		}
		p, err := load("points", files.files.PointN, files.files.Points)
		if err != nil {
			return err
		}
		r, err := load("ranges", files.files.RangeN, files.files.Ranges)
		if err != nil {
			return err
		}
		points, ranges = append(points, p), append(ranges, r)
	}
	p, r := medianLoad(points), medianLoad(ranges)
	higher := max(p.hwm, r.hwm)
	b.add(row{
		scenario: b.addrLoadLabel(engineName),
		target:   addrLoadTarget,
		measured: fmt.Sprintf("points: %s in %s, %s points/s, peak resident memory %.0f MB%s; ranges: %s (%s edges) in %s, %s ranges/s, peak %.0f MB%s (the files written in %s)",
			thousands(p.vertices), p.took.Round(time.Millisecond), thousands(int64(p.rate())), float64(p.hwm)/(1<<20), loadRuns(points),
			thousands(r.vertices), thousands(files.files.EdgeN), r.took.Round(time.Millisecond), thousands(int64(r.rate())), float64(r.hwm)/(1<<20), loadRuns(ranges),
			files.took.Round(time.Millisecond)),
		ratio:   fmt.Sprintf("%.2f x 200,000 points/s; %.2f x 300 MB (the higher of the two loads)", p.rate()/200_000, float64(higher)/(300<<20)),
		met:     p.rate() >= 200_000 && higher < 300<<20,
		failure: fail,
	})
	if fail != "" {
		return nil
	}
	if err := b.addressLookups(ctx, engineName, database, files); err != nil {
		return err
	}
	if err := b.addressMatches(ctx, engineName, database, files); err != nil {
		return err
	}
	if !b.accuracyDone {
		b.accuracyDone = true
		b.accuracy(files)
	}
	return nil
}

// addressLookups serves database and looks up b.o.addrLookups new
// addresses of the county one at a time without sections (half address
// points, half numbers only a range holds), after 20 not counted, each
// answer checked against the files, and counts the sandbox's calls.
func (b *bench) addressLookups(ctx context.Context, engineName, database string, files *addressFiles) error {
	const warm = 20
	ls, err := files.lookups(b.o.addrLookups+warm, 1, nil)
	if err != nil {
		return err
	}
	in, err := b.startInstance("propertyd-addresses-"+strings.ToLower(engineName), database, "", "")
	if err != nil {
		return err
	}
	defer in.stop(b)
	b.sb.ResetCalls()
	city, state := files.county.City, files.county.State
	var all, roof, rng []time.Duration
	fail := ""
	for i, l := range ls {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r := get(l.path(city, state, ""))
		t0 := time.Now()
		status, body, err := in.c.do(r)
		d := time.Since(t0)
		if err == nil {
			_, err = l.check(status, body, false)
		}
		if err != nil && fail == "" {
			fail = err.Error()
		}
		if i < warm {
			continue
		}
		all = append(all, d)
		if l.rooftop {
			roof = append(roof, d)
		} else {
			rng = append(rng, d)
		}
	}
	calls := b.callCounts()
	census := calls["census"]
	for _, s := range [][]time.Duration{all, roof, rng} {
		slices.Sort(s)
	}
	p50, p99 := percentile(all, 50), percentile(all, 99)
	remote := "no upstream call"
	if len(calls) > 0 {
		remote = "upstream calls: " + formatCounts(calls)
	}
	b.add(row{
		scenario: b.addrLookupLabel(engineName),
		target:   addrLookupTarget,
		measured: fmt.Sprintf("p50 %s, p99 %s over %s lookups (address points: p50 %s, p99 %s; ranges: p50 %s, p99 %s), "+
			"each checked against the files (precision, point, county, tract); %s",
			msPrecise(p50), msPrecise(p99), thousands(int64(len(all))), msPrecise(percentile(roof, 50)), msPrecise(percentile(roof, 99)),
			msPrecise(percentile(rng, 50)), msPrecise(percentile(rng, 99)), remote),
		ratio: fmt.Sprintf("p50 %.2f x 1 ms, p99 %.2f x 5 ms; %d Census calls",
			float64(p50)/float64(time.Millisecond), float64(p99)/float64(5*time.Millisecond), census),
		met:     p50 < time.Millisecond && p99 < 5*time.Millisecond && census == 0,
		failure: fail,
	})
	return nil
}

// accuracy adds the row of how far the point a range places each address
// at (addrfile.Interpolate, as a lookup the points do not hold is placed)
// lies from the address's own point, over every address point of the
// county whose range holds its number (all of them, by construction).
func (b *bench) accuracy(files *addressFiles) {
	g := files.county
	var byDistance, inTurn []float64
	for i := range g.Edges() {
		e := g.Edge(i)
		for s, sd := range e.Sides {
			if sd.Empty() {
				continue
			}
			r := e.Range(s, g.State)
			for _, bd := range sd.Buildings {
				p, ok := addrfile.Interpolate(r, bd.Number)
				if !ok {
					continue
				}
				d := geo.Distance(orb.Point{p.Lng, p.Lat}, bd.Point)
				if sd.Sequential {
					inTurn = append(inTurn, d)
				} else {
					byDistance = append(byDistance, d)
				}
			}
		}
	}
	all := slices.Concat(byDistance, inTurn)
	cell := func(name string, ds []float64) string {
		slices.Sort(ds)
		within := 0
		for _, d := range ds {
			if d <= 25 {
				within++
			}
		}
		return fmt.Sprintf("%s (%s): median %.1f m, p90 %.1f m, %.1f%% within 25 m", name, thousands(int64(len(ds))),
			quantile(ds, 0.5), quantile(ds, 0.9), 100*float64(within)/float64(max(1, len(ds))))
	}
	b.add(row{
		scenario: fmt.Sprintf("address points against ranges in the generated county (%s points, %s ranges): distance from the point the range places each address at (addrfile.Interpolate) to the address point",
			thousands(files.files.PointN), thousands(files.files.RangeN)),
		target:   accuracyTarget,
		measured: cell("all", all) + "; " + cell("faces numbered by distance", byDistance) + "; " + cell("faces numbered in turn", inTurn),
		ratio:    "-",
		reported: true,
	})
}

// quantile is the nearest-rank q-quantile of sorted.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// addrMatchTarget is the target of the local geocoding itself: issue 39's
// figure for a lookup's geocoding step.
const addrMatchTarget = "p50 < 1 ms, p99 < 5 ms per address, 0 remote calls"

// addressMatches times the local geocoding step alone, in this process on
// the loaded database: localmatch matching each of b.o.addrLookups other
// new addresses (half address points, half numbers only a range holds) and
// the loaded boundaries giving its county and tract, as a lookup's
// geocoder does before the record is written; with geocoding: local, so a
// miss would be an error, never a remote call. The cold lookup row above
// adds the HTTP round trip and the writing of the record.
func (b *bench) addressMatches(ctx context.Context, engineName, database string, files *addressFiles) error {
	ls, err := files.lookups(b.o.addrLookups, 7, nil)
	if err != nil {
		return err
	}
	db, err := engine.Open(ctx, database, engine.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	g := localmatch.New(db, geographies.NewGeocoder(geographies.NewBoundaries(db), noGeocoder{}, nil), true)
	city, state := files.county.City, files.county.State
	var ds []time.Duration
	fail := ""
	for _, l := range ls {
		t0 := time.Now()
		loc, err := g.Geocode(ctx, providers.Address{Street: l.street, City: city, State: state, Zip: l.zip})
		ds = append(ds, time.Since(t0))
		switch {
		case err != nil:
			if fail == "" {
				fail = fmt.Sprintf("%s: %v", l.street, err)
			}
		case loc.CensusTract != l.tract || loc.FIPSCode != l.fips:
			if fail == "" {
				fail = fmt.Sprintf("%s: matched in %s tract %s; the files put it in %s tract %s", l.street, loc.FIPSCode, loc.CensusTract, l.fips, l.tract)
			}
		}
	}
	slices.Sort(ds)
	p50, p99 := percentile(ds, 50), percentile(ds, 99)
	b.add(row{
		scenario: fmt.Sprintf("local geocoding alone on %s, in process: %s new addresses matched to the loaded points and ranges, county and tract from the loaded boundaries (geocoding: local)",
			engineName, thousands(int64(len(ds)))),
		target:   addrMatchTarget,
		measured: fmt.Sprintf("p50 %s, p99 %s", msPrecise(p50), msPrecise(p99)),
		ratio:    fmt.Sprintf("p50 %.2f x 1 ms, p99 %.2f x 5 ms", float64(p50)/float64(time.Millisecond), float64(p99)/float64(5*time.Millisecond)),
		met:      p50 < time.Millisecond && p99 < 5*time.Millisecond && fail == "",
		failure:  fail,
	})
	return nil
}

// noGeocoder is the remote geocoder of addressMatches: there is none.
type noGeocoder struct{}

func (noGeocoder) Geocode(context.Context, providers.Address) (providers.Location, error) {
	return providers.Location{}, providers.ErrNoMatch
}
