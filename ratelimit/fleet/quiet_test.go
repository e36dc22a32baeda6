package fleet_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// A rate-limit answer one instance gets silences the three: each of them
// refuses to start a call until the quiet ends, and starts calls again
// after. A shorter quiet asked meanwhile does not cut the longer one.
func TestQuietAfterARateLimitHoldsForTheFleet(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	var (
		outs   []*ratelimit.Outbound
		quiets []*fleet.Quiet
	)
	for range 3 {
		in := open(t, u, prefix, fleet.Options{})
		q := in.c.Quiet("amenities")
		o := ratelimit.NewOutbound(ratelimit.Limit{}, 1)
		o.KeepQuiet(400*time.Millisecond, q, nil)
		outs = append(outs, o)
		quiets = append(quiets, q)
	}
	ctx := context.Background()
	for i, o := range outs {
		release, err := o.Acquire(ctx)
		if err != nil {
			t.Fatalf("instance %d before any rate limit: %v", i, err)
		}
		release()
	}
	if d := outs[0].RateLimited(ctx, 0); d != 400*time.Millisecond {
		t.Fatalf("RateLimited without a Retry-After kept quiet %v, want the 400ms asked", d)
	}
	outs[1].RateLimited(ctx, 0) // a second 429 seen meanwhile
	// A shorter quiet asked of the fleet meanwhile keeps the longer one.
	quiets[2].Hold(ctx, 50*time.Millisecond)
	if until, shared := quiets[2].Until(ctx); !shared || time.Until(until) < 300*time.Millisecond {
		t.Fatalf("after a 50ms quiet was asked within a 400ms one, the fleet's quiet ends in %v (read: %v); want the 400ms kept",
			time.Until(until), shared)
	}
	for i, o := range outs {
		_, err := o.Acquire(ctx)
		var qe *ratelimit.QuietError
		if !errors.As(err, &qe) || time.Until(qe.Until) < 200*time.Millisecond || time.Until(qe.Until) > 450*time.Millisecond {
			t.Fatalf("instance %d right after instance 0 was rate limited: %v; want a QuietError for about 400ms", i, err)
		}
		if i == 2 && !qe.Shared {
			t.Errorf("instance 2 learned of the quiet from itself; want from the fleet")
		}
	}
	time.Sleep(450 * time.Millisecond)
	for i, o := range outs {
		release, err := o.Acquire(ctx)
		if err != nil {
			t.Fatalf("instance %d after the quiet: %v", i, err)
		}
		release()
	}
}
