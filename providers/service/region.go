package service

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/propertyd/propertyd/providers"
)

// Region declares that a section's keys group into regions an upstream can
// answer whole: the ACS answers every tract of a state in one call, so the
// first need of a tract in a state fetches and stores all of them, and N
// properties in one state cost one call per section, not one per tract.
//
// The catalogue declares it (Entry.Region); a module opts in by
// implementing the interface Bind asks for, and a section whose module does
// not keeps fetching key by key. The core knows no upstream format: a
// region's answer is a map from key to value, as the key-by-key fetch
// would have returned each.
//
// What loading a region of a section does (Section.fetchRegional):
//
//   - one call per region and section at a time, within the instance
//     (the flight "region:<section>:<region>") and, with Config.Leases,
//     across the fleet (the same key's lease); a flight that waited finds
//     the region loaded and makes no call;
//   - every key of the answer is stored as the section's value, in
//     transactions of regionChunk (providers.CopySections), then a marker
//     (section loadedSection(name), key the region) with the same times
//     and vintage says the region was loaded;
//   - a key its region's answer lacks is stored as Missing, with
//     Absent(key), when it is needed: while the marker is fresh a missing
//     key is answered so without a call, so a region is asked once per
//     TTL whatever is looked up in it;
//   - the other sections of the same Kind whose modules answer by region
//     (housing beside demographics: the two ACS table sets) are loaded for
//     the region in the background at the same time (within the refresh
//     slots), so the first need of either stores both;
//   - an expired value is refreshed the same way: its region's marker
//     expired with it (they share TTL and vintage), so the refresh of one
//     tract refreshes its whole state in one call, and the refreshes of
//     its neighbours meanwhile join that call or find its result.
//
// A key whose value is expired while its region's marker is fresh (a
// value stored key by key before its region was loaded, say) is fetched
// on its own.
type Region struct {
	// Kind names the regions, e.g. RegionState; sections of one kind
	// load their regions together.
	Kind string
	// Of returns the region of key, ok=false when the key names none
	// (it is then fetched on its own).
	Of func(key string) (region string, ok bool)
	// Absent is the error a key its region's answer lacks stands for,
	// KindNotFound (tract_not_found for a tract).
	Absent func(key string) *providers.Error
	// Bind adapts a built module (see BindRegion): ok is false when the
	// module cannot answer a region.
	Bind func(mod any) (fetch RegionFetchFunc, ok bool)
}

// RegionState is the Kind of regions that are states, named by their
// two-digit FIPS code.
const RegionState = "state"

// RegionFetchFunc asks a provider module for the values of every key of
// region, by key.
type RegionFetchFunc func(ctx context.Context, region string) (map[string]any, error)

// Around returns f run under a (f itself when a is nil).
func (f RegionFetchFunc) Around(a providers.Around) RegionFetchFunc {
	return providers.WrapCall(a, f)
}

// BindRegion makes a Region.Bind from a region fetch written against the
// module interface M, whose values are V.
func BindRegion[M, V any](f func(m M, ctx context.Context, region string) (map[string]V, error)) func(any) (RegionFetchFunc, bool) {
	return func(mod any) (RegionFetchFunc, bool) {
		m, ok := mod.(M)
		if !ok {
			return nil, false
		}
		return func(ctx context.Context, region string) (map[string]any, error) {
			vals, err := f(m, ctx, region)
			if err != nil {
				return nil, err
			}
			out := make(map[string]any, len(vals))
			for k, v := range vals {
				out[k] = v
			}
			return out, nil
		}, true
	}
}

// regionChunk is how many values one transaction of a region's write
// holds: a state has up to some 9,000 tracts, and a transaction must not
// hold the store's one writer long.
const regionChunk = 1000

// loadedSection is the store section under which the regions a section
// loaded are recorded, keyed by region. It is no section of a response.
func loadedSection(section string) string { return "loaded:" + section }

// regionFlightKey is the key one load of the section's region is shared
// under, by the requests of this instance and, as a lease, of the fleet.
func (sec *Section) regionFlightKey(region string) string {
	return "region:" + sec.Name + ":" + region
}

// regionLoad is what one load of a region yields: the records it stored
// by key (nil when it made no call: the region was loaded within its TTL)
// and whether it called the upstream.
type regionLoad struct {
	records map[string]*providers.SectionRecord
	called  bool
}

// RegionLoaded reports one LoadRegion: the section and region, how many
// keys the upstream's answer held, and whether it was asked (false: the
// region was loaded within its TTL, and nothing changed).
type RegionLoaded struct {
	Section, Region string
	Keys            int
	Called          bool
}

// fetchRegional is fetchAndStore for a section whose module answers by
// region: it loads key's region (see Region) and returns key's record in
// it, or the record saying the region has no data at key, and where it
// came from. handled is false when key has no region, or its value is
// expired while its region is fresh: the caller then fetches key on its
// own.
func (sec *Section) fetchRegional(ctx context.Context, key string, own []string) (_ *providers.SectionRecord, tier string, handled bool, _ error) {
	region, ok := sec.Region.Of(key)
	if !ok {
		return nil, "", false, nil
	}
	s := sec.svc
	l, err := fly(&s.fl, ctx, context.WithoutCancel(ctx), sec.regionTrip(region, regionForRequest, own))
	if err != nil {
		return nil, "", true, loggedFailure{err}
	}
	load := l.val
	if rec, ok := load.records[key]; ok {
		return rec, providers.TierUpstream, true, nil
	}
	if !load.called {
		// Loaded before: the store has key's value, or the answer lacked it.
		again, fresh := sec.reread(ctx, key)
		if fresh {
			return again, providers.TierDatabase, true, nil
		}
		if again != nil && !again.Missing {
			return nil, "", false, nil
		}
	}
	rec := sec.missingRecord(key, sec.Region.Absent(key), sec.stamp())
	if err := s.cfg.Store.PutSection(ctx, rec); err != nil {
		return nil, "", true, err
	}
	tier = providers.TierUpstream
	if !load.called {
		tier = providers.TierDatabase
	}
	return &rec, tier, true, nil
}

// How a trip that loads a region (regionTrip) goes about it: as a
// request's (its failure logged once for the region, whoever else waits
// on it, and the region of the section's siblings loaded in the
// background once it called the upstream), as a sibling's background load
// (logged), or as LoadRegion's (its caller reports the failure).
const (
	regionForRequest = iota
	regionForSibling
	regionForCaller
)

// regionTrip is the trip that loads region of the section (loadRegion),
// shared by the requests needing it, the background loads of siblings and
// LoadRegion, within the instance and, as a lease, across the fleet;
// whichever starts it says how (regionForRequest, ...). A request's trip
// loads no sibling in own, the sections that request reads itself.
func (sec *Section) regionTrip(region string, how int, own []string) trip[regionLoad] {
	s, fk := sec.svc, sec.regionFlightKey(region)
	return trip[regionLoad]{key: fk, note: s.fl.note(fk),
		fetch: func(ctx context.Context) (regionLoad, string, error) {
			load, err := sec.loadRegion(ctx, region)
			if err != nil && how != regionForCaller {
				sec.logFailure(err, false)
			}
			if err == nil && load.called && how == regionForRequest {
				s.loadSiblingsLater(sec, region, own)
			}
			return load, providers.TierUpstream, err
		}}
}

// loggedFailure is an error already logged where it happened: a region
// load's, as each key that waited on the load gets it. Kind and code are
// the wrapped error's.
type loggedFailure struct{ error }

func (e loggedFailure) Unwrap() error { return e.error }

// loadRegion asks the module for region, unless its marker says it was
// loaded within the TTL (by another flight, or another instance: in a
// fleet the marker is read past memory), and stores every value of the
// answer, then the marker. The module's empty answer is its word that the
// region has no data (the ACS module answers so, without a call, for the
// states it does not cover; an upstream's empty answer for a state it
// covers is the module's error): it is marked loaded with no key. An
// answer whose values all lie in other regions is upstream_bad_response
// and stores nothing.
func (sec *Section) loadRegion(ctx context.Context, region string) (regionLoad, error) {
	st := sec.svc.cfg.Store
	if m, _, err := providers.Reload(ctx, sec.svc.reads.Section, providers.SectionID{Section: loadedSection(sec.Name), Key: region}); err == nil &&
		sec.svc.cfg.Now().Before(m.ExpiresAt) && !sec.superseded(m) {
		return regionLoad{}, nil
	}
	vals, err := sec.FetchRegion(ctx, region)
	if err != nil {
		return regionLoad{}, err
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		if r, ok := sec.Region.Of(k); ok && r == region {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 && len(vals) > 0 {
		// Values, none of them of region: an answer to another question,
		// which must not mark region loaded with nothing in it.
		return regionLoad{}, providers.Errorf(providers.KindUpstream, providers.CodeUpstreamBadResponse,
			"the %s source answered for region %s with values of other regions only", sec.Name, region)
	}
	slices.Sort(keys)
	fetched := sec.stamp()
	recs := make([]providers.SectionRecord, 0, len(keys))
	for _, k := range keys {
		rec, err := sec.valueRecord(k, vals[k], fetched)
		if err != nil {
			return regionLoad{}, err
		}
		recs = append(recs, rec)
	}
	for start := 0; start < len(recs); start += regionChunk {
		if _, err := providers.CopySections(ctx, st, recs[start:min(start+regionChunk, len(recs))]); err != nil {
			return regionLoad{}, err
		}
	}
	marker := providers.SectionRecord{Section: loadedSection(sec.Name), Key: region, Source: sec.Source,
		FetchedAt: fetched, ExpiresAt: fetched.Add(sec.TTL)}
	marker.Data, _ = json.Marshal(struct {
		Keys int `json:"keys"`
	}{len(recs)})
	if len(recs) > 0 {
		marker.Source, marker.Vintage = recs[0].Source, recs[0].Vintage
	}
	if err := st.PutSection(ctx, marker); err != nil {
		return regionLoad{}, err
	}
	byKey := make(map[string]*providers.SectionRecord, len(recs))
	for i := range recs {
		byKey[recs[i].Key] = &recs[i]
	}
	return regionLoad{records: byKey, called: true}, nil
}

// loadSiblingsLater loads region, in the background, for every other
// section of sec's region kind whose module answers by region, so the
// first need of one table set stores the other too. Each load runs as a
// background refresh does (a slot of its own, the service's context, its
// module's breaker) and shares the flight and lease a request needing it
// would take. The sections in own are left out: the request that led
// the trip reads them itself.
func (s *Service) loadSiblingsLater(sec *Section, region string, own []string) {
	for _, sib := range s.regionSections(sec.Region.Kind) {
		if sib == sec || slices.Contains(own, sib.Name) {
			continue
		}
		key := sib.regionFlightKey(region)
		s.bg.start(key, s.cfg.Now(), func(ctx context.Context) {
			_, err := fly(&s.fl, ctx, context.WithoutCancel(ctx), sib.regionTrip(region, regionForSibling, nil))
			if err != nil && providers.KindOf(err) != providers.KindCanceled {
				s.bg.failed(key, providers.CodeOf(err), s.cfg.Now().Add(s.cfg.RefreshRetry))
			}
		})
	}
}

// regionSections returns the sections whose modules answer regions of
// kind, in catalogue order.
func (s *Service) regionSections(kind string) []*Section {
	var out []*Section
	for _, e := range Catalog {
		if sec := s.cfg.Sections[e.Section]; e.Section != "" && sec != nil &&
			sec.Region != nil && sec.FetchRegion != nil && sec.Region.Kind == kind {
			out = append(out, sec)
		}
	}
	return out
}

// RegionSections names the configured sections whose modules answer whole
// regions of kind (RegionState: the ACS sections), in catalogue order:
// what LoadRegion can load.
func (s *Service) RegionSections(kind string) []string {
	var out []string
	for _, sec := range s.regionSections(kind) {
		out = append(out, sec.Name)
	}
	return out
}

// LoadRegion stores every key of region for the named section, as the
// first need of a key in it would, unless the region was loaded within
// its TTL: then it makes no call and changes nothing, so loading again is
// harmless. It shares the flight (and lease) of requests needing the
// region meanwhile. Errors: KindInvalid when the section does not load by
// region or region is not one (for states, two digits), else the
// module's and the store's.
func (s *Service) LoadRegion(ctx context.Context, section, region string) (RegionLoaded, error) {
	sec := s.cfg.Sections[section]
	if sec == nil || sec.Region == nil || sec.FetchRegion == nil {
		return RegionLoaded{}, providers.Errorf(providers.KindInvalid, providers.CodeInvalidParameter,
			"the %s section does not load by region", section)
	}
	l, err := fly(&s.fl, ctx, context.WithoutCancel(ctx), sec.regionTrip(region, regionForCaller, nil))
	if err != nil {
		return RegionLoaded{}, err
	}
	load := l.val
	return RegionLoaded{Section: section, Region: region, Keys: len(load.records), Called: load.called}, nil
}
