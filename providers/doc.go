// Package providers is the vocabulary of propertyd: the property record, the
// enrichment section types, the interfaces every upstream module and storage
// backend implements, the error type that carries a stable public code, and the
// module registry.
//
// It imports nothing heavy on purpose: every other package may import it, and
// it imports none of them. One sub-package per upstream (census, femanfhl, ...)
// registers itself here by name in init; cmd/propertyd pulls them all in
// through providers/modules/all.
//
// # The map
//
// The folders below providers hold its five kinds of thing, one kind a
// folder:
//
//	providers/               the vocabulary (this package) and address, the normalization
//	providers/service        the application: lookup, reverse, get, search, batch, enrich,
//	                         import; catalog.go declares every role and section once,
//	                         flight.go is the one way calls are coalesced
//	providers/assessor       assessor files (CSV, GeoJSON) read into property facts, and the
//	                         presets of the datasets whose columns are confirmed
//	providers/osmextract     OpenStreetMap extracts (.osm.pbf) read into places, buildings and
//	                         address points
//	providers/amenity        the amenity categories' tag rules and how an answer is built: the
//	                         one definition the overpass module and the extracts share
//	providers/floodmap       the NFHL's flood hazard area and FIRM panel attributes and how
//	                         they become a flood section: the one definition the fema-nfhl
//	                         module and the loaded flood maps share
//	providers/decorators     what wraps a module from outside: guard (breaker, retry),
//	                         metrics (Prometheus), extract (a loaded OpenStreetMap extract
//	                         answering amenities before the module), floodfile (a loaded
//	                         FEMA flood map answering the flood section before the module)
//	providers/modules        one package per upstream (census, censusacs, femanfhl,
//	                         hudfmr, osmwalk, overpass, walkscore), upstream (their HTTP
//	                         plumbing) and all (registers them)
//	providers/kits           the test kits: providertest (httpmock fakes), its sandbox
//	                         (the same answers over net/http), relaytest (a TCP relay),
//	                         internal/fakeupstream (each upstream's wire format)
//	providers/internal       recordings: where conformance tests find real upstream bodies
//
// The service imports only the vocabulary and address; a module the
// vocabulary and upstream (overpass also amenity, the categories it shares
// with the extracts; femanfhl also floodmap, the flood section it shares
// with the loaded flood maps); a decorator the vocabulary (guard also upstream, for
// how a transport fails, and ratelimit, for outbound pacing; extract also
// amenity; floodfile also floodmap and dataload, the flood section and the
// datasets served); the kits
// their wire formats and the service's catalogue. Nothing but tests and
// binaries imports a kit, and cmd/propertyd alone puts the kinds together.
//
// # Modules
//
// A module is built the way Caddy builds its own, in one place (Build), so
// that serve, check-config, import and tests get the same module from the
// same configuration:
//
//  1. Module.New returns a new value: a pointer to the module's struct, the
//     defaults of its options set there (each default is stated once, by
//     the module that owns it).
//  2. The options config.yaml gives the module (Settings.Options) are
//     decoded strictly into its option fields, the exported fields with a
//     yaml tag, typed (string, int, bool, time.Duration...): an unknown
//     option or a value of the wrong type is an invalid_config error
//     naming it.
//  3. The common settings are filled once for every module: the base URL
//     (the module's DefaultBaseURL unless config.yaml names another, checked
//     to be absolute http(s)), the HTTP client, the clock and the logger.
//  4. Provision (Provisioner) keeps what the module needs of the settings
//     and derives its state; modules calling one HTTP upstream embed
//     upstream.Endpoint, whose Provision keeps the base URL, client and
//     clock.
//  5. Validate (Validator) rejects values that cannot work, naming the
//     option.
//  6. Close (io.Closer), when the module holds something to release: called
//     by Build when a step after New fails, and by cmd/propertyd on
//     shutdown, the last module built first, also when a later module fails
//     to build.
//
// A module registers in init and offers a typed constructor that is Build
// with its Module:
//
//	var module = providers.Module{Name: "noise", Roles: []providers.Role{"noise"},
//		DefaultBaseURL: "https://noise.example.gov/api",
//		New: func() any { return &Client{Options: Options{Radius: 500}} }}
//
//	func init() { providers.Register(module) }
//
//	type Options struct {
//		Radius int    `yaml:"radius"`
//		Token  string `yaml:"token"`
//	}
//
//	type Client struct {
//		Options `yaml:",inline"`
//		upstream.Endpoint
//	}
//
//	func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }
//
// Tests, and users swapping an upstream for a providertest fake, call that
// New with the Settings config.yaml would give, the options as text:
//
//	c, err := hudfmr.New(providers.Settings{Client: &http.Client{Transport: mt},
//		Options: map[string]string{"token": providertest.HUDFMRToken, "year": "2024"}})
package providers
