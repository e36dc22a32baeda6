package providers_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func TestObservationCountsUpstreamCallsAndReadsConcurrently(t *testing.T) {
	o := &providers.Observation{}
	calls := new(providers.Calls)
	ctx := providers.WithCalls(context.Background(), calls)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			providers.CallsFrom(ctx).Add(1) // as the retry transport counts
			o.Served(providers.ReadSection, providers.TierMemory)
		}()
	}
	wg.Wait()
	if calls.Count() != 50 {
		t.Fatalf("calls counted through the context = %d, want 50", calls.Count())
	}
	o.AddUpstreamCalls(calls.Count())
	o.Served(providers.ReadRecord, providers.TierDatabase)
	o.Served("bogus", providers.TierDatabase)
	o.Served(providers.ReadRecord, "floppy")
	if n := o.UpstreamCalls(); n != 50 {
		t.Fatalf("upstream calls = %d, want 50", n)
	}
	want := map[[2]string]int{
		{providers.ReadSection, providers.TierMemory}:  50,
		{providers.ReadRecord, providers.TierDatabase}: 1, // unknown names ignored
	}
	if got := readsOf(o); !maps.Equal(got, want) {
		t.Fatalf("reads = %v, want %v", got, want)
	}
}

// readsOf collects what EachRead reports, failing on a zero count or a
// kind or tier reported twice.
func readsOf(o *providers.Observation) map[[2]string]int {
	got := map[[2]string]int{}
	o.EachRead(func(kind, tier string, n int) {
		if _, twice := got[[2]string{kind, tier}]; twice || n <= 0 {
			panic(fmt.Sprintf("EachRead reported %s/%s twice or with %d", kind, tier, n))
		}
		got[[2]string{kind, tier}] = n
	})
	return got
}

func TestOutcomeIsTheDearestTierServed(t *testing.T) {
	cases := []struct {
		name  string
		reads [][2]string
		want  string
	}{
		{"nothing read", nil, ""},
		{"warm record", [][2]string{{providers.ReadRecord, providers.TierMemory}}, providers.TierMemory},
		{"record from disk, section from memory",
			[][2]string{{providers.ReadRecord, providers.TierDatabase}, {providers.ReadSection, providers.TierMemory}}, providers.TierDatabase},
		{"a section fetched", [][2]string{{providers.ReadRecord, providers.TierMemory}, {providers.ReadSection, providers.TierUpstream}}, providers.TierUpstream},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := &providers.Observation{}
			for _, r := range c.reads {
				o.Served(r[0], r[1])
			}
			if got := o.Outcome(); got != c.want {
				t.Fatalf("Outcome() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestUncountedWorkCountsNothingAndNeverPanics(t *testing.T) {
	c := providers.CallsFrom(context.Background())
	if c != nil {
		t.Fatal("a call count appeared from nowhere")
	}
	c.Add(1)
	if c.Count() != 0 {
		t.Fatal("a nil call count counted")
	}
	var o *providers.Observation
	o.AddUpstreamCalls(3)
	o.Served(providers.ReadRecord, providers.TierMemory)
	if o.UpstreamCalls() != 0 || len(readsOf(o)) != 0 || o.Outcome() != "" {
		t.Fatal("a nil observation reported counts")
	}
}
