package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/core"
	"github.com/propertyd/propertyd/providers/guard"
)

// wire puts a built module into the service configuration for its role,
// as a geocoder or as an enrichment section with its natural cache key.
func wire(cfg *core.Config, role providers.Role, pc *ProviderConfig, mod any, b *guard.Breaker) error {
	wrong := fmt.Errorf("module %s cannot serve as %s", pc.Module, role)
	// A module that reshaped its values reads those an older version stored
	// in the new shape.
	var upgrade func([]byte) []byte
	if u, ok := mod.(providers.SectionUpgrader); ok {
		upgrade = u.UpgradeSection
	}
	section := func(key func(*providers.Property, core.Options) (string, bool),
		fetch func(context.Context, *providers.Property, core.Options) (any, error)) {
		name := sectionOfRole[role]
		cfg.Sections[name] = &core.Section{Name: name, Source: pc.Module, TTL: pc.TTL.D(), Breaker: b,
			Key: key, Fetch: fetch, Upgrade: upgrade}
	}
	switch role {
	case providers.RoleGeocoder:
		g, ok := mod.(providers.Geocoder)
		if !ok {
			return wrong
		}
		cfg.Geocoder, cfg.GeocoderName, cfg.GeocoderBreaker = g, pc.Module, b
	case providers.RoleReverseGeocoder:
		r, ok := mod.(providers.ReverseGeocoder)
		if !ok {
			return wrong
		}
		cfg.Reverse, cfg.ReverseName, cfg.ReverseBreaker = r, pc.Module, b
	case providers.RoleFlood:
		f, ok := mod.(providers.FloodProvider)
		if !ok {
			return wrong
		}
		section(pointKey, func(ctx context.Context, p *providers.Property, _ core.Options) (any, error) {
			return f.Flood(ctx, p.Point())
		})
	case providers.RoleDemographics:
		d, ok := mod.(providers.DemographicsProvider)
		if !ok {
			return wrong
		}
		section(tractKey, func(ctx context.Context, p *providers.Property, _ core.Options) (any, error) {
			t, _ := p.Tract()
			return d.Demographics(ctx, t)
		})
	case providers.RoleAmenities:
		a, ok := mod.(providers.AmenitiesProvider)
		if !ok {
			return wrong
		}
		section(func(p *providers.Property, o core.Options) (string, bool) {
			return p.Point().Key() + "@" + strconv.Itoa(o.Radius), true
		}, func(ctx context.Context, p *providers.Property, o core.Options) (any, error) {
			return a.Amenities(ctx, p.Point(), o.Radius)
		})
	case providers.RoleWalkScore:
		w, ok := mod.(providers.WalkScoreProvider)
		if !ok {
			return wrong
		}
		section(pointKey, func(ctx context.Context, p *providers.Property, _ core.Options) (any, error) {
			return w.WalkScore(ctx, p.Point(), oneLine(p))
		})
	case providers.RoleHousing:
		h, ok := mod.(providers.HousingProvider)
		if !ok {
			return wrong
		}
		section(tractKey, func(ctx context.Context, p *providers.Property, _ core.Options) (any, error) {
			t, _ := p.Tract()
			return h.Housing(ctx, t)
		})
	case providers.RoleFairMarketRent:
		f, ok := mod.(providers.FairMarketRentProvider)
		if !ok {
			return wrong
		}
		// Rents are an internal section (not offered in include=) cached by
		// county; housing embeds them when they are there (see linkSections).
		cfg.Sections[sectionFairMarketRent] = &core.Section{
			Name: sectionFairMarketRent, Source: pc.Module, TTL: pc.TTL.D(), Breaker: b, Upgrade: upgrade,
			Key: func(p *providers.Property, _ core.Options) (string, bool) {
				return p.FIPSCode, len(p.FIPSCode) == 5
			},
			Fetch: func(ctx context.Context, p *providers.Property, _ core.Options) (any, error) {
				return f.FairMarketRents(ctx, p.FIPSCode)
			},
		}
	}
	return nil
}

// sectionFairMarketRent names the internal section of HUD fair market rents.
const sectionFairMarketRent = "fair_market_rent"

// linkSections makes housing embed the fair market rents, when both are
// configured. Each is cached and fails on its own: a HUD outage leaves the
// rents out of housing only until HUD answers again, and never shortens or
// poisons the cached ACS figures.
func linkSections(cfg *core.Config) {
	housing, ok := cfg.Sections[providers.SectionHousing]
	if _, fmr := cfg.Sections[sectionFairMarketRent]; ok && fmr {
		housing.Embed = map[string]string{"fair_market_rents": sectionFairMarketRent}
	}
}

func pointKey(p *providers.Property, _ core.Options) (string, bool) {
	return p.Point().Key(), true
}

func tractKey(p *providers.Property, _ core.Options) (string, bool) {
	t, ok := p.Tract()
	return t.GEOID(), ok
}

// oneLine is the record's address as one line, for upstreams that want it.
func oneLine(p *providers.Property) string {
	parts := []string{}
	for _, s := range []string{p.StreetAddress, p.City, strings.TrimSpace(p.State + " " + p.ZipCode)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}
