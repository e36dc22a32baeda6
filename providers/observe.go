package providers

import (
	"context"
	"sync/atomic"
)

// Tiers name where a record or a section value was served from. They are
// the values of the tier label in metrics and of the cache field in request
// logs, ordered from cheapest to dearest.
const (
	TierMemory   = "ristretto" // the in-memory cache
	TierDatabase = "sqlite"    // the database
	TierUpstream = "upstream"  // a provider module had to be asked
)

// Kinds of value a request reads, for Observation.Served.
const (
	ReadRecord  = "record"
	ReadSection = "section"
)

// Tiers lists every tier, cheapest first.
var Tiers = []string{TierMemory, TierDatabase, TierUpstream}

// ReadKinds lists every kind of read.
var ReadKinds = []string{ReadRecord, ReadSection}

// Observation counts what one request cost: the HTTP requests sent to
// upstreams (retries included) and which tier served each record and section
// value it read. The gateway keeps one per request: it counts the reads
// from the tiers the service returns with each value (service.Source.Tier,
// service.SectionResult.Tier), and the retry transport, which sits below
// every module and knows no request, counts the HTTP requests into the one
// the request's context carries (WithObservation). So a request log line
// can say what the request did without the service or a module knowing
// about logs or metrics. The zero value is ready to use; a nil
// *Observation ignores everything, so counting code never checks whether a
// request is observed. Safe for concurrent use.
type Observation struct {
	upstream atomic.Int64
	reads    [2][3]atomic.Int64 // [kind][tier], in the order of ReadKinds and Tiers
}

// Reset zeroes o, for a request that reuses it. Nothing may still be
// counting into it.
func (o *Observation) Reset() {
	o.upstream.Store(0)
	for i := range o.reads {
		for j := range o.reads[i] {
			o.reads[i][j].Store(0)
		}
	}
}

type observationKey struct{}

// IsObservationKey reports whether key is the context key under which
// WithObservation keeps an Observation: a context type of the caller's own
// may answer it from its Value method with the request's Observation,
// sparing a WithValue layer (an allocation) on every request.
func IsObservationKey(key any) bool {
	_, ok := key.(observationKey)
	return ok
}

// WithObservation returns ctx carrying o, for everything the request calls.
func WithObservation(ctx context.Context, o *Observation) context.Context {
	return context.WithValue(ctx, observationKey{}, o)
}

// ObservationFrom returns the Observation in ctx, or nil when the work is
// not observed.
func ObservationFrom(ctx context.Context) *Observation {
	o, _ := ctx.Value(observationKey{}).(*Observation)
	return o
}

// UpstreamCall counts one HTTP request sent to an upstream.
func (o *Observation) UpstreamCall() {
	if o != nil {
		o.upstream.Add(1)
	}
}

// Served counts one value of kind (ReadRecord or ReadSection) served from
// tier (TierMemory, TierDatabase or TierUpstream); other names are ignored.
func (o *Observation) Served(kind, tier string) {
	if o == nil {
		return
	}
	k, t := indexOf(ReadKinds, kind), indexOf(Tiers, tier)
	if k >= 0 && t >= 0 {
		o.reads[k][t].Add(1)
	}
}

// UpstreamCalls reports the HTTP requests sent to upstreams so far.
func (o *Observation) UpstreamCalls() int {
	if o == nil {
		return 0
	}
	return int(o.upstream.Load())
}

// EachRead calls f with every kind and tier that served values so far and
// how many, kinds and tiers in the order of ReadKinds and Tiers.
func (o *Observation) EachRead(f func(kind, tier string, n int)) {
	if o == nil {
		return
	}
	for k, kind := range ReadKinds {
		for t, tier := range Tiers {
			if n := o.reads[k][t].Load(); n > 0 {
				f(kind, tier, int(n))
			}
		}
	}
}

// Outcome summarizes the reads in one word: the dearest tier that served
// anything (TierUpstream when any value had to be fetched), or "" when the
// request read no record and no section.
func (o *Observation) Outcome() string {
	if o == nil {
		return ""
	}
	for t := len(Tiers) - 1; t >= 0; t-- {
		for k := range ReadKinds {
			if o.reads[k][t].Load() > 0 {
				return Tiers[t]
			}
		}
	}
	return ""
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
