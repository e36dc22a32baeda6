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
// value it read. The gateway keeps one per request and fills it from what
// the service returns with each value: the tier it came from
// (service.Source.Tier, service.SectionResult.Tier) and the HTTP requests
// sent for it (their Calls, see Calls). So a request log line can say what
// the request did without the service or a module knowing about logs or
// metrics, and nothing about the request travels in a context. The zero value is ready to use; a nil
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

// AddUpstreamCalls counts n HTTP requests sent to upstreams for the
// request: what the work it led reports (Calls).
func (o *Observation) AddUpstreamCalls(n int) {
	if o != nil && n > 0 {
		o.upstream.Add(int64(n))
	}
}

// Calls counts the HTTP requests one piece of work sends upstream, retries
// included. The service gives each trip (a call it makes once for all who
// need a value) a Calls in the context its module runs under; the retry
// transport, which sits below every module and knows no request, counts
// into it (CallsFrom); the service returns the count with the value
// (service.Source.Calls, service.SectionResult.Calls) to the caller whose
// trip it was, and the gateway adds it to the request's Observation. No
// request's Observation travels in a context. A nil *Calls counts nothing.
// Safe for concurrent use.
type Calls struct{ n atomic.Int64 }

// Add counts n more requests.
func (c *Calls) Add(n int) {
	if c != nil {
		c.n.Add(int64(n))
	}
}

// Count returns the requests counted so far.
func (c *Calls) Count() int {
	if c == nil {
		return 0
	}
	return int(c.n.Load())
}

type callsKey struct{}

// WithCalls returns ctx carrying c, for the module calls made under it.
func WithCalls(ctx context.Context, c *Calls) context.Context {
	return context.WithValue(ctx, callsKey{}, c)
}

// CallsFrom returns the Calls in ctx, or nil when none counts.
func CallsFrom(ctx context.Context) *Calls {
	c, _ := ctx.Value(callsKey{}).(*Calls)
	return c
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
