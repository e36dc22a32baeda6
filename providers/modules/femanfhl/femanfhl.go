package femanfhl

import (
	"context"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/floodmap"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// Name is the module name under which the package registers itself, and the
// Source of every Flood it returns.
const Name = "fema-nfhl"

// DefaultBaseURL is the public NFHL MapServer, used when config.yaml names no
// base URL so the binary works against the real service out of the box.
const DefaultBaseURL = "https://hazards.fema.gov/arcgis/rest/services/public/NFHL/MapServer"

// DefaultZonesLayer and DefaultPanelsLayer are the NFHL layer ids of the Flood
// Hazard Zones (S_FLD_HAZ_AR) and FIRM Panels layers; the zones_layer and
// panels_layer options override them.
const (
	DefaultZonesLayer  = 28
	DefaultPanelsLayer = 3
)

// The outFields asked of each layer. Layer 28 has no EFF_DATE: asking for it
// there makes the whole query fail.
const (
	zoneFields  = "FLD_ZONE,ZONE_SUBTY,SFHA_TF,STATIC_BFE,DFIRM_ID"
	panelFields = "FIRM_PAN,EFF_DATE,PANEL_TYP,DFIRM_ID"
)

// module is the package's entry in the registry. New states the defaults
// of the options.
var module = providers.Module{Name: Name, Roles: []providers.Role{providers.RoleFlood},
	DefaultBaseURL: DefaultBaseURL, New: func() any {
		return &Client{Options: Options{ZonesLayer: DefaultZonesLayer, PanelsLayer: DefaultPanelsLayer}}
	}}

func init() { providers.Register(module) }

// maxBody bounds an answer: one point's features are a few kilobytes.
const maxBody = 4 << 20

// Options are the module's options in config.yaml.
type Options struct {
	// ZonesLayer is the layer id of the flood hazard zones (default
	// DefaultZonesLayer).
	ZonesLayer int `yaml:"zones_layer"`
	// PanelsLayer is the layer id of the FIRM panels (default
	// DefaultPanelsLayer).
	PanelsLayer int `yaml:"panels_layer"`
}

// Client queries the NFHL for the flood hazard at a point. Build it with
// New; its Options must not change once it is built. It is safe for
// concurrent use.
type Client struct {
	Options `yaml:",inline"`
	upstream.Endpoint
}

var _ providers.FloodProvider = (*Client)(nil)

// New builds a Client from s as config.yaml does (see providers.Build): an
// empty s.BaseURL means DefaultBaseURL and a nil s.Client means
// http.DefaultClient. The options zones_layer and panels_layer
// (non-negative integers, distinct) pick the layer ids; any other option,
// or a bad value, is a KindInvalid error with code invalid_config naming
// it.
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }

// Validate rejects layer ids that cannot name two different layers.
func (c *Client) Validate() error {
	for _, l := range []struct {
		name string
		id   int
	}{{"zones_layer", c.ZonesLayer}, {"panels_layer", c.PanelsLayer}} {
		if l.id < 0 {
			return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
				"option %s: %d is not a layer id (a non-negative integer)", l.name, l.id)
		}
	}
	if c.ZonesLayer == c.PanelsLayer {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"zones_layer and panels_layer are both %d; they must name different layers", c.ZonesLayer)
	}
	return nil
}

// Flood returns the flood hazard at p: the riskiest zone polygon containing
// it and the FIRM panel it lies on, from two concurrent layer queries.
//
// A point with no mapped polygon is RiskUndetermined with a nil Zone, not an
// error; a point on no panel has a nil PanelNumber. RiskLevel is
// RiskLevel(zone, subtype), raised to RiskHigh when SFHA_TF says the point is
// in a Special Flood Hazard Area, the flag FEMA calls authoritative;
// Description is Description(zone, subtype): the rules of floodmap.Section,
// which the loaded flood maps share.
//
// Errors: KindInvalid (invalid_parameter) for a coordinate out of range;
// KindUpstream (upstream_error, or upstream_rate_limited for HTTP 429, with
// RetryAfter when the service sent one) for an ArcGIS error body, an HTTP
// error status or an unreadable body; KindUnavailable
// (upstream_misconfigured) for HTTP 404, a base URL or layer that does not
// exist; KindTimeout (upstream_timeout) when ctx expired or the client timed
// out; KindCanceled when ctx was cancelled.
func (c *Client) Flood(ctx context.Context, p providers.Point) (_ *providers.Flood, err error) {
	// An answer may echo the query, and the query is the point.
	defer func() { err = upstream.Scrub(err, upstream.Coordinates(p)...) }()
	if math.IsNaN(p.Lat) || p.Lat < -90 || p.Lat > 90 {
		return nil, providers.Invalid("latitude", "must be between -90 and 90")
	}
	if math.IsNaN(p.Lng) || p.Lng < -180 || p.Lng > 180 {
		return nil, providers.Invalid("longitude", "must be between -180 and 180")
	}
	if err := ctx.Err(); err != nil {
		return nil, providers.As(err)
	}
	var (
		zones  []floodmap.HazardArea
		panels []floodmap.Panel
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		body, err := c.query(gctx, c.ZonesLayer, zoneFields, p)
		if err != nil {
			return err
		}
		zones, err = decodeFeatures[floodmap.HazardArea](body, "flood hazard zones")
		return err
	})
	g.Go(func() error {
		body, err := c.query(gctx, c.PanelsLayer, panelFields, p)
		if err != nil {
			return err
		}
		panels, err = decodeFeatures[floodmap.Panel](body, "FIRM panels")
		return err
	})
	if err := g.Wait(); err != nil {
		// When the caller's own context ended, say so rather than report
		// whichever query noticed first.
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, providers.As(ctxErr)
		}
		return nil, err
	}
	return build(zones, panels), nil
}

// build turns the decoded features into the Flood section, by the rules
// the loaded flood maps share (floodmap.Section).
func build(zones []floodmap.HazardArea, panels []floodmap.Panel) *providers.Flood {
	f := floodmap.Section(zones, panels)
	f.Source = Name
	return f
}
