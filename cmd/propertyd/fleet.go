package main

import (
	"context"
	"os"

	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/ratelimit"
	"github.com/propertyd/propertyd/ratelimit/fleet"
)

// redisURLEnv names the environment variable that, when set, replaces
// redis.url: a fleet's instances are often configured by their environment.
const redisURLEnv = "PROPERTYD_REDIS_URL"

// RedisConfig points the instances of a fleet at the Redis they share, so
// that each key's budget and each upstream's rate and concurrency cap hold
// for the fleet as a whole instead of once per instance, and concurrent
// first requests for one address (or tract, or point) make one upstream
// call for the fleet.
type RedisConfig struct {
	// URL is redis://[:password@]host:port/db (rediss:// for TLS); empty
	// means no Redis: every limit is this instance's own.
	// PROPERTYD_REDIS_URL, when set, wins over the file.
	URL string `yaml:"url"`
	// Prefix starts every key propertyd writes in Redis: the instances of
	// one fleet must agree on it, two deployments sharing a Redis must not.
	Prefix string `yaml:"prefix"`
}

func (r *RedisConfig) applyDefaults() {
	if v := os.Getenv(redisURLEnv); v != "" {
		r.URL = v
	}
	if r.Prefix == "" {
		r.Prefix = fleet.DefaultPrefix
	}
}

func (r *RedisConfig) validate(bad func(field, format string, args ...any)) {
	if r.URL == "" {
		return
	}
	if err := fleet.CheckURL(r.URL); err != nil {
		bad("redis.url", "%v", err)
	}
}

// openFleet connects to the Redis of redis.url, when one is configured. A
// Redis that does not answer is no reason not to serve: the instance starts
// with limits of its own and shares them once Redis answers.
func (m *Main) openFleet(ctx context.Context) error {
	r := m.Config.Redis
	if r.URL == "" {
		return nil
	}
	c, err := fleet.Open(ctx, r.URL, fleet.Options{Prefix: r.Prefix, Logger: m.Logger, OnState: m.metrics.SetRedisUp})
	if err != nil {
		return err
	}
	m.fleet = c
	return nil
}

// outbound is the pacing of the upstream of role: its rate and its
// concurrency cap shared by the fleet when a Redis is configured (one
// bucket and one set of slots per role, as each role has its own
// rate_limit), this instance's own otherwise and while Redis is away. What
// the upstream's maintainers ask (c, the module's Courtesy) applies too:
// its concurrency when rate_limit gives none, and its quiet after a
// rate-limit answer, which the first instance to get one tells the others
// through Redis.
func (m *Main) outbound(role providers.Role, pc *ProviderConfig, c providers.Courtesy) *ratelimit.Outbound {
	l := ratelimit.Limit{Rate: pc.RateLimit.Rate, Burst: pc.RateLimit.Burst}
	concurrency := pc.RateLimit.Concurrency
	if concurrency == 0 {
		concurrency = c.Concurrency
	}
	o := ratelimit.NewOutbound(l, concurrency)
	if m.fleet != nil && l.Rate > 0 {
		o.Share(m.fleet.Rate(string(role), l))
	}
	if m.fleet != nil && concurrency > 0 {
		o.ShareSlots(m.fleet.Slots(string(role), concurrency, fleet.SlotOptions{
			OnCount: func(waiting, holding int) { m.metrics.SetUpstreamSlots(string(role), waiting, holding) },
		}))
	}
	if c.QuietAfterRateLimit > 0 {
		var shared ratelimit.SharedQuiet
		if m.fleet != nil {
			shared = m.fleet.Quiet(string(role))
		}
		o.KeepQuiet(c.QuietAfterRateLimit, shared, nil)
	}
	return o
}

// budgets keeps the keys' budgets in Redis when one is configured; nil lets
// the gateway keep them in process.
func (m *Main) budgets(keys []gateway.Key) gateway.Limiter {
	if m.fleet == nil {
		return nil
	}
	limits := make(map[string]ratelimit.Limit, len(keys))
	for _, k := range keys {
		limits[k.Name] = k.Limit
	}
	return m.fleet.Budgets(limits)
}

// leases lets the instances sharing a Redis make one upstream call per
// natural key between them; nil (without a Redis) coalesces calls within
// this instance only.
func (m *Main) leases() service.Leases {
	if m.fleet == nil {
		return nil
	}
	return m.fleet.Leases(fleet.LeaseOptions{})
}

// redisUp backs /readyz's "redis" field; nil (no field) without a Redis.
func (m *Main) redisUp() func() bool {
	if m.fleet == nil {
		return nil
	}
	return m.fleet.Up
}
