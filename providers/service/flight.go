package service

import (
	"context"
	"encoding/json"
	"hash/maphash"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/propertyd/propertyd/providers"
	"golang.org/x/sync/singleflight"
)

// flights is the one way the service coalesces the work behind a value it
// lacks: a geocoding, a reverse geocoding, a section's fetch, a region's
// load. Every such call is a trip, and fly makes it:
//
//   - concurrent callers of one key share one call (singleflight), which
//     runs detached from any one caller's cancellation (its own deadline
//     comes from the module's breaker), so a client that goes away does not
//     fail the others; each caller still stops waiting when its ctx ends;
//   - with Leases, the instances of a fleet share it too: the call runs
//     under the key's lease, so concurrent first requests spread over
//     instances make one upstream call;
//   - before calling anyone the trip reads the store again (its recheck)
//     when a write the caller's read could not see may have happened:
//     always in a fleet (another instance may have written while this one
//     waited for the lease), and alone when a trip of the key's stripe
//     ended since the caller's read, or when that read found a value in
//     the memory tier that would not do (memory admits new values
//     asynchronously, so the database may hold a newer one). So a cold key
//     costs one read on one instance, and two in a fleet;
//   - what a trip asked and found nothing for (KindNotFound) is
//     remembered in the store for MissTTL, keyed by what was asked, and
//     not asked again meanwhile, by this instance or another (misses).
//
// It answers each caller with the value, the tier it came from and
// whether the caller's own trip is the one that ran. Nothing else in the
// service touches singleflight, a lease or the memory tier. The zero value
// is unusable; Service.New builds it. Safe for concurrent use.
type flights struct {
	group  singleflight.Group
	leases Leases
	ended  flightsEnded
	misses misses
}

// note is what a caller knows of a key before it asks a trip for it,
// taken before it reads (see flights.note): the key's stripe and the count
// of trips of that stripe that had ended, and whether its read found, in
// memory, a value that would not do.
type note struct {
	stripe   string
	seen     uint64
	inMemory bool
}

// note returns the note of stripe, to take before reading the value a
// trip would fetch.
func (f *flights) note(stripe string) note {
	return note{stripe: stripe, seen: f.ended.before(stripe)}
}

// unusable marks that the caller's read found a value it cannot use in the
// tier named, which the trip must look past when it is the memory tier.
func (n note) unusable(tier string) note {
	n.inMemory = tier == providers.TierMemory
	return n
}

// trip is one call a caller needs made, for value type V.
type trip[V any] struct {
	// key names the trip: callers of one key share it, and it is the
	// lease's key in a fleet ("geo:...", "rev:...", "sec:...",
	// "region:...", see Leases).
	key string
	// note is the caller's, taken before its read.
	note note
	// recheck reads the store past memory and reports whether it holds a
	// value that will do; nil when the fetch itself reads what it needs.
	recheck func(ctx context.Context) (V, bool)
	// fetch asks the upstream and stores the answer, and says where the
	// value came from: TierUpstream, or TierDatabase when it found the
	// value stored after all (a region loaded meanwhile, say).
	fetch func(ctx context.Context) (V, string, error)
	// asked names what fetch asks, as misses remember it: "" when a
	// not-found answer is not remembered here (a section stores it as its
	// value instead).
	asked string
}

// landed is what a trip gives each caller that shared it.
type landed[V any] struct {
	val V
	// tier is where val came from: TierDatabase when the recheck or a
	// remembered miss answered, else what fetch said (TierUpstream when
	// it asked the upstream).
	tier string
	// asked is the trip's asked: what the caller that led it asked.
	asked string
	// led is true for the caller whose own trip ran.
	led bool
	// calls is the HTTP requests the trip sent upstream (see
	// providers.Calls), for the caller that led it: 0 for the others, and
	// for a trip inside another, whose calls count as the outer one's.
	calls int

	leader *byte
}

// fly makes t for every caller of t.key that asks meanwhile, and returns
// what it landed with. run is the context the trip runs under: a
// request's, detached from its cancellation (context.WithoutCancel), or
// a background job's, which the service's Close cancels. The error is
// the trip's, or ctx's when the caller stopped waiting.
func fly[V any](f *flights, ctx, run context.Context, t trip[V]) (landed[V], error) {
	me := new(byte) // who led: the trip that ran carries its caller's token
	ch := f.group.DoChan(t.key, func() (any, error) {
		l, err := runTrip(f, run, t)
		l.leader = me
		return l, err
	})
	select {
	case r := <-ch:
		l, _ := r.Val.(landed[V])
		l.led = l.leader == me
		if !l.led {
			l.calls = 0
		}
		return l, r.Err
	case <-ctx.Done():
		return landed[V]{}, providers.As(ctx.Err())
	}
}

// runTrip is one trip, made once for all who share it. Its module calls
// count into a providers.Calls of its own, or, for a trip made inside
// another (a region load inside a section's fetch, the amenities a walk
// score is derived from), into the outer trip's.
func runTrip[V any](f *flights, ctx context.Context, t trip[V]) (l landed[V], err error) {
	l = landed[V]{tier: providers.TierDatabase, asked: t.asked}
	if providers.CallsFrom(ctx) == nil {
		calls := new(providers.Calls)
		ctx = providers.WithCalls(ctx, calls)
		defer func() { l.calls = calls.Count() }()
	}
	recheck := f.leases != nil || t.note.inMemory || f.ended.moved(t.note.stripe, t.note.seen)
	if f.leases != nil {
		release, err := f.leases.Lease(ctx, t.key)
		if err != nil {
			return l, providers.As(err)
		}
		defer release()
	}
	defer f.ended.end(t.note.stripe)
	if recheck && t.recheck != nil {
		if v, ok := t.recheck(ctx); ok {
			l.val = v
			return l, nil
		}
	}
	if t.asked != "" {
		if err := f.misses.known(ctx, t.asked); err != nil {
			return l, err
		}
	}
	l.val, l.tier, err = t.fetch(ctx)
	if t.asked != "" && providers.KindOf(err) == providers.KindNotFound {
		f.misses.remember(ctx, t.asked, providers.As(err))
	}
	return l, err
}

// misses keeps in the store, for ttl, what a trip asked and found nothing
// for, as Missing records of section missSection keyed by what was asked:
// a restart, or another instance on the same database, does not ask
// again either. A negative ttl remembers nothing.
type misses struct {
	store  providers.Store
	reads  providers.Source[providers.SectionID, *providers.SectionRecord]
	fleet  bool // read past memory: another instance may have remembered
	ttl    time.Duration
	now    func() time.Time
	source string // the module asked, as the record's source
	logger *slog.Logger
}

// missSection is the store's section under which misses are kept. It is
// no section of a response.
const missSection = "geocoder_miss"

// known returns the remembered not-found error of asked, or nil when none
// is current. A store that fails to answer is taken as none: the upstream
// is asked. Alone, memory serves: this runs for every lookup of an
// unmatched spelling.
func (m misses) known(ctx context.Context, asked string) error {
	r, ok := m.current(ctx, missSection, asked)
	if !ok {
		return nil
	}
	return r.MissingError()
}

// current returns the record of section remembered for asked while it is
// current; a store that fails to answer is taken as none.
func (m misses) current(ctx context.Context, section, asked string) (*providers.SectionRecord, bool) {
	if m.ttl < 0 {
		return nil, false
	}
	id := providers.SectionID{Section: section, Key: asked}
	var r *providers.SectionRecord
	var err error
	if m.fleet {
		r, _, err = providers.Reload(ctx, m.reads, id)
	} else {
		r, _, err = m.reads.Get(ctx, id)
	}
	if err != nil || !r.Missing || !m.now().Before(r.ExpiresAt) {
		return nil, false
	}
	return r, true
}

// remember keeps, for ttl, that asking asked found nothing, with the
// upstream's error. Failing to remember costs only a later call, so a
// store error is logged, not returned.
func (m misses) remember(ctx context.Context, asked string, pe *providers.Error) {
	data, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{pe.Code, pe.Message})
	m.put(ctx, missSection, asked, data)
}

// unsettledSection is the store's section under which the geocoder's
// answers that do not settle what was asked for every caller are kept,
// keyed by what was asked: those Resolve refused (several different
// addresses, or an inexact match under match=strict) and several
// different addresses that match=best took the first of. It is no
// section of a response.
const unsettledSection = "geocoder_unsettled"

// unsettled returns the geocoder's remembered unsettled answer to asked,
// while it is current: the same question, in any match mode, is decided
// again from it without asking the geocoder.
func (m misses) unsettled(ctx context.Context, asked string) (providers.Location, bool) {
	r, ok := m.current(ctx, unsettledSection, asked)
	if !ok {
		return providers.Location{}, false
	}
	var loc providers.Location
	if err := json.Unmarshal(r.Data, &loc); err != nil {
		return providers.Location{}, false
	}
	return loc, true
}

// rememberUnsettled keeps, for ttl, the geocoder's unsettled answer loc
// to asked.
func (m misses) rememberUnsettled(ctx context.Context, asked string, loc providers.Location) {
	data, err := json.Marshal(loc)
	if err == nil {
		m.put(ctx, unsettledSection, asked, data)
	}
}

// put stores data for asked under section, as a missing record kept for
// ttl. Failing to remember costs only a later call, so a store error is
// logged, not returned.
func (m misses) put(ctx context.Context, section, asked string, data []byte) {
	if m.ttl < 0 {
		return
	}
	now := m.now().UTC().Truncate(time.Millisecond)
	err := m.store.PutSection(ctx, providers.SectionRecord{Section: section, Key: asked, Data: data,
		Source: m.source, FetchedAt: now, ExpiresAt: now.Add(m.ttl), Missing: true})
	if err != nil {
		m.logger.Warn("could not remember an upstream's answer", "section", section, "error", err.Error())
	}
}

// flightsEnded counts the trips that ended, per stripe of natural keys
// (a lookup key, a point, a section's key): a caller notes its stripe's
// count before its read (before), and the trip it starts reads again
// only when the count moved since (moved), since only then can a trip
// that wrote what the read missed have ended in between. Keys share a
// stripe by hash; a shared stripe costs a needless read, never a missed
// write.
type flightsEnded struct {
	seed maphash.Seed
	n    [64]atomic.Uint64
}

func (f *flightsEnded) init() { f.seed = maphash.MakeSeed() }

func (f *flightsEnded) stripe(key string) *atomic.Uint64 {
	return &f.n[maphash.String(f.seed, key)%uint64(len(f.n))]
}

// before returns key's stripe count, to note before reading key.
func (f *flightsEnded) before(key string) uint64 { return f.stripe(key).Load() }

// moved reports whether a trip of key's stripe ended since before
// returned seen.
func (f *flightsEnded) moved(key string, seen uint64) bool { return f.stripe(key).Load() != seen }

// end counts a trip of key's stripe that ended, after its writes.
func (f *flightsEnded) end(key string) { f.stripe(key).Add(1) }
