package service

import (
	"context"
	"sync"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// MaxBatch is the most addresses one batch may hold.
const MaxBatch = 25

// BatchItem is one address of a batch with the client's optional id and
// what it accepts of the geocoder's answer (see Resolve).
type BatchItem struct {
	ID      string
	Address providers.Address
	Mode    MatchMode
}

// BatchOutcome is the result for one item: either Property or Err is set.
type BatchOutcome struct {
	Index    int
	Item     BatchItem
	Property *providers.Property
	// FromDatabase is true when the record existed before this batch.
	FromDatabase bool
	// Tier is where the record came from, and Calls the upstream requests
	// its lookup sent (see Source): an item sharing another's lookup
	// reports none.
	Tier  string
	Calls int
	// Match is how the record matched the item's address, as a lookup
	// of it would say.
	Match providers.Match
	Err   error
}

// Batch looks every item up as Lookup does, concurrently within the
// configured bound, and returns one outcome per item in input order: no
// item is ever dropped and one bad address never fails the others. Items
// with the same spelling share one lookup; items that spell one address
// differently share its geocoder call as concurrent lookups do (see
// Lookup), and each spelling is asked of the geocoder only when the one
// asked first found no match. The caller validates the batch size.
func (s *Service) Batch(ctx context.Context, items []BatchItem) []BatchOutcome {
	out := make([]BatchOutcome, len(items))
	byKey := map[string][]int{}
	var keys []string
	norm := make([]address.Normalized, len(items))
	for i, it := range items {
		out[i] = BatchOutcome{Index: i, Item: it}
		n, err := address.NormalizeAny(it.Address)
		if err != nil {
			out[i].Err = err
			continue
		}
		norm[i] = n
		k := n.Key() + "\x00" + spelling(n.Building()) + "\x00" + string(it.Mode)
		if _, seen := byKey[k]; !seen {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	sem := make(chan struct{}, s.cfg.BatchConcurrency)
	var wg sync.WaitGroup
	// created holds the ids of the records a lookup of this batch created:
	// two spellings of one new address share one geocoder call, and only
	// one of the two lookups ran it, but the record is new to the batch.
	var mu sync.Mutex
	created := map[int64]bool{}
	for _, k := range keys {
		idx := byKey[k]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p, src, err := s.lookupNormalized(ctx, norm[idx[0]], items[idx[0]].Mode)
			if err == nil && src.Created {
				mu.Lock()
				created[p.ID] = true
				mu.Unlock()
			}
			for _, i := range idx {
				out[i].Property, out[i].Tier, out[i].Match, out[i].Err = p, src.Tier, src.Match, err
			}
			out[idx[0]].Calls = src.Calls
		}()
	}
	wg.Wait()
	for i := range out {
		if out[i].Err == nil {
			out[i].FromDatabase = !created[out[i].Property.ID]
		}
	}
	// A spelling the geocoder could not match takes the record another
	// spelling of the same address found: they are one property, as they
	// would be had that spelling been looked up first.
	found := map[string]int{}
	for i, o := range out {
		if o.Err == nil {
			found[norm[i].Key()] = i
		}
	}
	for i, o := range out {
		if providers.CodeOf(o.Err) != providers.ErrNoMatch.Code {
			continue
		}
		if j, ok := found[norm[i].Key()]; ok {
			out[i].Property, out[i].FromDatabase, out[i].Tier, out[i].Err = out[j].Property, out[j].FromDatabase, out[j].Tier, nil
			out[i].Match = out[j].Match
		}
	}
	return out
}
