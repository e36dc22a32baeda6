package dataload

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Vintages is the vintages of the loaded data served (a flood map's
// effective date, an extract's date), for a reader in front of a module to
// tell on the hot path whether a stored answer came from data no longer
// served (providers.Superseder): Gone reads a set listed at most Every
// ago, lists it again in the background, and never waits on the database.
// The zero value lists nothing; set List. It is safe for concurrent use;
// its fields must not change once it is in use.
type Vintages struct {
	// List returns the vintages served.
	List func(ctx context.Context) ([]string, error)
	// Every is how often the set is listed again.
	Every time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	set     atomic.Pointer[map[string]bool]
	due     atomic.Int64
	listing sync.Mutex
}

// Gone reports whether vintage is not among the vintages served when they
// were last listed: false until the first listing ends, and false for ""
// (an answer of the module, which has none). A failed listing leaves the
// set before it standing until the next.
func (v *Vintages) Gone(vintage string) bool {
	if vintage == "" || v.List == nil {
		return false
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	if t := now(); t.UnixNano() >= v.due.Load() && v.listing.TryLock() {
		v.due.Store(t.Add(v.Every).UnixNano())
		go func() {
			defer v.listing.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			list, err := v.List(ctx)
			if err != nil {
				return
			}
			set := make(map[string]bool, len(list))
			for _, s := range list {
				set[s] = true
			}
			v.set.Store(&set)
		}()
	}
	set := v.set.Load()
	return set != nil && !(*set)[vintage]
}
