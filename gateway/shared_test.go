package gateway_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/ratelimit/fleet/fleettest"
)

// seenLimit is what a client sees of one rate-limited answer.
type seenLimit struct {
	status                                       int
	code                                         string
	limit, remaining, reset, cost, retryAfterHdr string
	policy, rateLimit                            string // the IETF draft's fields
}

func (s *stack) seenLimit(method, target, body string, headers ...string) seenLimit {
	s.t.Helper()
	r := s.do(method, target, body, headers...)
	code, _ := r.json["code"].(string)
	return seenLimit{r.status, code, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"),
		r.header.Get("X-RateLimit-Reset"), r.header.Get("X-Request-Cost"), r.header.Get("Retry-After"),
		r.header.Get("RateLimit-Policy"), r.header.Get("RateLimit")}
}

// budgetRun sends one sequence of requests that exercises every rule of the
// budget (weighted cost, a 304 from stored data at 1, refused input at 0,
// cost over the burst, 429 consuming nothing, keys apart) and returns what
// the client saw of each.
func budgetRun(t *testing.T, limiter func(map[string]ratelimit.Limit) gateway.Limiter) []seenLimit {
	f := newFakeSections()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 20, rate: 0.001, sections: f.sections(time.Hour, nil),
		now: func() time.Time { return now }, limiter: limiter})
	full := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections
	var out []seenLimit
	out = append(out, s.seenLimit("GET", full, ""))
	warm := s.get(full)
	out = append(out, seenLimit{status: warm.status, remaining: warm.header.Get("X-RateLimit-Remaining")})
	out = append(out, s.seenLimit("GET", full, "", "If-None-Match", warm.header.Get("ETag")))
	out = append(out, s.seenLimit("GET", "/v1/properties/lookup?street=1+Main+St&state=ZZ&include=flood", ""))
	items := make([]string, 7)
	for i := range items {
		items[i] = fmt.Sprintf(`{"street":"%d Oak St","state":"IL"}`, i+1)
	}
	out = append(out, s.seenLimit("POST", "/v1/properties/batch?include=flood,walkscore", `{"addresses":[`+strings.Join(items, ",")+`]}`))
	out = append(out, s.seenLimit("GET", full, ""))
	out = append(out, s.seenLimit("GET", full, ""))
	out = append(out, s.seenLimit("GET", "/v1/properties/search?state=IL", ""))
	out = append(out, s.seenLimit("GET", "/v1/properties/search?state=IL", ""))
	out = append(out, s.seenLimit("GET", full, "", "X-API-Key", otherKey))

	// A key pays only for answers: what failed upstream or here is given
	// back, and so are batch items refused as invalid.
	known := s.geo.geocode
	s.geo.geocode = func(ctx context.Context, a providers.Address) (providers.Location, error) {
		if strings.HasPrefix(a.Street, "999") {
			return providers.Location{}, providers.Errorf(providers.KindUpstream, providers.CodeUpstreamError, "the geocoder answered 500")
		}
		return known(ctx, a)
	}
	failing := lookupURL("999 Fail St", "Springfield", "IL", "")
	out = append(out, s.seenLimit("GET", failing+"&include=flood", "", "X-API-Key", otherKey))
	f.setFail(providers.SectionFlood, providers.Errorf(providers.KindUnavailable, providers.CodeUpstreamUnavailable, "FEMA is down"))
	out = append(out, s.seenLimit("GET", lookupURL("500 Elm Ave", "Richmond", "VA", "")+"&include=flood,walkscore", "", "X-API-Key", otherKey))
	out = append(out, s.seenLimit("POST", "/v1/properties/batch", `{"addresses":[{"street":7,"state":"IL"},{"state":"IL"},`+
		`{"street":"500 Elm Ave","state":"VA"},{"street":"999 Fail St","state":"IL"}]}`, "X-API-Key", otherKey))
	out = append(out, s.seenLimit("GET", lookupURL("77 Nowhere Rd", "Springfield", "IL", ""), "", "X-API-Key", otherKey))
	return out
}

// Budgets shared through Redis charge exactly as the in-process buckets
// do: the same statuses and the same X-RateLimit-*, RateLimit-Policy,
// RateLimit, X-Request-Cost and Retry-After headers for the same requests, 304 and refused-input refunds
// included.
func TestSharedBudgetsChargeAsInProcess(t *testing.T) {
	u, prefix := fleettest.URL(t), fleettest.Prefix(t)
	c, err := fleet.Open(context.Background(), u, fleet.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local := budgetRun(t, nil)
	shared := budgetRun(t, func(l map[string]ratelimit.Limit) gateway.Limiter { return c.Budgets(l) })

	// What the rules say, so that two equally wrong runs cannot pass.
	want := []struct {
		status          int
		code, remaining string
		cost            string
	}{
		{200, "", "14", "6"},                   // 1 + five sections
		{200, "", "8", ""},                     // the warm read that gives the ETag
		{304, "", "7", "1"},                    // a 304 from stored data costs 1
		{400, "invalid_parameter", "7", "0"},   // refused input costs nothing
		{422, "cost_exceeds_limit", "7", "21"}, // 7 x (1 + 2) over a burst of 20
		{200, "", "1", "6"},
		{429, "rate_limited", "1", "0"}, // refused: consumes nothing
		{200, "", "0", "1"},
		{429, "rate_limited", "0", "0"},
		{200, "", "14", "6"},                  // the other key has its own budget
		{502, "upstream_error", "14", "0"},    // a failed upstream costs nothing
		{200, "", "12", "2"},                  // 1 + walkscore; the flood section failed
		{200, "", "11", "1"},                  // two invalid items and a failed one are given back
		{404, "address_not_found", "10", "1"}, // an answer, though not the one hoped for
	}
	for i, w := range want {
		got := local[i]
		if got.status != w.status || got.code != w.code || got.remaining != w.remaining || (w.cost != "" && got.cost != w.cost) {
			t.Fatalf("in-process step %d: %+v, want status %d %s, remaining %s, cost %s", i, got, w.status, w.code, w.remaining, w.cost)
		}
	}
	for i := range local {
		if shared[i] != local[i] {
			t.Fatalf("step %d: with budgets in Redis the client saw %+v, in process %+v", i, shared[i], local[i])
		}
	}
	if !c.Up() {
		t.Fatal("the Redis run fell back to local buckets")
	}
}

// /readyz says whether the shared Redis answers, and stays 200 ready when it
// does not: the instance still serves, with limits of its own.
func TestReadyzSaysWhetherRedisAnswers(t *testing.T) {
	s := newStack(t, stackOptions{})
	up := true
	s.gw = gateway.New(gateway.Config{Service: s.svc, Redis: func() bool { return up },
		Ready: func(context.Context) (bool, []string) { return true, nil }})
	if r := s.get("/readyz", "X-API-Key", ""); r.status != 200 || r.json["status"] != "ready" || r.json["redis"] != "up" {
		t.Fatalf("Redis up: %d %s", r.status, r.body)
	}
	up = false
	if r := s.get("/readyz", "X-API-Key", ""); r.status != 200 || r.json["status"] != "ready" || r.json["redis"] != "down" {
		t.Fatalf("Redis down: %d %s, want 200 ready with redis down", r.status, r.body)
	}
	s.gw = gateway.New(gateway.Config{Service: s.svc, Ready: func(context.Context) (bool, []string) { return true, nil }})
	if r := s.get("/readyz", "X-API-Key", ""); r.status != 200 || r.json["redis"] != nil {
		t.Fatalf("without Redis configured /readyz says redis %v: %s", r.json["redis"], r.body)
	}
}
