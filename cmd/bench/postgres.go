package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/ratelimit/fleet"
	"github.com/propertyd/propertyd/store/postgres"
)

// The environment variables -postgres and -redis default to: the same the
// tests use, so CI, which sets them for the tests, measures these rows too.
const (
	postgresEnv = "PROPERTYD_TEST_POSTGRES"
	redisEnv    = "PROPERTYD_TEST_REDIS"
)

// fleetSize is the number of instances of the fleet-herd row.
const fleetSize = 3

// pgOffset is the index of the first synthetic place of the PostgreSQL
// rows: those before it belong to the SQLite rows (cold, herd, batch).
func (b *bench) pgOffset() int { return b.o.cold + 2 + b.o.batches*batchSize }

// pgSchema creates a schema of the scenario's own at -postgres and returns
// its URL and a func dropping it. Without -postgres, or when the server
// does not answer, it returns "" and notes why in b.pgNone (the server is
// not asked again in the run); other failures (a user that may not create
// schemas, say) are errors.
func (b *bench) pgSchema(ctx context.Context, scenario string) (string, func(), error) {
	if b.o.postgres == "" {
		b.pgNone = "no PostgreSQL (set -postgres or " + postgresEnv + ")"
	}
	if b.pgNone != "" {
		return "", nil, nil
	}
	rnd := make([]byte, 4)
	rand.Read(rnd)
	name := "propertyd_bench_" + strings.ReplaceAll(scenario, "-", "_") + "_" + hex.EncodeToString(rnd)
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	u, err := postgres.CreateSchema(cctx, b.o.postgres, name)
	if err != nil {
		var pe *providers.Error
		if errors.As(err, &pe) && pe.Kind == providers.KindUnavailable {
			b.logf("PostgreSQL: %v", err)
			b.pgNone = "no PostgreSQL answers at " + hostOf(b.o.postgres) + " (set -postgres or " + postgresEnv + ")"
			return "", nil, nil
		}
		return "", nil, fmt.Errorf("creating schema %s: %w", name, err)
	}
	drop := func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := postgres.DropSchema(dctx, b.o.postgres, name); err != nil {
			b.logf("dropping schema %s: %v", name, err)
		}
	}
	return u, drop, nil
}

// noRedis returns why the fleet row cannot run ("" when it can): no
// -redis, or a Redis that does not answer.
func (b *bench) noRedis(ctx context.Context) string {
	const how = " (set -redis or " + redisEnv + ")"
	if b.o.redis == "" {
		return "no Redis" + how
	}
	c, err := fleet.Open(ctx, b.o.redis, fleet.Options{Timeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return "no Redis: " + err.Error() + how
	}
	defer c.Close()
	if !c.Up() {
		return "no Redis answers at " + hostOf(b.o.redis) + how
	}
	return ""
}

// hostOf returns the host:port of a server URL, which never holds its
// password.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "the given URL"
}

// instance is a propertyd of the PostgreSQL rows, and a client to it.
type instance struct {
	p *proc
	c *client
}

// startInstance starts a propertyd named name on database, sharing the
// Redis of redisURL under prefix when redisURL is set.
func (b *bench) startInstance(name, database, redisURL, prefix string) (*instance, error) {
	cfg := configYAML(database, b.sbRoot, b.o.cacheMB, b.o.batchConc)
	if redisURL != "" {
		cfg += fmt.Sprintf("redis:\n  url: %q\n  prefix: %q\n", redisURL, prefix)
	}
	cfgPath := filepath.Join(b.tmp, name+".yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	p, err := startProc(name, b.bin, filepath.Join(b.tmp, name+".log"), b.o.env, "-config", cfgPath)
	if err != nil {
		return nil, err
	}
	if err := waitReady(p, "http://"+p.addr+"/readyz", 60*time.Second); err != nil {
		p.stop() //nolint:errcheck // reporting the first failure
		return nil, err
	}
	return &instance{p: p, c: newClient(p.addr, benchKey, 512)}, nil
}

func (in *instance) stop(b *bench) {
	if err := in.p.stop(); err != nil {
		b.logf("stopping %s: %v", in.p.name, err)
	}
}

// skip adds r, not measured, for why.
func (b *bench) skip(r row, why string) {
	r.measured, r.ratio, r.skipped = "-", "-", why
	b.add(r)
}

// pgWarm measures the warm GET by id of a record on PostgreSQL against the
// bare app: the cache serves it, so it should do as well as on SQLite.
func (b *bench) pgWarm(ctx context.Context) error {
	r := row{
		scenario: "warm GET /v1/properties/{id} on PostgreSQL: throughput",
		target:   ">= 0.5 x bare Fiber (as on SQLite: the cache serves it)",
	}
	database, drop, err := b.pgSchema(ctx, "pg-warm")
	if err != nil {
		return err
	}
	if database == "" {
		b.skip(r, b.pgNone)
		return nil
	}
	defer drop()
	in, err := b.startInstance("propertyd-pg-warm", database, "", "")
	if err != nil {
		return err
	}
	defer in.stop(b)
	rec, _, err := fetchFrom(in.c, get(lookupPath(b.places[0], "")), false)
	if err != nil {
		return fmt.Errorf("first lookup of %s: %w", b.places[0].ID, err)
	}
	byID := get(fmt.Sprintf("/v1/properties/%d", rec.Data.ID))
	for range 50 {
		if _, _, err = fetchFrom(in.c, byID, false); err != nil {
			return fmt.Errorf("warming %s: %w", byID.path, err)
		}
	}
	_, body, headers, err := fetchAnswer(in.c, byID, false)
	if err != nil {
		return fmt.Errorf("warming %s: %w", byID.path, err)
	}
	dir := filepath.Join(b.tmp, "bodies-pg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := keepAnswer(dir, "get", body, headers); err != nil {
		return err
	}
	bare, bc, err := b.startBare(dir, "bare-pg.log")
	if err != nil {
		return err
	}
	defer bare.stop() //nolint:errcheck // the baseline's exit status says nothing
	// propertyd answers this GET in front of Fiber: bare fasthttp is the
	// fastest server of these bytes on its stack, beside the verdict.
	fast, fc, err := b.startBaseline(bareFasthttp, dir, "bare-fasthttp-pg.log")
	if err != nil {
		return err
	}
	defer fast.stop() //nolint:errcheck // the baseline's exit status says nothing
	rs := b.closedRounds([]*client{bc, fc, in.c}, []request{get("/get"), get("/get"), byID})
	bb, bf, p := rs[0], rs[1], rs[2]
	ratio := p.rate() / bb.rate()
	r.measured = fmt.Sprintf("%s vs bare Fiber %s and bare fasthttp %s (closed loop, %d connections: p99 %s vs %s and %s; %.2f x bare fasthttp)",
		rps(p.rate()), rps(bb.rate()), rps(bf.rate()), b.o.conns, ms(p.percentile(99)), ms(bb.percentile(99)), ms(bf.percentile(99)), p.rate()/bf.rate())
	r.ratio = fmt.Sprintf("%.2f", ratio)
	r.met = ratio >= 0.5
	r.failure = failure(p, bb, bf)
	b.add(r)
	return nil
}

// pgCold looks up new addresses one at a time with every section on
// PostgreSQL while every upstream answers after L.
func (b *bench) pgCold(ctx context.Context) error {
	label := fmt.Sprintf("cold lookup with all five sections on PostgreSQL, every upstream at L = %s", b.o.latency)
	database, drop, err := b.pgSchema(ctx, "pg-cold")
	if err != nil {
		return err
	}
	if database == "" {
		b.skip(row{scenario: label, target: "p50 <= 2.2 x L"}, b.pgNone)
		return nil
	}
	defer drop()
	in, err := b.startInstance("propertyd-pg-cold", database, "", "")
	if err != nil {
		return err
	}
	defer in.stop(b)
	off := b.pgOffset()
	r, err := b.coldRow(ctx, in.c, b.synth[off:off+b.o.cold])
	if err != nil {
		return err
	}
	r.scenario = label
	b.add(r)
	return nil
}

// fleetHerd sends the herd of identical cold lookups to three instances
// sharing one PostgreSQL schema and one Redis: the fleet should make one
// call per distinct upstream request, as one instance does.
func (b *bench) fleetHerd(ctx context.Context) error {
	label := fmt.Sprintf("%d concurrent identical cold lookups spread over %d instances sharing PostgreSQL and Redis (all five sections, L = %s)",
		herd, fleetSize, b.o.latency)
	target := "exactly 1 call per upstream for the fleet (per distinct upstream request)"
	database, drop, err := b.pgSchema(ctx, "fleet-herd")
	if err != nil {
		return err
	}
	if database == "" {
		b.skip(row{scenario: label, target: target}, b.pgNone)
		return nil
	}
	defer drop()
	if why := b.noRedis(ctx); why != "" {
		b.skip(row{scenario: label, target: target}, why)
		return nil
	}
	// Keys under a prefix of the run's own; they all carry an expiry, so
	// nothing is left behind for long.
	rnd := make([]byte, 4)
	rand.Read(rnd)
	prefix := "propertyd-bench-" + hex.EncodeToString(rnd) + ":"
	var cs []*client
	// One at a time: the first applies the migrations.
	for i := range fleetSize {
		in, err := b.startInstance(fmt.Sprintf("propertyd-fleet-%d", i+1), database, b.o.redis, prefix)
		if err != nil {
			return err
		}
		defer in.stop(b)
		cs = append(cs, in.c)
	}
	off := b.pgOffset() + b.o.cold
	r, err := b.herdRow(ctx, cs, b.synth[off], b.synth[off+1])
	if err != nil {
		return err
	}
	r.scenario, r.target = label, target
	b.add(r)
	return nil
}

// pgSearch seeds -rows records into a schema of its own and times the
// searches of the search scenario on PostgreSQL.
func (b *bench) pgSearch(ctx context.Context) error {
	label := func(what string) string {
		return fmt.Sprintf("search at %s stored records on PostgreSQL (%s, 25 per page)", thousands(int64(b.o.rows)), what)
	}
	database, drop, err := b.pgSchema(ctx, "pg-search")
	if err != nil {
		return err
	}
	if database == "" {
		for _, s := range searches {
			b.skip(row{scenario: label(s.label), target: "p50 < 10 ms, page 1 and page 100"}, b.pgNone)
		}
		return nil
	}
	defer drop()
	b.logf("seeding %d records into PostgreSQL", b.o.rows)
	t0 := time.Now()
	if err := seed(ctx, database, b.o.rows); err != nil {
		return err
	}
	b.logf("seeded %d records into PostgreSQL in %s", b.o.rows, time.Since(t0).Round(time.Millisecond))
	in, err := b.startInstance("propertyd-pg-search", database, "", "")
	if err != nil {
		return err
	}
	defer in.stop(b)
	for _, s := range searches {
		r, err := b.searchRow(ctx, in.c, s.query)
		if err != nil {
			return err
		}
		r.scenario = label(s.label)
		b.add(r)
	}
	return nil
}
