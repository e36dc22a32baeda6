package service

import (
	"context"
	"encoding/json"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// Lookup resolves a client-typed address to its record, creating it on
// first sight through the geocoder. The normalized address is the identity:
// a spelling seen before, or another spelling of an address seen before,
// costs no upstream call, and concurrent first lookups of one address make
// one geocoder call. The geocoder itself is sent the building as the client
// wrote it (address.Normalized.Building), since normalizing drops what it
// matches on, such as the apostrophe TIGER keeps in "O'BRIEN".
//
// Errors: KindInvalid (bad fields), KindUnprocessable (not_a_property for PO
// boxes), KindNotFound (address_not_found), and the geocoder's upstream kinds.
func (s *Service) Lookup(ctx context.Context, a providers.Address) (*providers.Property, Source, error) {
	return s.LookupMatching(ctx, a, MatchAuto)
}

// LookupMatching is Lookup accepting what mode accepts of the geocoder's
// answer (see Resolve); Source.Match says how the record matched. An
// address given as one line (a.Line) is parsed for its identity
// (address.NormalizeLine) and sent to the geocoder as the line.
//
// Errors as Lookup's, and KindConflict: ambiguous_address (several
// different addresses, nothing created) and, with MatchStrict,
// inexact_match.
func (s *Service) LookupMatching(ctx context.Context, a providers.Address, mode MatchMode) (*providers.Property, Source, error) {
	n, err := address.NormalizeAny(a)
	if err != nil {
		return nil, Source{}, err
	}
	return s.lookupNormalized(ctx, n, mode)
}

// lookupNormalized is LookupMatching of the normalized address n, and each
// distinct item of a batch. The record is read by n's key; a key not
// stored is geocoded (geocode). A record read rather than matched, by this
// lookup or by a trip that found it stored meanwhile, answers as a
// database match.
func (s *Service) lookupNormalized(ctx context.Context, n address.Normalized, mode MatchMode) (*providers.Property, Source, error) {
	key := n.Key()
	note := s.fl.note(key)
	var r geocoded
	var src Source
	p, tier, err := s.reads.ByKey.Get(ctx, key)
	switch {
	case err == nil:
		r, src = geocoded{p: p}, Source{Tier: tier}
	case providers.KindOf(err) != providers.KindNotFound:
		return nil, Source{}, err
	default:
		if r, src, err = s.geocode(ctx, note, key, n, mode); err != nil {
			return nil, src, err
		}
	}
	if r.match.Type == "" {
		if r.match, err = databaseMatch(n, r.p, mode); err != nil {
			return nil, Source{Calls: src.Calls}, err
		}
	}
	src.Geocoder, src.Match = r.p.Source, r.match
	return r.p, src, nil
}

// geocode finds the record of n, whose key (n.Key()) is not stored, through the
// geocoder. It is asked with the building as this lookup wrote it. A
// lookup that joins the trip of another spelling of the address that the
// geocoder could not match asks again, since its own spelling may match
// (it has the apostrophe the other left out): first in a trip keyed by
// the spelling that missed, which every lookup that joined that miss
// shares and the first of them leads with its own spelling (one more call
// for all of them, not one each), and, when that one missed too with
// another spelling than its own, in a trip keyed by its own spelling,
// which only it or a miss of that very spelling starts. A mode other than
// the default decides otherwise on the same answer, so it makes its own
// trip. The Source has no Geocoder or Match yet; on an error, only Calls.
func (s *Service) geocode(ctx context.Context, note note, key string, n address.Normalized, mode MatchMode) (geocoded, Source, error) {
	sent := spelling(n.Building())
	base := "geo:" + key
	if mode != MatchAuto {
		base += "\x00" + string(mode)
	}
	flightKey := base
	calls := 0
	for retry := 0; ; retry++ {
		t := s.geocodeTrip(flightKey, note, n, mode)
		l, err := fly(&s.fl, ctx, context.WithoutCancel(ctx), t)
		calls += l.calls
		if retry < 2 && err != nil && l.asked != sent && providers.CodeOf(err) == providers.ErrNoMatch.Code {
			flightKey = base + "\x00" + l.asked
			if retry > 0 {
				flightKey = base + "\x00" + sent
			}
			continue
		}
		if err != nil {
			return geocoded{}, Source{Calls: calls}, err
		}
		return l.val, Source{Created: l.val.created && l.led, Tier: l.tier, Calls: calls}, nil
	}
}

// spelling is the building a, exactly as sent to the geocoder, as one
// string: the geocoder's answer depends on the spelling sent, not only on
// the address's identity, so a spelling that missed ("42 OBrien Ct") does
// not keep another that matches ("42 O'Brien Ct") from being asked. It is
// the one encoding of a spelling: in trip keys, in the store's remembered
// misses (text both engines take: PostgreSQL refuses a NUL in text) and in
// a batch's grouping of its items.
func spelling(a providers.Address) string {
	if a.Line != "" {
		// One element, so a line never reads as an address in fields.
		b, _ := json.Marshal([1]string{a.Line})
		return string(b)
	}
	b, _ := json.Marshal([4]string{a.Street, a.City, a.State, a.Zip})
	return string(b)
}

// geocoded is what one geocoding of an address gives the lookups sharing
// it: the record, whether it was created, and how it matched (zero when
// the record was read from the store instead).
type geocoded struct {
	p       *providers.Property
	created bool
	match   providers.Match
}

// geocodeTrip is the trip that finds n's record: it reads the record
// again first when it must (see flights), else sends n's building as
// written to the geocoder, unless the spelling is a remembered miss, and
// saves the record of its match.
func (s *Service) geocodeTrip(flightKey string, note note, n address.Normalized, mode MatchMode) trip[geocoded] {
	key, sent := n.Key(), n.Building()
	if sent.Line == "" {
		// The unit, which the remote geocoder is not sent (it matches
		// buildings), for a local match: a unit may have its own point.
		sent.Unit = n.Unit
	}
	return trip[geocoded]{
		key: flightKey, note: note, asked: spelling(sent),
		recheck: func(ctx context.Context) (geocoded, bool) {
			p, _, err := providers.Reload(ctx, s.reads.ByKey, key)
			return geocoded{p: p}, err == nil
		},
		// An answer Resolve refuses (several different addresses, or
		// inexact under match=strict) makes no record: it is remembered
		// for MissTTL, as a no-match is, and the same spelling asked
		// again, in any mode, is decided from it without a call. So is
		// an answer of several different addresses that match=best took
		// the first of: the record is not reached by this spelling (see
		// NewRecord), and a later lookup of it without best hears
		// ambiguous_address from the remembered answer, as it would
		// had it asked first.
		fetch: func(ctx context.Context) (geocoded, string, error) {
			asked, tier := spelling(sent), providers.TierUpstream
			loc, ok := s.fl.misses.unsettled(ctx, asked)
			if ok {
				tier = providers.TierDatabase
			} else {
				var err error
				if loc, err = s.cfg.Geocoder.Geocode(ctx, sent); err != nil {
					return geocoded{}, tier, err
				}
			}
			chosen, m, err := Resolve(n, loc, mode)
			if err != nil {
				if !ok && providers.KindOf(err) == providers.KindConflict {
					s.fl.misses.rememberUnsettled(ctx, asked, loc)
				}
				return geocoded{}, tier, err
			}
			if !ok && len(m.Candidates) > 0 {
				s.fl.misses.rememberUnsettled(ctx, asked, loc)
			}
			p, created, err := s.cfg.Store.Save(ctx, NewRecord(chosen, m, n, s.cfg.GeocoderName, s.cfg.Now()))
			return geocoded{p: p, created: created, match: m}, tier, err
		},
	}
}
