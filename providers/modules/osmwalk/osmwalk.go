package osmwalk

import (
	"context"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/overpass"
)

// Name is the module name under which the package registers itself.
const Name = "osm-walk"

// DefaultBaseURL is empty: osm-walk calls no upstream of its own and
// ignores Settings.Client.
const DefaultBaseURL = ""

// Method and Source are the method and source of every score.
const (
	Method = "osm-distance-decay"
	Source = "osm-walk"
)

// Radius is the radius, in metres, of the amenities the score is computed
// from: the amenities default, so both share a cache entry.
const Radius = overpass.DefaultRadius

// module is the package's entry in the registry.
var module = providers.Module{Name: Name, Roles: []providers.Role{providers.RoleWalkScore},
	DefaultBaseURL: DefaultBaseURL, New: func() any { return new(Client) }}

func init() { providers.Register(module) }

var (
	_ providers.WalkScoreProvider = (*Client)(nil)
	_ providers.AmenitiesScorer   = (*Client)(nil)
)

// Client computes walk scores from an amenities source. Build it with New;
// the zero value is not usable. It holds no mutable state and is safe for
// concurrent use when its amenities source is. It has no options.
type Client struct {
	amenities providers.AmenitiesProvider
}

// New builds a Client scoring from s.Amenities, as config.yaml does (see
// providers.Build). It fails with KindInvalid when s.Amenities is nil (no
// amenities module is configured) or an option is given.
func New(s providers.Settings) (*Client, error) { return providers.Build[*Client](module, s) }

// Provision keeps the amenities source of s.
func (c *Client) Provision(s providers.Settings) error {
	c.amenities = s.Amenities
	return nil
}

// Validate requires an amenities source: the score is computed from one.
func (c *Client) Validate() error {
	if c.amenities == nil {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"%s computes the walk score from amenity data: configure an amenities module (such as %s) as well",
			Name, overpass.Name)
	}
	return nil
}

// WalkScore asks the amenities source once for the amenities within Radius
// of p and returns Score of them; address is not used. Errors are those of
// the amenities source (KindUpstream, KindUnavailable, KindTimeout,
// KindCanceled...), unchanged.
func (c *Client) WalkScore(ctx context.Context, p providers.Point, address string) (*providers.WalkScore, error) {
	a, err := c.amenities.Amenities(ctx, p, Radius)
	if err != nil {
		return nil, providers.As(err)
	}
	if a == nil {
		return nil, providers.Errorf(providers.KindInternal, providers.CodeInternalError, "the amenities source returned no data")
	}
	return Score(a), nil
}

// ScoreRadius is Radius: the service reads the amenities the score is
// computed from at it (see providers.AmenitiesScorer).
func (c *Client) ScoreRadius() int { return Radius }

// ScoreAmenities returns Score of a: the walk score the service computes
// from the amenities it read or fetched for the same request, as WalkScore
// computes it from those it asks for.
func (c *Client) ScoreAmenities(a *providers.Amenities) *providers.WalkScore { return Score(a) }
