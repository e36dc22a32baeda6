package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

// upstreamCall makes one module call that reaches upstream.
type upstreamCall struct {
	upstream string
	call     func(ctx context.Context, c clients, p sandbox.Place) error
}

var upstreamCalls = []upstreamCall{
	{sandbox.UpstreamCensus, func(ctx context.Context, c clients, p sandbox.Place) error {
		_, err := c.census.Geocode(ctx, p.Address())
		return err
	}},
	{sandbox.UpstreamFEMA, func(ctx context.Context, c clients, p sandbox.Place) error {
		_, err := c.fema.Flood(ctx, p.Point())
		return err
	}},
	{sandbox.UpstreamACS, func(ctx context.Context, c clients, p sandbox.Place) error {
		_, err := c.acs.Demographics(ctx, p.CensusTract())
		return err
	}},
	{sandbox.UpstreamOverpass, func(ctx context.Context, c clients, p sandbox.Place) error {
		_, err := c.overpass.Amenities(ctx, p.Point(), overpass.DefaultRadius)
		return err
	}},
	{sandbox.UpstreamWalkScore, func(ctx context.Context, c clients, p sandbox.Place) error {
		_, err := c.walk.WalkScore(ctx, p.Point(), "")
		return err
	}},
	{sandbox.UpstreamHUD, func(ctx context.Context, c clients, p sandbox.Place) error {
		_, err := c.hud.FairMarketRents(ctx, p.FIPS())
		return err
	}},
}

func TestFaultsFailEveryModuleTheWayItsUpstreamWould(t *testing.T) {
	srv, root := start(t, sandbox.Options{Seed: 7})
	c := newClients(t, root)
	p := place(t, "austin-tx")
	for _, uc := range upstreamCalls {
		t.Run(uc.upstream, func(t *testing.T) {
			ctx := context.Background()
			if err := uc.call(ctx, c, p); err != nil {
				t.Fatalf("healthy %s: %v", uc.upstream, err)
			}

			srv.SetFaults(uc.upstream, sandbox.Faults{ErrorRate: 1, Status: http.StatusServiceUnavailable})
			wantKind(t, "error_rate 1 with 503", uc.call(ctx, c, p), providers.KindUpstream, "upstream_error")

			srv.SetFaults(uc.upstream, sandbox.Faults{ErrorRate: 1, Status: http.StatusInternalServerError, RetryAfter: "3"})
			e := wantKind(t, "error_rate 1 with 500", uc.call(ctx, c, p), providers.KindUpstream, "upstream_error")
			if e.RetryAfter != 3*time.Second {
				t.Errorf("500 with Retry-After 3: RetryAfter = %v, want 3s", e.RetryAfter)
			}

			srv.SetFaults(uc.upstream, sandbox.Faults{ErrorRate: 1, Status: http.StatusTooManyRequests, RetryAfter: "2"})
			e = wantKind(t, "429 with Retry-After 2", uc.call(ctx, c, p), providers.KindUpstream, "upstream_rate_limited")
			if e.RetryAfter != 2*time.Second {
				t.Errorf("429 with Retry-After 2: RetryAfter = %v, want 2s", e.RetryAfter)
			}

			srv.SetFaults(uc.upstream, sandbox.Faults{Malformed: true})
			wantKind(t, "malformed", uc.call(ctx, c, p), providers.KindUpstream, "")

			srv.SetFaults(uc.upstream, sandbox.Faults{Hang: true})
			hctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			begin := time.Now()
			err := uc.call(hctx, c, p)
			cancel()
			wantKind(t, "hang with a 100ms deadline", err, providers.KindTimeout, "upstream_timeout")
			if d := time.Since(begin); d > 5*time.Second {
				t.Errorf("hang: the call took %v after its deadline of 100ms", d)
			}

			srv.SetFaults(uc.upstream, sandbox.Faults{Latency: 50 * time.Millisecond})
			begin = time.Now()
			if err := uc.call(ctx, c, p); err != nil {
				t.Fatalf("latency 50ms: %v", err)
			}
			if d := time.Since(begin); d < 50*time.Millisecond {
				t.Errorf("latency 50ms: the call took %v", d)
			}

			srv.ResetFaults()
			if err := uc.call(ctx, c, p); err != nil {
				t.Errorf("after ResetFaults: %v", err)
			}
		})
	}
}

func TestArcGISErrorFailsFEMAWithHTTP200Envelope(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	srv.SetFaults(sandbox.UpstreamFEMA, sandbox.Faults{ArcGISError: true})
	_, err := c.fema.Flood(context.Background(), place(t, "miami-beach-fl").Point())
	wantKind(t, "arcgis_error", err, providers.KindUpstream, "upstream_error")
	var ae *femanfhl.ArcGISError
	if !errors.As(err, &ae) || ae.Code != 400 {
		t.Errorf("arcgis_error: cause %v, want an ArcGIS error envelope with code 400", err)
	}
}

func TestFaultsForAllUpstreams(t *testing.T) {
	srv, root := start(t, sandbox.Options{})
	c := newClients(t, root)
	p := place(t, "denver-co")
	ctx := context.Background()

	srv.SetFaults(sandbox.All, sandbox.Faults{ErrorRate: 1, Status: http.StatusBadGateway})
	for _, uc := range upstreamCalls {
		wantKind(t, uc.upstream+" with * failing", uc.call(ctx, c, p), providers.KindUpstream, "upstream_error")
	}

	// ArcGIS's error-in-200 only exists on fema: "*" leaves the others healthy.
	srv.SetFaults(sandbox.All, sandbox.Faults{ArcGISError: true})
	for _, uc := range upstreamCalls {
		err := uc.call(ctx, c, p)
		if uc.upstream == sandbox.UpstreamFEMA {
			wantKind(t, "fema with * arcgis_error", err, providers.KindUpstream, "upstream_error")
		} else if err != nil {
			t.Errorf("%s with * arcgis_error: %v, want success", uc.upstream, err)
		}
	}
}

func TestOptionsFaultsApplyAtStart(t *testing.T) {
	_, root := start(t, sandbox.Options{Faults: map[string]sandbox.Faults{
		sandbox.All:               {ErrorRate: 1},
		sandbox.UpstreamWalkScore: {},
	}})
	c := newClients(t, root)
	p := place(t, "sacramento-ca")
	for _, uc := range upstreamCalls {
		err := uc.call(context.Background(), c, p)
		if uc.upstream == sandbox.UpstreamWalkScore {
			if err != nil {
				t.Errorf("walkscore with its own healthy entry: %v", err)
			}
			continue
		}
		wantKind(t, uc.upstream+" under the * entry", err, providers.KindUpstream, "upstream_error")
	}
}

// outcomes makes n Geocode calls to a fresh sandbox with seed and faults
// and reports which failed.
func outcomes(t *testing.T, seed int64, f sandbox.Faults, n int) []bool {
	t.Helper()
	srv, root := start(t, sandbox.Options{Seed: seed})
	srv.SetFaults(sandbox.UpstreamCensus, f)
	c := newClients(t, root)
	p := place(t, "cedar-rapids-ia")
	out := make([]bool, n)
	for i := range out {
		_, err := c.census.Geocode(context.Background(), p.Address())
		out[i] = err != nil
	}
	return out
}

func TestErrorRateIsSeededAndRepeatable(t *testing.T) {
	f := sandbox.Faults{ErrorRate: 0.5}
	a, b := outcomes(t, 42, f, 40), outcomes(t, 42, f, 40)
	failures := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42: call %d failed in one run and not in the other:\n%v\n%v", i, a, b)
		}
		if a[i] {
			failures++
		}
	}
	if failures < 8 || failures > 32 {
		t.Errorf("error_rate 0.5: %d of 40 calls failed", failures)
	}
	other := outcomes(t, 43, f, 40)
	same := true
	for i := range a {
		same = same && a[i] == other[i]
	}
	if same {
		t.Errorf("seeds 42 and 43 gave the same 40 outcomes %v", a)
	}
}

func TestJitterAddsUpToItsBound(t *testing.T) {
	srv, root := start(t, sandbox.Options{Seed: 3})
	srv.SetFaults(sandbox.UpstreamHUD, sandbox.Faults{Latency: 20 * time.Millisecond, Jitter: 30 * time.Millisecond})
	c := newClients(t, root)
	fips := place(t, "austin-tx").FIPS()
	for range 5 {
		begin := time.Now()
		if _, err := c.hud.FairMarketRents(context.Background(), fips); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(begin); d < 20*time.Millisecond {
			t.Errorf("latency 20ms + jitter 30ms: the call took %v", d)
		}
	}
}

func TestCloseReleasesHangingCalls(t *testing.T) {
	srv := sandbox.New(sandbox.DefaultPlaces(), sandbox.Options{})
	root, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.SetFaults(sandbox.UpstreamCensus, sandbox.Faults{Hang: true})
	c := newClients(t, root)
	errc := make(chan error, 1)
	go func() {
		_, err := c.census.Geocode(context.Background(), place(t, "austin-tx").Address())
		errc <- err
	}()
	for srv.Calls(sandbox.UpstreamCensus) == 0 {
		time.Sleep(time.Millisecond)
	}
	srv.Close()
	select {
	case err := <-errc:
		wantKind(t, "a hanging call when the sandbox closes", err, providers.KindUpstream, "")
	case <-time.After(5 * time.Second):
		t.Fatal("a hanging call was still waiting 5s after Close")
	}
	if _, err := srv.Start("127.0.0.1:0"); err == nil {
		t.Error("Start after Close succeeded")
	}
	srv.Close() // a second Close is harmless
}

func TestSetFaultsPanicsOnImpossibleFaults(t *testing.T) {
	srv := sandbox.New(sandbox.DefaultPlaces(), sandbox.Options{})
	defer srv.Close()
	for name, set := range map[string]func(){
		"unknown upstream":         func() { srv.SetFaults("geocoder", sandbox.Faults{}) },
		"error rate above 1":       func() { srv.SetFaults(sandbox.UpstreamACS, sandbox.Faults{ErrorRate: 1.5}) },
		"arcgis_error on overpass": func() { srv.SetFaults(sandbox.UpstreamOverpass, sandbox.Faults{ArcGISError: true}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetFaults with %s did not panic", name)
				}
			}()
			set()
		}()
	}
}

func TestCheckFaults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		upstream string
		f        sandbox.Faults
		ok       bool
	}{
		{"healthy", sandbox.UpstreamCensus, sandbox.Faults{}, true},
		{"everything on fema", sandbox.UpstreamFEMA, sandbox.Faults{Latency: time.Second, Jitter: time.Second,
			ErrorRate: 0.3, Status: 429, RetryAfter: "2", Hang: true, Malformed: true, ArcGISError: true}, true},
		{"all upstreams", sandbox.All, sandbox.Faults{ArcGISError: true}, true},
		{"retry-after as a date", sandbox.UpstreamHUD, sandbox.Faults{Status: 503, RetryAfter: "Wed, 21 Oct 2037 07:28:00 GMT"}, true},
		{"unknown upstream", "fcc", sandbox.Faults{}, false},
		{"empty upstream", "", sandbox.Faults{}, false},
		{"negative latency", sandbox.UpstreamACS, sandbox.Faults{Latency: -time.Millisecond}, false},
		{"negative jitter", sandbox.UpstreamACS, sandbox.Faults{Jitter: -time.Millisecond}, false},
		{"negative error rate", sandbox.UpstreamACS, sandbox.Faults{ErrorRate: -0.1}, false},
		{"status 200", sandbox.UpstreamACS, sandbox.Faults{Status: 200}, false},
		{"status 600", sandbox.UpstreamACS, sandbox.Faults{Status: 600}, false},
		{"retry-after in words", sandbox.UpstreamACS, sandbox.Faults{RetryAfter: "soon"}, false},
		{"arcgis_error on census", sandbox.UpstreamCensus, sandbox.Faults{ArcGISError: true}, false},
	} {
		err := sandbox.CheckFaults(tc.upstream, tc.f)
		if (err == nil) != tc.ok {
			t.Errorf("%s: CheckFaults(%q, %+v) = %v, want ok %v", tc.name, tc.upstream, tc.f, err, tc.ok)
		}
	}
}

func TestFaultsString(t *testing.T) {
	for _, tc := range []struct {
		f    sandbox.Faults
		want string
	}{
		{sandbox.Faults{}, "healthy"},
		{sandbox.Faults{Latency: 100 * time.Millisecond, ErrorRate: 0.3, Status: 429, RetryAfter: "2"}, "latency=100ms error_rate=0.3 status=429 retry_after=2"},
		{sandbox.Faults{Jitter: time.Second, Hang: true, Malformed: true, ArcGISError: true}, "jitter=1s hang malformed arcgis_error"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestHangEndsWhenTheClientGivesUp protects the sandbox from piling up
// handlers during long benchmarks: a hanging call must end once its client
// has gone, GET or POST.
func TestHangEndsWhenTheClientGivesUp(t *testing.T) {
	lines := make(chan string, 100)
	srv, root := start(t, sandbox.Options{Logf: func(format string, args ...any) {
		lines <- fmt.Sprintf(format, args...)
	}})
	c := newClients(t, root)
	p := place(t, "new-orleans-la")
	srv.SetFaults(sandbox.All, sandbox.Faults{Hang: true})
	for _, uc := range upstreamCalls {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := uc.call(ctx, c, p)
		cancel()
		wantKind(t, uc.upstream+" hanging", err, providers.KindTimeout, "")
		want := 1
		if uc.upstream == sandbox.UpstreamFEMA {
			want = 2 // two layer queries
		}
		for i := 0; i < want; i++ {
			select {
			case line := <-lines:
				if !strings.HasPrefix(line, uc.upstream+" ") || !strings.Contains(line, "[fault: hang]") {
					t.Errorf("%s: logged %q, want the end of a hanging %s call", uc.upstream, line, uc.upstream)
				}
			case <-time.After(3 * time.Second):
				t.Fatalf("%s: a hanging call still runs 3s after its client gave up", uc.upstream)
			}
		}
	}
}
