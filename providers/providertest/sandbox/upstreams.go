package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/providertest"
)

// The upstream names: keys of the knobs, of the call counts and of
// GET /_sandbox/stats.
const (
	UpstreamCensus    = "census"    // Census geocoder: geocoder and reverse_geocoder roles
	UpstreamFEMA      = "fema"      // FEMA NFHL MapServer: flood
	UpstreamACS       = "acs"       // Census ACS 5-year API: demographics and housing
	UpstreamOverpass  = "overpass"  // Overpass API interpreter: amenities
	UpstreamWalkScore = "walkscore" // Walk Score API: walkscore (module walkscore-api)
	UpstreamHUD       = "hud"       // HUD USER FMR API: fair_market_rent
	// All stands for every upstream in SetFaults and the control endpoint.
	All = "*"
)

// HUDToken is the bearer token the sandbox's HUD FMR API accepts (unless
// Options.HUDToken says otherwise): configure the hud-fmr module with
// options {token: "sandbox-hud-token"}. The ACS and Walk Score fakes accept
// any API key, and ACS none at all.
const HUDToken = "sandbox-hud-token"

// WalkScoreRadius is how far, in metres, a Walk Score request may be from
// a place and still get that place's scores (the real service scores any
// point; the sandbox knows only its places).
const WalkScoreRadius = 5000

// upstreamMounts maps each upstream to the path its base URL ends with,
// in the order upstreams are listed. The path is the same in the sandbox
// as in the fake URL the providertest responders are registered under.
var upstreamMounts = []struct{ name, mount string }{
	{UpstreamCensus, "/census/geocoder"},
	{UpstreamFEMA, "/fema"},
	{UpstreamACS, "/acs/data"},
	{UpstreamOverpass, "/overpass/api/interpreter"},
	{UpstreamWalkScore, "/walkscore"},
	{UpstreamHUD, "/hud/fmr"},
}

// fakeRoot is the made-up origin the providertest responders are
// registered under; requests are rewritten onto it, never sent to it.
const fakeRoot = "http://upstream.sandbox.internal"

// Upstreams returns the upstream names in a fixed order.
func Upstreams() []string {
	out := make([]string, len(upstreamMounts))
	for i, u := range upstreamMounts {
		out[i] = u.name
	}
	return out
}

func isUpstream(name string) bool {
	for _, u := range upstreamMounts {
		if u.name == name {
			return true
		}
	}
	return false
}

// UpstreamURLs returns the base URL of each upstream of a sandbox at root
// (e.g. "http://127.0.0.1:9090"), keyed by upstream name.
func UpstreamURLs(root string) map[string]string {
	root = strings.TrimRight(root, "/")
	out := make(map[string]string, len(upstreamMounts))
	for _, u := range upstreamMounts {
		out[u.name] = root + u.mount
	}
	return out
}

// roleUpstreams maps each propertyd provider role to the upstream that
// serves its module.
var roleUpstreams = map[providers.Role]string{
	providers.RoleGeocoder:        UpstreamCensus,
	providers.RoleReverseGeocoder: UpstreamCensus,
	providers.RoleFlood:           UpstreamFEMA,
	providers.RoleDemographics:    UpstreamACS,
	providers.RoleHousing:         UpstreamACS,
	providers.RoleAmenities:       UpstreamOverpass,
	providers.RoleWalkScore:       UpstreamWalkScore,
	providers.RoleFairMarketRent:  UpstreamHUD,
}

// BaseURLs returns the base_url to give each propertyd provider role for
// the sandbox at root, keyed by role name: geocoder and reverse_geocoder
// (module census), flood (fema-nfhl), demographics (census-acs), housing
// (census-acs-housing), amenities (overpass), walkscore (walkscore-api;
// osm-walk calls no upstream) and fair_market_rent (hud-fmr).
func BaseURLs(root string) map[string]string {
	urls := UpstreamURLs(root)
	out := make(map[string]string, len(roleUpstreams))
	for role, up := range roleUpstreams {
		out[string(role)] = urls[up]
	}
	return out
}

// registerFakes registers on mt the providertest fake of upstream, serving
// places, under base.
func registerFakes(mt *httpmock.MockTransport, upstream, base string, places []Place, hudToken string) {
	switch upstream {
	case UpstreamCensus:
		providertest.RegisterCensusGeocoder(mt, base, censusPlaces(places)...)
	case UpstreamFEMA:
		providertest.RegisterFEMA(mt, base, floodAreas(places)...)
	case UpstreamACS:
		providertest.RegisterACS(mt, base, acsTracts(places))
	case UpstreamOverpass:
		providertest.RegisterOverpass(mt, base, osmElements(places)...)
	case UpstreamWalkScore:
		providertest.RegisterWalkScore(mt, base, providertest.WalkScoreFake{Places: walkScorePlaces(places)})
	case UpstreamHUD:
		providertest.RegisterHUDFMRWithToken(mt, base, hudToken, hudCounties(places))
	}
}

// arcGISFailure is the failTransport key of fema's error-in-200 answer.
const arcGISFailure = 0

// failTransport builds a transport answering every route of upstream under
// base with the upstream's own way of failing with HTTP status (or, for
// arcGISFailure, ArcGIS's error envelope): the providertest failure
// responders where the upstream has a recorded error shape, else the
// status text as a gateway in front of the service would send it.
func failTransport(upstream, base string, status int) *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	text := http.StatusText(status)
	if status != arcGISFailure {
		mt.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(status, text)
			resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
			return resp, nil
		})
	}
	switch upstream {
	case UpstreamCensus:
		providertest.CensusFailWith(mt, base, status, text)
	case UpstreamFEMA:
		for _, layer := range []int{providertest.FEMAZonesLayer, providertest.FEMAPanelsLayer} {
			if status == arcGISFailure {
				providertest.RegisterFEMAFailure(mt, base, layer, providertest.FEMAFailure{})
			} else {
				providertest.RegisterFEMAFailure(mt, base, layer, providertest.FEMAFailure{Status: status})
			}
		}
	case UpstreamACS:
		providertest.RegisterACSError(mt, base, status, text, nil)
	case UpstreamOverpass:
		switch status {
		case http.StatusTooManyRequests:
			providertest.RegisterOverpassRateLimited(mt, base, 0)
		case http.StatusGatewayTimeout:
			providertest.RegisterOverpassTooBusy(mt, base)
		default:
			providertest.RegisterOverpassHTMLError(mt, base, status, "runtime error: "+text, 0)
		}
	case UpstreamWalkScore:
		switch status {
		case http.StatusInternalServerError:
			providertest.RegisterWalkScore(mt, base, providertest.WalkScoreFake{Status: providertest.WalkScoreInternal})
		case http.StatusForbidden:
			providertest.RegisterWalkScore(mt, base, providertest.WalkScoreFake{Status: providertest.WalkScoreBlockedIP})
		}
	case UpstreamHUD:
		// HUD's error bodies are {"error": "..."} documents.
		body, _ := json.Marshal(map[string]string{"error": text})
		mt.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewBytesResponse(status, body)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
	}
	return mt
}
