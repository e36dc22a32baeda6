package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Options are the per-request knobs of the sections.
type Options struct {
	// Radius is the amenities search radius in metres.
	Radius int

	// amenities is what the request holds of the amenities at Radius,
	// handed to a section derived from them (Section.FromAmenities); nil
	// when it holds nothing it may hand on.
	amenities *held

	// own names the sections the request fetches itself (Enrich's names
	// that missed): a region load it leads does not load them in the
	// background as the siblings of its section (loadSiblingsLater), so
	// each comes from the request's own read, and says so, whichever trip
	// ends first. A section it read fresh races with nothing: its sibling
	// load still preloads the rest of its region.
	own []string
}

// Section is one enrichment section: where its data comes from, the natural
// key it is cached under (a tract for ACS, a point for flood, a point and a
// radius for amenities), and how long a value stays fresh. Values are kept
// in the store as JSON, so a restart serves what is still fresh without an
// upstream call. An expired value is served as stale: at once while it is
// refreshed in the background, or (RefreshSync) when fetching a new one
// failed. Only a request for a value never stored waits on the upstream.
// Build Sections in configuration; the Service owns them afterwards.
type Section struct {
	Name   string
	Source string // module name, reported when the value does not say
	TTL    time.Duration
	// Refresh is RefreshBackground (also the zero value) or RefreshSync:
	// whether a request finding an expired value is answered with it at
	// once while one refresh runs in the background, or waits for a new
	// value and gets the expired one only when that fails.
	Refresh string
	// Supersedes, when set, reports whether the module now serves a
	// newer release than the vintage a value was stored with (see
	// providers.Superseder): such a value is treated as expired.
	Supersedes func(vintage string) bool
	// Key returns the natural key of p's data, or ok=false when p lacks what
	// the section needs (a reverse-geocoded point outside any tract, say).
	Key func(p *providers.Property, o Options) (key string, ok bool)
	// Fetch calls the provider module.
	Fetch FetchFunc
	// Embed maps a member name to another section whose value is embedded
	// into this one's under that name when it is available (housing embeds
	// the fair market rents). The embedded section is cached and fails on
	// its own, so its outage never shortens or poisons this section's value.
	Embed map[string]string
	// Upgrade, when set, rewrites a stored value in the shape the module
	// returns now, so a value an older version stored (and still holds for
	// its TTL, and past it as stale) reads like a new one. It is applied to
	// every value read from the store and must return a current value as
	// is, cheaply. Nil means the stored shape never changed.
	Upgrade func(data []byte) []byte
	// Region and FetchRegion, when both set, fetch the key's whole region
	// (every tract of its state) at the first need of a key in it, instead
	// of the key alone: see region.go. Add sets them when the module
	// answers by region.
	Region      *Region
	FetchRegion RegionFetchFunc
	// FromAmenities, when set, is how the section's value is computed
	// from the amenities around the point (see Derivation); Fetch is
	// then that computation, run under the module's breaker and timeout.
	FromAmenities *Derivation

	svc *Service
}

// Section statuses and cache outcomes reported in meta.sections.
const (
	StatusOK          = "ok"
	StatusPartial     = "partial"
	StatusStale       = "stale"
	StatusUnavailable = "unavailable"
	CacheHit          = "hit"
	CacheMiss         = "miss"
)

// SectionResult is one section of a response: its JSON value (nil when
// unavailable) and how it was produced. Failed is set when it is
// unavailable because an upstream or propertyd failed (an error of a
// providers.Kind that is a Failure), not because there is nothing to say,
// and when a part it embeds is missing for such a failure (status
// partial, Meta.FailedParts): the gateway does not charge for a section
// that failed, whole or in part.
type SectionResult struct {
	Data   json.RawMessage
	Meta   providers.SectionMeta
	Failed bool
	// Tier is where the value came from (TierMemory, TierDatabase,
	// TierUpstream: the dearest, with the sections it embeds), "" when no
	// value was read. Metrics and the request log count it.
	Tier string
	// Calls is the HTTP requests sent upstream for it by this call (see
	// providers.Calls), also when it failed.
	Calls int
	// Until is set when the result is settled: every value it holds (the
	// sections it embeds included) was read fresh from storage, as a value
	// or as the upstream's word that it has none, without a call. It is
	// when the first of them expires: until then the same request reads
	// the same, unless a newer release supersedes a value (Superseded,
	// for the vintage in Meta; an embedded section whose releases move
	// leaves the result unsettled). Zero otherwise.
	Until time.Time

	// value is Data as the module answered it, when this call's trip
	// asked the module: a section derived from this one takes it rather
	// than decoding Data. It is shared and must not be changed.
	value any
}

// settledWith is until, the settled time of a value, once it embeds sub,
// the value of section other: zero when either is unsettled or sub's
// releases move, else the earlier of the two.
func (s *Service) settledWith(until time.Time, other string, sub SectionResult) time.Time {
	if until.IsZero() || sub.Until.IsZero() {
		return time.Time{}
	}
	if sec := s.cfg.Sections[other]; sec != nil && sec.Supersedes != nil && sub.Meta.Vintage != "" {
		return time.Time{}
	}
	if sub.Until.Before(until) {
		return sub.Until
	}
	return until
}

// dearer returns the dearer of two tiers (TierUpstream over TierDatabase
// over TierMemory; "" is cheapest): where a value made of others came
// from, as a whole.
func dearer(a, b string) string {
	if tierRank(b) > tierRank(a) {
		return b
	}
	return a
}

func tierRank(tier string) int {
	switch tier {
	case providers.TierMemory:
		return 1
	case providers.TierDatabase:
		return 2
	case providers.TierUpstream:
		return 3
	}
	return 0
}

// from returns r, read from tier.
func (r SectionResult) from(tier string) SectionResult {
	r.Tier = tier
	return r
}

// Enrich fetches the named sections of p in parallel, each under its own
// breaker and timeout, and returns their results in the order of names. A
// failing section never fails the others: it comes back with status
// unavailable (or stale, with the expired value). An expired value never
// makes the request wait unless its section refreshes synchronously
// (RefreshSync).
func (s *Service) Enrich(ctx context.Context, p *providers.Property, names []string, o Options) []SectionResult {
	if len(names) == 0 {
		return nil
	}
	out := make([]SectionResult, len(names))
	// Fresh cached values are read inline: a goroutine per section cost
	// more than reading it when the value is in memory (most requests).
	// What was read of the others is handed on, so no value is read twice.
	var misses []int
	var reads []sectionRead
	for i, name := range names {
		r, rd, ok := s.freshSection(ctx, p, name, o)
		if ok {
			out[i] = r
			continue
		}
		if reads == nil {
			reads = make([]sectionRead, len(names))
		}
		misses, reads[i] = append(misses, i), rd
	}
	if len(misses) > 0 {
		// A slice of its own: a region trip may outlive the request (it
		// runs on when the request goes), and the caller may reuse names.
		o.own = make([]string, len(misses))
		for j, i := range misses {
			o.own[j] = names[i]
		}
	}
	switch len(misses) {
	case 0:
	case 1:
		i := misses[0]
		out[i], _ = s.sectionOf(ctx, p, names[i], s.handedOn(names, i, out, nil, o), false, &reads[i])
	default:
		s.fetchSections(ctx, p, o, names, misses, reads, out)
	}
	return out
}

// fetchSections fills out[i] for each i of misses, concurrently: each
// waits on its own upstream, but a section derived from the amenities of
// the same request (handedOn) waits for them, and is handed them.
func (s *Service) fetchSections(ctx context.Context, p *providers.Property, o Options, names []string, misses []int, reads []sectionRead, out []SectionResult) {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	done := make([]chan struct{}, len(names))
	for _, i := range misses {
		done[i] = make(chan struct{})
	}
	for _, i := range misses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			oi := s.handedOn(names, i, out, func(j int) (error, bool) {
				if done[j] == nil {
					return nil, false
				}
				<-done[j]
				return errs[j], true
			}, o)
			out[i], errs[i] = s.sectionOf(ctx, p, names[i], oi, false, &reads[i])
		}()
	}
	wg.Wait()
}

// handedOn returns o for names[i], with the amenities of the request
// handed on when names[i] is derived from them (Section.FromAmenities) at
// o's radius and the request includes them: out holds them once read,
// and wait, when set, waits until out[j] is fetched and returns its error
// (ok false when out[j] was read, not fetched). Only what the derived
// section could take from the amenities' own trip is handed on: a fresh
// value, or the error the trip failed with; for an expired value the
// derived section fetches them anew, as it would alone.
func (s *Service) handedOn(names []string, i int, out []SectionResult, wait func(j int) (error, bool), o Options) Options {
	sec := s.cfg.Sections[names[i]]
	if sec == nil || sec.FromAmenities == nil || sec.FromAmenities.Radius != o.Radius {
		return o
	}
	j := slices.Index(names, providers.SectionAmenities)
	if j < 0 || j == i {
		return o
	}
	var err error
	if wait != nil {
		err, _ = wait(j)
	}
	switch r := out[j]; {
	case r.Data != nil && r.Meta.Status == StatusOK:
		o.amenities = &held{r: r}
	case r.Data == nil && err != nil:
		o.amenities = &held{err: err}
	}
	return o
}

// held is a section's result a request already has in hand, handed to a
// section derived from it so that it is neither read nor fetched again:
// a fresh value, or the error fetching it failed with.
type held struct {
	r   SectionResult
	err error
}

// amenities returns the amenities h holds: the value the module answered
// when the request's trip asked it, else Data decoded; or h's error.
func (h held) amenities() (*providers.Amenities, error) {
	if h.err != nil {
		return nil, h.err
	}
	if a, ok := h.r.value.(*providers.Amenities); ok && a != nil {
		return a, nil
	}
	var out providers.Amenities
	if err := json.Unmarshal(h.r.Data, &out); err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "cached amenities are unreadable")
	}
	return &out, nil
}

// derive is the Fetch of a section derived from the amenities (see
// Derivation): from those the request handed on, else from those read
// through their section.
func (sec *Section) derive(ctx context.Context, p *providers.Property, o Options) (any, error) {
	h := o.amenities
	if h == nil {
		r, err := sec.svc.sectionOf(ctx, &providers.Property{Latitude: p.Latitude, Longitude: p.Longitude},
			providers.SectionAmenities, Options{Radius: sec.FromAmenities.Radius}, true, nil)
		h = &held{r: r, err: err}
	}
	a, err := h.amenities()
	if err != nil {
		return nil, providers.As(err)
	}
	return sec.FromAmenities.Value(a), nil
}

// SectionOf returns one section of p. The error is non-nil exactly when the
// result has no data (status unavailable): KindInvalid for an unknown
// section, KindUnprocessable (section_not_applicable) when p lacks what the
// section needs, else the upstream's error.
func (s *Service) SectionOf(ctx context.Context, p *providers.Property, name string, o Options) (SectionResult, error) {
	return s.sectionOf(ctx, p, name, o, false, nil)
}

// sectionOf is SectionOf; with fetchExpired an expired value is fetched
// anew before answering, as RefreshSync does, whatever the section's mode:
// a module deriving its value from another section's (osm-walk from the
// amenities) must not derive it from a stale one and store it as fresh.
// rd, when set, is what the caller already read of the section.
func (s *Service) sectionOf(ctx context.Context, p *providers.Property, name string, o Options, fetchExpired bool, rd *sectionRead) (SectionResult, error) {
	sec, ok := s.cfg.Sections[name]
	if !ok {
		err := providers.Errorf(providers.KindUnavailable, providers.CodeSectionNotConfigured, "the %s section is not configured", name)
		return SectionResult{Meta: providers.SectionMeta{Status: StatusUnavailable, Error: err.Code}, Failed: true}, err
	}
	r, err := sec.get(ctx, p, o, fetchExpired, rd)
	if r.Data == nil {
		return r, err
	}
	for member, other := range sec.Embed {
		sub, _ := s.SectionOf(ctx, p, other, o)
		r.Calls += sub.Calls
		r.Until = s.settledWith(r.Until, other, sub)
		if sub.Data != nil {
			r.Data = embedMember(r.Data, member, sub.Data)
			r.Tier = dearer(r.Tier, sub.Tier)
		} else if sub.Failed {
			r.partFailed(member, sub.Meta)
		}
	}
	return r, err
}

// partFailed records in r that its member is missing because the section
// it embeds failed with meta (an upstream's or propertyd's failure, not
// the source's word that it has nothing): r names it in FailedParts, says
// partial where it said ok, carries the part's error code and retry_after
// unless it has its own, and is not charged (Failed). A part that has
// nothing to give (not found) is left out without a word.
func (r *SectionResult) partFailed(member string, meta providers.SectionMeta) {
	r.Meta.FailedParts = append(r.Meta.FailedParts, member)
	slices.Sort(r.Meta.FailedParts)
	if r.Meta.Status == StatusOK {
		r.Meta.Status = StatusPartial
	}
	if r.Meta.Error == "" {
		r.Meta.Error, r.Meta.RetryAfter = meta.Error, meta.RetryAfter
	}
	r.Failed = true
}

// sectionRead is one read of a section's value: the section, the natural
// key (ok false when the property lacks what the section needs), what the
// store held (nil: nothing, or the store failed, which is served like a
// miss), the tier that answered, whether the value is fresh, and the
// note a trip that fetches it takes (see flights).
type sectionRead struct {
	name  string
	key   string
	ok    bool
	rec   *providers.SectionRecord
	tier  string
	fresh bool
	note  note
}

// freshSection is SectionOf when the section and every section it embeds
// have a fresh cached value; ok is false otherwise, nothing was counted,
// and rd is what was read of the section itself.
func (s *Service) freshSection(ctx context.Context, p *providers.Property, name string, o Options) (r SectionResult, rd sectionRead, ok bool) {
	rd.name = name
	sec, ok := s.cfg.Sections[name]
	if !ok {
		return SectionResult{}, rd, false
	}
	if rd = sec.read(ctx, p, o); !rd.fresh || rd.rec.Missing {
		return SectionResult{}, rd, false
	}
	r = sec.result(rd.rec, StatusOK, CacheHit).from(rd.tier)
	r.Until = rd.rec.ExpiresAt
	for member, other := range sec.Embed {
		sub, _, ok := s.freshSection(ctx, p, other, o)
		if !ok {
			return SectionResult{}, rd, false
		}
		r.Data = embedMember(r.Data, member, sub.Data)
		r.Tier = dearer(r.Tier, sub.Tier)
		r.Until = s.settledWith(r.Until, other, sub)
	}
	return r, rd, true
}

// read reads the section's value for p. A value in an older shape comes
// back upgraded (see Section.Upgrade), in a copy: stored values are shared.
func (sec *Section) read(ctx context.Context, p *providers.Property, o Options) sectionRead {
	rd := sectionRead{name: sec.Name}
	if rd.key, rd.ok = sec.Key(p, o); !rd.ok {
		return rd
	}
	rd.note = sec.svc.fl.note(rd.key)
	rd.rec, rd.tier, rd.fresh = sec.check(sec.svc.reads.Section.Get(ctx, providers.SectionID{Section: sec.Name, Key: rd.key}))
	if rd.rec != nil && !rd.fresh {
		// A trip that replaces an expired value reads past where it was
		// found (see flights): memory may still hold a value the
		// database has since replaced (a refresh that just ended).
		rd.note = rd.note.unusable(rd.tier)
	}
	return rd
}

// reread is the read of a trip that must recheck (see flights), past
// memory: in a fleet another instance may have written the database
// behind this one's memory, and alone too memory can lag the database for
// a moment, since the memory tier admits a new value asynchronously.
// Taking memory's word here would call the upstream for a value already
// stored.
func (sec *Section) reread(ctx context.Context, key string) (*providers.SectionRecord, bool) {
	rec, _, fresh := sec.check(providers.Reload(ctx, sec.svc.reads.Section, providers.SectionID{Section: sec.Name, Key: key}))
	return rec, fresh
}

// check turns a read of the section's value into what the section serves:
// nil when there is none or the store failed, the upgraded value, and
// whether it is fresh.
func (sec *Section) check(rec *providers.SectionRecord, tier string, err error) (*providers.SectionRecord, string, bool) {
	if err != nil {
		return nil, "", false
	}
	if sec.Upgrade != nil {
		if data := sec.Upgrade(rec.Data); !sameBytes(data, rec.Data) {
			cp := *rec
			cp.Data = data
			rec = &cp
		}
	}
	return rec, tier, sec.svc.cfg.Now().Before(rec.ExpiresAt) && !sec.superseded(rec)
}

// sameBytes reports whether a and b are the same slice, not equal ones:
// an Upgrade returns a current value as is.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Superseded reports whether a value of the named section with vintage is
// of a release older than the one its module serves now (see
// Section.Supersedes): an answer kept with it must not be served again.
// A section without releases, or not configured, supersedes nothing.
func (s *Service) Superseded(name, vintage string) bool {
	sec := s.cfg.Sections[name]
	return sec != nil && sec.Supersedes != nil && vintage != "" && sec.Supersedes(vintage)
}

// superseded reports whether r holds data of a release older than the one
// its module serves now: it is then due for a refresh whatever its TTL.
func (sec *Section) superseded(r *providers.SectionRecord) bool {
	return sec.Supersedes != nil && r.Vintage != "" && !r.Missing && sec.Supersedes(r.Vintage)
}

// flightKey is the key one fetch of the section's value at key is shared
// under: by concurrent requests, and by a background refresh and the
// requests that need the value meanwhile.
func (sec *Section) flightKey(key string) string { return "sec:" + sec.Name + ":" + key }

// embedMember returns the JSON object obj with member set to val appended.
func embedMember(obj json.RawMessage, member string, val json.RawMessage) json.RawMessage {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return obj
	}
	name, _ := json.Marshal(member)
	out := make([]byte, 0, len(obj)+len(name)+len(val)+2)
	out = append(out, obj[:len(obj)-1]...)
	if len(bytes.TrimSpace(obj[1:len(obj)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, name...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, '}')
}

func (sec *Section) get(ctx context.Context, p *providers.Property, o Options, fetchExpired bool, rd *sectionRead) (SectionResult, error) {
	if rd == nil {
		r := sec.read(ctx, p, o)
		rd = &r
	}
	if !rd.ok {
		err := providers.Errorf(providers.KindUnprocessable, providers.CodeSectionNotApplicable,
			"the %s section needs data this property does not have", sec.Name)
		return sec.unavailable(err), err
	}
	key, cached, tier := rd.key, rd.rec, rd.tier
	if rd.fresh {
		r, err := sec.result(cached, StatusOK, CacheHit), error(nil)
		if cached.Missing {
			r, err = sec.missing(cached, CacheHit, tier)
		}
		r = r.from(tier)
		r.Until = cached.ExpiresAt
		return r, err
	}
	if cached != nil && sec.Refresh != RefreshSync && !fetchExpired {
		// Expired: answer with what is stored, never wait for the
		// upstream; one refresh runs in the background. The answer says
		// how the last refresh ended, read before this one starts.
		failure := sec.svc.bg.lastFailure(sec.flightKey(key))
		sec.refreshLater(p, o, rd)
		if cached.Missing {
			return sec.missing(cached, CacheHit, tier)
		}
		return sec.stale(cached, failure).from(tier), nil
	}
	l, err := fly(&sec.svc.fl, ctx, context.WithoutCancel(ctx), sec.fetchTrip(p, o, key, cached, rd.note))
	r, err := sec.landed(l, err, cached, tier)
	r.Calls = l.calls
	return r, err
}

// fetched is what a trip that fetches a section's value lands with: the
// record stored, and the value the module answered when the trip asked it
// (nil when the record was read from the store, or says there is none).
type fetched struct {
	rec *providers.SectionRecord
	val any
}

// landed is the result of a trip that fetched the section's value (l,
// err), cached being what the caller had read, from tier.
func (sec *Section) landed(l landed[fetched], err error, cached *providers.SectionRecord, tier string) (SectionResult, error) {
	if err == nil {
		cache := CacheMiss
		if l.tier == providers.TierDatabase {
			cache = CacheHit
		}
		if l.val.rec.Missing {
			return sec.missing(l.val.rec, cache, l.tier)
		}
		r := sec.result(l.val.rec, StatusOK, cache).from(l.tier)
		r.value = l.val.val
		return r, nil
	}
	if cached != nil && providers.KindOf(err) != providers.KindCanceled {
		if cached.Missing {
			// An expired no-data answer is no value to serve stale.
			return sec.missing(cached, CacheHit, tier)
		}
		return sec.stale(cached, providers.CodeOf(err)).from(tier), nil
	}
	return sec.unavailable(err), err
}

// refreshLater refreshes the expired value of p at key in the background,
// unless a refresh of it is running or due later (see refresher). The
// refresh is the trip a synchronous fetch of the value takes (so requests
// needing the value meanwhile join it), runs under the module's own
// breaker and timeout, and, when it fails, keeps the expired value and has
// it served stale with the error until it is tried again.
func (sec *Section) refreshLater(p *providers.Property, o Options, rd *sectionRead) {
	s := sec.svc
	fk := sec.flightKey(rd.key)
	pc := *p // the request's record may be reused once it is answered
	t := sec.fetchTrip(&pc, o, rd.key, rd.rec, rd.note)
	s.bg.start(fk, s.cfg.Now(), func(ctx context.Context) {
		_, err := fly(&s.fl, ctx, ctx, t)
		if err == nil || providers.KindOf(err) == providers.KindCanceled {
			return
		}
		wait := s.cfg.RefreshRetry
		if ra := providers.As(err).RetryAfter; ra > 0 {
			wait = ra
		}
		s.bg.failed(fk, providers.CodeOf(err), s.cfg.Now().Add(wait))
	})
}

// fetchTrip is the trip that fetches the section's value at key for p:
// it reads the value again first when it must (see flights), else asks
// the module (fetchAndStore). had is what the caller read (nil: nothing).
func (sec *Section) fetchTrip(p *providers.Property, o Options, key string, had *providers.SectionRecord, n note) trip[fetched] {
	return trip[fetched]{
		key: sec.flightKey(key), note: n,
		recheck: func(ctx context.Context) (fetched, bool) {
			rec, fresh := sec.reread(ctx, key)
			return fetched{rec: rec}, fresh
		},
		fetch: func(ctx context.Context) (fetched, string, error) {
			return sec.fetchAndStore(ctx, p, o, key, had)
		},
	}
}

// fetchAndStore asks the module for the section's value at key and
// stores the answer (a value, or the upstream's word that it has no data
// there), and says where the value came from (see trip.fetch). It runs
// once for everyone sharing the trip, so a failure is logged once,
// however many requests wait on it (and a region load's once for the
// region, however many keys wait on it). had is what the caller read
// (nil: nothing), which a failure leaves to be served stale.
func (sec *Section) fetchAndStore(ctx context.Context, p *providers.Property, o Options, key string, had *providers.SectionRecord) (_ fetched, tier string, err error) {
	defer func() {
		if err == nil {
			sec.svc.bg.succeeded(sec.flightKey(key))
		} else if _, logged := errors.AsType[loggedFailure](err); !logged {
			sec.logFailure(err, had != nil && !had.Missing)
		}
	}()
	if sec.FetchRegion != nil {
		// The module answers the key's whole region at once (region.go).
		if rec, tier, handled, err := sec.fetchRegional(ctx, key, o.own); handled {
			return fetched{rec: rec}, tier, err
		}
	}
	store := sec.svc.cfg.Store
	val, err := sec.Fetch(ctx, p, o)
	if providers.KindOf(err) == providers.KindNotFound {
		// The upstream has no data here: remember that for the TTL,
		// as a value would be, instead of asking on every request.
		rec := sec.missingRecord(key, providers.As(err), sec.stamp())
		if err := store.PutSection(ctx, rec); err != nil {
			return fetched{}, providers.TierUpstream, err
		}
		return fetched{rec: &rec}, providers.TierUpstream, nil
	}
	if err != nil {
		return fetched{}, providers.TierUpstream, err
	}
	rec, err := sec.valueRecord(key, val, sec.stamp())
	if err != nil {
		return fetched{}, providers.TierUpstream, err
	}
	if err := store.PutSection(ctx, rec); err != nil {
		return fetched{}, providers.TierUpstream, err
	}
	return fetched{rec: &rec, val: val}, providers.TierUpstream, nil
}

// stale is the result of serving the expired value r: status stale, from
// the store, with its age and, when set, the code of the error that kept
// it from being refreshed.
func (sec *Section) stale(r *providers.SectionRecord, code string) SectionResult {
	res := sec.result(r, StatusStale, CacheHit)
	age := max(0, int(sec.svc.cfg.Now().Sub(r.FetchedAt)/time.Second))
	res.Meta.AgeSeconds, res.Meta.Error = &age, code
	return res
}

func (sec *Section) result(r *providers.SectionRecord, status, cache string) SectionResult {
	times := &[2]time.Time{r.FetchedAt.UTC(), r.ExpiresAt.UTC()} // one allocation for both
	src := r.Source
	if src == "" {
		src = sec.Source
	}
	return SectionResult{Data: r.Data, Meta: providers.SectionMeta{
		Status: status, Source: src, Vintage: r.Vintage, FetchedAt: &times[0], ExpiresAt: &times[1], Cache: cache,
	}}
}

// missing is the result of a record saying the upstream has no data at
// the key, read from tier: unavailable, with the upstream's not-found
// error and the times of the answer that said so.
func (sec *Section) missing(r *providers.SectionRecord, cache, tier string) (SectionResult, error) {
	err := r.MissingError()
	res := sec.result(r, StatusUnavailable, cache).from(tier)
	res.Data, res.Meta.Error = nil, err.Code
	return res, err
}

func (sec *Section) unavailable(err error) SectionResult {
	m := providers.SectionMeta{Status: StatusUnavailable, Source: sec.Source, Cache: CacheMiss, Error: providers.CodeOf(err)}
	if ra := providers.As(err).RetryAfter; ra > 0 {
		secs := int((ra + time.Second - 1) / time.Second)
		m.RetryAfter = &secs
	}
	return SectionResult{Meta: m, Failed: providers.KindOf(err).Failure()}
}

// logFailure records why a section could not be fetched, once per failed
// fetch (not per request that waited on it). A misconfigured
// module (a missing or invalid API key) is an error an operator must fix;
// other upstream failures are warnings, since breakers and stale values
// absorb them.
func (sec *Section) logFailure(err error, stale bool) {
	pe := providers.As(err)
	if pe.Kind == providers.KindCanceled {
		return
	}
	level := slog.LevelWarn
	if pe.Code == "upstream_misconfigured" {
		level = slog.LevelError
	}
	sec.svc.cfg.Logger.Log(context.Background(), level, "section unavailable",
		"section", sec.Name, "module", sec.Source, "code", pe.Code, "served_stale", stale, "error", err.Error())
}

// Amenities returns the amenities section of the configuration as an
// amenities provider, for modules that derive their answer from amenity
// data (osm-walk): each call goes through that section as a request's does
// (its cache tiers, its module's breaker, coalescing), so a walk score
// makes no upstream call when the amenities are cached, except that expired
// amenities are fetched anew first (served stale only when that fails), so
// a score stored as fresh is not derived from stale amenities. The section is
// looked up at call time, so the provider can be handed to a module built
// before the amenities module is added; it answers KindUnavailable while
// no amenities section is configured or the service is not built yet.
func (c *Config) Amenities() providers.AmenitiesProvider {
	if c.Sections == nil {
		c.Sections = map[string]*Section{}
	}
	return sectionAmenities{sections: c.Sections}
}

type sectionAmenities struct{ sections map[string]*Section }

func (a sectionAmenities) Amenities(ctx context.Context, p providers.Point, radius int) (*providers.Amenities, error) {
	sec := a.sections[providers.SectionAmenities]
	if sec == nil || sec.svc == nil {
		return nil, providers.Errorf(providers.KindUnavailable, providers.CodeUpstreamUnavailable, "no amenities source is configured")
	}
	r, err := sec.svc.sectionOf(ctx, &providers.Property{Latitude: p.Lat, Longitude: p.Lng}, providers.SectionAmenities, Options{Radius: radius}, true, nil)
	return held{r: r, err: err}.amenities()
}
