package sandbox

import (
	"net/http"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/internal/fakeupstream"
	"github.com/propertyd/propertyd/providers/service"
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
// in the order upstreams are listed.
var upstreamMounts = []struct{ name, mount string }{
	{UpstreamCensus, "/census/geocoder"},
	{UpstreamFEMA, "/fema"},
	{UpstreamACS, "/acs/data"},
	{UpstreamOverpass, "/overpass/api/interpreter"},
	{UpstreamWalkScore, "/walkscore"},
	{UpstreamHUD, "/hud/fmr"},
}

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

// BaseURLs returns the base_url to give each role of the catalogue
// (service.Catalog) for the sandbox at root, keyed by role name: geocoder and
// reverse_geocoder (module census), flood (fema-nfhl), demographics
// (census-acs), housing (census-acs-housing), amenities (overpass),
// walkscore (walkscore-api; osm-walk calls no upstream) and
// fair_market_rent (hud-fmr). A role the sandbox has no upstream for is
// absent, and propertyd's catalogue test names it.
func BaseURLs(root string) map[string]string {
	urls := UpstreamURLs(root)
	out := make(map[string]string, len(roleUpstreams))
	for _, role := range service.Roles() {
		if up, ok := roleUpstreams[role]; ok {
			out[string(role)] = urls[up]
		}
	}
	return out
}

// fake answers the calls of one upstream: routes, each relative to the
// upstream's mount, and otherwise for any other call under the mount (nil:
// such a call has no route).
type fake struct {
	routes    []fakeupstream.Route
	otherwise func(*http.Request) fakeupstream.Reply
}

// answer returns the fake's reply to r, whose path is below the mount
// (rel, "" for the mount itself) when below is true; ok is false when no
// route takes it.
func (f fake) answer(r *http.Request, rel string, below bool) (rep fakeupstream.Reply, ok bool) {
	if below {
		for _, route := range f.routes {
			if route.Match(r.Method, rel) {
				return route.Serve(r), true
			}
		}
	}
	if f.otherwise != nil {
		return f.otherwise(r), true
	}
	return fakeupstream.Reply{}, false
}

// healthyFake is the fake of upstream serving places: the wire format of
// the real upstream, from internal/fakeupstream.
func healthyFake(upstream string, places []Place, hudToken string) fake {
	switch upstream {
	case UpstreamCensus:
		return fake{routes: fakeupstream.CensusGeocoder(censusPlaces(places)...)}
	case UpstreamFEMA:
		return fake{routes: fakeupstream.FEMA(fakeupstream.FEMAZonesLayer, fakeupstream.FEMAPanelsLayer, floodAreas(places)...)}
	case UpstreamACS:
		return fake{routes: fakeupstream.ACS("", acsTracts(places))}
	case UpstreamOverpass:
		return fake{routes: fakeupstream.Overpass(osmElements(places)...)}
	case UpstreamWalkScore:
		return fake{routes: fakeupstream.WalkScore(fakeupstream.WalkScoreFake{Places: walkScorePlaces(places)})}
	case UpstreamHUD:
		return fake{routes: fakeupstream.HUDFMR(hudToken, hudCounties(places))}
	}
	return fake{}
}

// arcGISFailure is the failingFake status of fema's error-in-200 answer.
const arcGISFailure = 0

// failingFake is the fake of upstream failing with HTTP status (or, for
// arcGISFailure, ArcGIS's error envelope) on every call: the upstream's
// own failure answer where it has a recorded error shape, else the status
// text as a gateway in front of the service would send it.
func failingFake(upstream string, status int) fake {
	text := http.StatusText(status)
	var f fake
	if status != arcGISFailure {
		plain := fakeupstream.Reply{Status: status,
			Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(text)}
		f.otherwise = func(*http.Request) fakeupstream.Reply { return plain }
	}
	answering := func(routes []fakeupstream.Route, rep fakeupstream.Reply) []fakeupstream.Route {
		out := make([]fakeupstream.Route, len(routes))
		for i, r := range routes {
			out[i] = r.Answering(rep)
		}
		return out
	}
	switch upstream {
	case UpstreamCensus:
		f.routes = answering(fakeupstream.CensusGeocoder(), fakeupstream.CensusFailure(status, text))
	case UpstreamFEMA:
		failure := fakeupstream.FEMAFailure{Status: status}
		if status == arcGISFailure {
			failure = fakeupstream.FEMAFailure{}
		}
		f.routes = answering(fakeupstream.FEMA(fakeupstream.FEMAZonesLayer, fakeupstream.FEMAPanelsLayer), failure.Reply())
	case UpstreamACS:
		f.routes = []fakeupstream.Route{fakeupstream.Route{Method: http.MethodGet, Pattern: fakeupstream.ACSDataPattern}.
			Answering(fakeupstream.ACSError(status, text, nil))}
	case UpstreamOverpass:
		page := fakeupstream.OverpassErrorPage(status, "runtime error: "+text, 0)
		switch status {
		case http.StatusTooManyRequests:
			page = fakeupstream.OverpassRateLimited(0)
		case http.StatusGatewayTimeout:
			page = fakeupstream.OverpassTooBusy()
		}
		f.routes = answering(fakeupstream.Overpass(), page)
	case UpstreamWalkScore:
		// Walk Score states its failures in the body; these two come with
		// an HTTP status of their own.
		switch status {
		case http.StatusInternalServerError:
			f.routes = fakeupstream.WalkScore(fakeupstream.WalkScoreFake{Status: fakeupstream.WalkScoreInternal})
		case http.StatusForbidden:
			f.routes = fakeupstream.WalkScore(fakeupstream.WalkScoreFake{Status: fakeupstream.WalkScoreBlockedIP})
		}
	case UpstreamHUD:
		// HUD's error bodies are {"error": "..."} documents, whatever the route.
		rep := fakeupstream.HUDError(status, text)
		f.otherwise = func(*http.Request) fakeupstream.Reply { return rep }
	}
	return f
}
