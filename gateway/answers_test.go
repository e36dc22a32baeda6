package gateway_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/propertyd/propertyd/gateway"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
)

// A warm lookup whose record and sections are all fresh stored values is
// answered from the bytes its first such answer was rendered to: the same
// body and headers, until a section expires or a newer release supersedes
// one. A lookup that created its record, or had to fetch or serve stale,
// is not kept.
func TestAWarmLookupIsAnsweredFromItsReadyAnswer(t *testing.T) {
	f := newFakeSections()
	sections := f.sections(time.Hour, nil)
	var superseded atomic.Bool
	sections[providers.SectionDemographics].Supersedes = func(vintage string) bool {
		return superseded.Load() && vintage == "2022 ACS 5-year"
	}
	s := newStack(t, stackOptions{sections: sections})
	target := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=" + allSections
	query := target[strings.IndexByte(target, '?')+1:]

	created := s.get(target)
	if created.status != 200 || created.json["meta"].(map[string]any)["created"] != true {
		t.Fatalf("first lookup: %d %s", created.status, created.body)
	}
	s.cache.Wait()
	if _, ok := gateway.ReadyAnswer(s.gw, query); ok {
		t.Fatal("the answer of a lookup that created its record (and fetched its sections) was kept")
	}
	warm := s.get(target)
	s.cache.Wait()
	kept, ok := gateway.ReadyAnswer(s.gw, query)
	if !ok || string(kept) != string(warm.body) {
		t.Fatalf("a warm lookup with every section fresh was not kept as sent (kept %v)", ok)
	}
	again := s.get(target)
	if string(again.body) != string(warm.body) || again.header.Get("ETag") != warm.header.Get("ETag") ||
		again.header.Get("X-Request-Cost") != warm.header.Get("X-Request-Cost") {
		t.Fatalf("the ready answer differs from the rendered one:\n%s %v\n%s %v", again.body, again.header, warm.body, warm.header)
	}
	if nm := s.get(target, "If-None-Match", warm.header.Get("ETag")); nm.status != 304 || nm.header.Get("X-Request-Cost") != "1" {
		t.Fatalf("If-None-Match of the ready answer: %d at cost %s, want 304 at 1", nm.status, nm.header.Get("X-Request-Cost"))
	}

	// A newer ACS release supersedes the kept demographics: the answer is
	// rendered anew, with the expired value served stale while it refreshes.
	superseded.Store(true)
	fresh := s.get(target)
	if st := sectionMeta(t, fresh, "demographics")["status"]; st != "stale" {
		t.Fatalf("after a newer release, demographics status %v (the ready answer was served): %s", st, fresh.body)
	}
}

// An answer with a section that could not be had is not kept: the next
// lookup asks again.
func TestAnAnswerWithAFailedSectionIsNotKept(t *testing.T) {
	f := newFakeSections()
	f.setFail(providers.SectionFlood, providers.Errorf(providers.KindUnavailable, providers.CodeUpstreamUnavailable, "FEMA is down"))
	s := newStack(t, stackOptions{sections: f.sections(time.Hour, nil)})
	target := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood,walkscore"
	query := target[strings.IndexByte(target, '?')+1:]
	for range 3 {
		s.get(target)
		s.cache.Wait()
	}
	if _, ok := gateway.ReadyAnswer(s.gw, query); ok {
		t.Fatal("an answer whose flood section failed was kept")
	}
	if f.count(providers.SectionFlood) < 3 {
		t.Fatalf("flood was asked %d times in 3 lookups, want every time", f.count(providers.SectionFlood))
	}
}

// A ready answer is not served past the first expiry of the values it
// holds: then the lookup renders again, with the expired section stale.
func TestAReadyAnswerEndsWhenASectionExpires(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{sections: f.sections(300*time.Millisecond, nil)})
	target := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood"
	query := target[strings.IndexByte(target, '?')+1:]
	s.get(target)
	s.cache.Wait()
	s.get(target)
	s.cache.Wait()
	if _, ok := gateway.ReadyAnswer(s.gw, query); !ok {
		t.Fatal("a warm lookup with a fresh section was not kept")
	}
	time.Sleep(600 * time.Millisecond)
	if _, ok := gateway.ReadyAnswer(s.gw, query); ok {
		t.Fatal("a ready answer outlived its section's expiry")
	}
	r := s.get(target)
	if st := sectionMeta(t, r, "flood")["status"]; st != "stale" {
		t.Fatalf("past its section's expiry, flood status %v, want stale: %s", st, r.body)
	}
}

// A section is settled only with what it embeds: housing served without
// its fair market rents, because HUD failed, is asked again on the next
// lookup rather than kept without them; once the rents are had, the answer
// is kept.
func TestAnAnswerMissingAnEmbeddedSectionIsNotKept(t *testing.T) {
	f := newFakeSections()
	sections := f.sections(time.Hour, nil)
	var hudDown atomic.Bool
	hudDown.Store(true)
	var hudCalls atomic.Int32
	e, _ := service.SectionEntry(service.SectionFairMarketRent)
	sections[service.SectionFairMarketRent] = &service.Section{
		Name: service.SectionFairMarketRent, Source: "hud-fmr", TTL: time.Hour, Key: e.Key,
		Fetch: func(context.Context, *providers.Property, service.Options) (any, error) {
			hudCalls.Add(1)
			if hudDown.Load() {
				return nil, providers.Errorf(providers.KindUnavailable, providers.CodeUpstreamUnavailable, "HUD is down")
			}
			return &providers.FairMarketRents{Year: "2026", AreaName: "Springfield, IL MSA", ByBedrooms: map[string]int{"2": 1400}, Source: "hud-fmr"}, nil
		},
	}
	s := newStack(t, stackOptions{sections: sections})
	target := lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=housing"
	query := target[strings.IndexByte(target, '?')+1:]
	for range 3 {
		if r := s.get(target); r.status != 200 || sectionMeta(t, r, "housing")["status"] != "partial" {
			t.Fatalf("housing without HUD: %d %s", r.status, r.body)
		}
		s.cache.Wait()
	}
	if _, ok := gateway.ReadyAnswer(s.gw, query); ok {
		t.Fatal("housing served without the rents HUD failed to give was kept ready")
	}
	if n := hudCalls.Load(); n < 3 {
		t.Fatalf("HUD was asked %d times in 3 lookups while it failed, want every time", n)
	}
	hudDown.Store(false)
	s.get(target) // fetches the rents
	s.cache.Wait()
	r := s.get(target) // every value fresh and stored: kept
	s.cache.Wait()
	kept, ok := gateway.ReadyAnswer(s.gw, query)
	if !ok || string(kept) != string(r.body) || !strings.Contains(string(kept), "fair_market_rents") {
		t.Fatalf("housing with its rents was not kept as sent (kept %v): %s", ok, r.body)
	}
}
