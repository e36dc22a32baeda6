package census

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// Geocode matches a postal address and returns its canonical form, its
// coordinates and, when the answer carries them, its county, FIPS code and
// census tract. When the upstream matched several, the first is returned
// with the others in its Others, in the upstream's order: whether they are
// one address (two TIGER edges) or different ones is for the caller to
// decide.
//
// An address given as one line (a.Line) is sent as it is to the
// onelineaddress search, which answers in the same shape.
//
// It returns KindInvalid when a.Street and a.Line are empty, providers.ErrNoMatch
// (KindNotFound, address_not_found) when the upstream matched nothing,
// KindUpstream for an error answer or one it cannot read, KindTimeout when ctx
// expired and KindCanceled when the caller went away.
func (c *Client) Geocode(ctx context.Context, a providers.Address) (providers.Location, error) {
	return c.geocode(ctx, "geographies", a)
}

var _ providers.MatchGeocoder = (*Client)(nil)

// GeocodeMatch is Geocode without the census geographies: it asks the
// locations searches (locations/address, locations/onelineaddress), which
// take the same address and benchmark but no vintage and answer the same
// matches without a geographies block, so every Location has County,
// FIPSCode and CensusTract empty. A caller that holds the county and tract
// boundaries itself (package geographies) finds them at the matched point
// without the upstream's map. Errors as for Geocode.
func (c *Client) GeocodeMatch(ctx context.Context, a providers.Address) (providers.Location, error) {
	return c.geocode(ctx, "locations", a)
}

// geocode asks the address search of returntype (geographies or
// locations) for a, as Geocode documents.
func (c *Client) geocode(ctx context.Context, returntype string, a providers.Address) (_ providers.Location, err error) {
	// The upstream echoes the address in every answer: no error of this
	// call may carry it to a log.
	defer func() { err = upstream.Scrub(err, a.Line, a.Street, a.City, a.Zip) }()
	q := url.Values{}
	route := returntype + "/address"
	if line := strings.TrimSpace(a.Line); line != "" {
		// The whole address in one line: the upstream's own parser reads it.
		route = returntype + "/onelineaddress"
		q.Set("address", line)
	} else {
		if strings.TrimSpace(a.Street) == "" {
			return providers.Location{}, providers.Invalid("street", "must not be empty")
		}
		setNonEmpty(q, "street", a.Street)
		setNonEmpty(q, "city", a.City)
		setNonEmpty(q, "state", a.State)
		setNonEmpty(q, "zip", a.Zip)
	}
	if returntype == "locations" {
		c.setMatchOnly(q)
	} else {
		c.setCommon(q)
	}
	body, err := c.get(ctx, route, q)
	if err != nil {
		return providers.Location{}, err
	}
	res, err := decodeResult(body)
	if err != nil {
		return providers.Location{}, err
	}
	if len(res.AddressMatches) == 0 {
		return providers.Location{}, providers.ErrNoMatch
	}
	first, err := matchLocation(res.AddressMatches[0])
	if err != nil {
		return providers.Location{}, err
	}
	for _, m := range res.AddressMatches[1:] {
		other, err := matchLocation(m)
		if err != nil {
			return providers.Location{}, err
		}
		first.Others = append(first.Others, other)
	}
	return first, nil
}

// Reverse returns the county, FIPS code and census tract at p, with Point set
// to p and no address. A point outside any county (at sea, abroad) is
// KindNotFound with code location_not_found; invalid coordinates are
// KindInvalid; other errors as for Geocode.
func (c *Client) Reverse(ctx context.Context, p providers.Point) (_ providers.Location, err error) {
	if math.IsNaN(p.Lat) || p.Lat < -90 || p.Lat > 90 {
		return providers.Location{}, providers.Invalid("lat", "must be between -90 and 90")
	}
	if math.IsNaN(p.Lng) || p.Lng < -180 || p.Lng > 180 {
		return providers.Location{}, providers.Invalid("lng", "must be between -180 and 180")
	}
	q := url.Values{}
	q.Set("x", strconv.FormatFloat(p.Lng, 'f', -1, 64))
	q.Set("y", strconv.FormatFloat(p.Lat, 'f', -1, 64))
	defer func() { err = upstream.Scrub(err, upstream.Coordinates(p)...) }()
	c.setCommon(q)
	body, err := c.get(ctx, "geographies/coordinates", q)
	if err != nil {
		return providers.Location{}, err
	}
	res, err := decodeResult(body)
	if err != nil {
		return providers.Location{}, err
	}
	loc := providers.Location{Point: p}
	if !fillGeographies(&loc, res.Geographies) {
		return providers.Location{}, providers.NotFound(providers.CodeLocationNotFound,
			"no county was found at these coordinates")
	}
	return loc, nil
}

// setCommon adds the parameters every geographies request carries.
func (c *Client) setCommon(q url.Values) {
	c.setMatchOnly(q)
	q.Set("vintage", c.Options.Vintage)
}

// setMatchOnly adds the parameters of a locations request: a vintage
// there is no parameter of the search.
func (c *Client) setMatchOnly(q url.Values) {
	q.Set("benchmark", c.Options.Benchmark)
	q.Set("format", "json")
}

// decodeResult reads a JSON answer and returns its "result" member. A body
// that is not JSON, or JSON without "result" (such as an {"errors":[...]}
// document), is a KindUpstream error.
func decodeResult(body []byte) (*result, error) {
	var doc struct {
		Result *result `json:"result"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, providers.Wrap(fmt.Errorf("census: decoding answer: %w (body: %s)", err, snippet(body)),
			providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder sent an answer that could not be read")
	}
	if doc.Result == nil {
		cause := errorsCause(body)
		if cause == nil {
			cause = fmt.Errorf("no result in answer: %s", snippet(body))
		}
		return nil, providers.Wrap(fmt.Errorf("census: %w", cause),
			providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder answered with an error")
	}
	return doc.Result, nil
}

// matchLocation turns one address match into a Location.
func matchLocation(m addressMatch) (providers.Location, error) {
	if m.Coordinates == nil || m.Coordinates.X == nil || m.Coordinates.Y == nil {
		return providers.Location{}, providers.Wrap(errors.New("census: address match without coordinates"),
			providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder sent an answer that could not be read")
	}
	pt := providers.Point{Lat: float64(*m.Coordinates.Y), Lng: float64(*m.Coordinates.X)}
	if !validPoint(pt) {
		return providers.Location{}, providers.Wrap(fmt.Errorf("census: match coordinates out of range: %v", pt),
			providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder sent an answer that could not be read")
	}
	loc := addressLocation(strings.TrimSpace(m.MatchedAddress))
	loc.Point = pt
	comp := m.AddressComponents
	if v := strings.TrimSpace(string(comp.City)); v != "" {
		loc.City = strings.ToUpper(v)
	}
	if v := strings.TrimSpace(string(comp.State)); v != "" {
		loc.State = strings.ToUpper(v)
	}
	if v := strings.TrimSpace(string(comp.Zip)); v != "" {
		loc.Zip = v
	}
	fillGeographies(&loc, m.Geographies)
	return loc, nil
}

// addressLocation splits a matched address "STREET, CITY, ST, ZIP" into a
// Location: Street is the part before the first comma, City, State and Zip
// are the last three parts. Street, City and State are upper-cased. Its
// precision is the Census geocoder's: an interpolation along its ranges.
func addressLocation(matched string) providers.Location {
	loc := providers.Location{MatchedAddress: matched, Precision: providers.PrecisionCensus}
	parts := strings.Split(matched, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	loc.Street = strings.ToUpper(parts[0])
	if n := len(parts); n >= 4 {
		loc.City = strings.ToUpper(parts[n-3])
		loc.State = strings.ToUpper(parts[n-2])
		loc.Zip = parts[n-1]
	}
	return loc
}

func validPoint(p providers.Point) bool {
	return !math.IsNaN(p.Lat) && !math.IsNaN(p.Lng) &&
		p.Lat >= -90 && p.Lat <= 90 && p.Lng >= -180 && p.Lng <= 180
}
