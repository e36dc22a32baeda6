package walkscore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// The status codes of a Walk Score answer body.
const (
	statusOK            = 1  // score returned
	statusPending       = 2  // score being calculated; retry later
	statusInvalidLatLon = 30 // invalid latitude/longitude
	statusInternal      = 31 // Walk Score internal error
	statusInvalidKey    = 40 // invalid wsapikey
	statusQuota         = 41 // daily quota exceeded
	statusBlockedIP     = 42 // IP address blocked
)

// WalkScore returns the Walk Score of the place at p; address, when not
// empty, is sent too (Walk Score uses it for matching and its links).
//
// Errors: KindInvalid (invalid_parameter) for a coordinate out of range,
// without calling the upstream; KindUpstream with code score_pending
// (status 2, retry later), upstream_rejected_input (status 30),
// upstream_rate_limited (status 41 or HTTP 429) or upstream_error (status
// 31, 5xx, an unknown status or an unreadable body); KindUnavailable with
// code upstream_misconfigured for a bad key (40) or a blocked IP (42);
// KindTimeout and KindCanceled from ctx.
func (c *Client) WalkScore(ctx context.Context, p providers.Point, address string) (_ *providers.WalkScore, err error) {
	// An answer may echo the query: the address, the point and the key.
	defer func() { err = upstream.Scrub(err, append(upstream.Coordinates(p), address, c.APIKey)...) }()
	if math.IsNaN(p.Lat) || p.Lat < -90 || p.Lat > 90 {
		return nil, providers.Invalid("lat", "must be a latitude between -90 and 90")
	}
	if math.IsNaN(p.Lng) || p.Lng < -180 || p.Lng > 180 {
		return nil, providers.Invalid("lng", "must be a longitude between -180 and 180")
	}
	q := url.Values{}
	q.Set("format", "json")
	q.Set("lat", strconv.FormatFloat(p.Lat, 'f', -1, 64))
	q.Set("lon", strconv.FormatFloat(p.Lng, 'f', -1, 64))
	if a := strings.Join(strings.Fields(address), " "); a != "" {
		q.Set("address", a)
	}
	q.Set("transit", "1")
	q.Set("bike", "1")
	q.Set("wsapikey", c.APIKey)
	a, err := c.get(ctx, q)
	if err != nil {
		return nil, err
	}
	return c.interpret(a)
}

// interpret turns an answer into a score or an error, branching on the body
// status first and on the HTTP status only when the body has none.
func (c *Client) interpret(a *answer) (*providers.WalkScore, error) {
	var head struct {
		Status number `json:"status"`
	}
	herr := json.Unmarshal(a.body, &head)
	status := head.Status.Value
	if herr != nil || !head.Status.Set {
		switch {
		case a.status == http.StatusForbidden:
			status = statusBlockedIP
		case a.status == http.StatusNotFound:
			status = statusInvalidLatLon
		case a.status == http.StatusTooManyRequests:
			return nil, c.upstreamError(a, 0, providers.CodeUpstreamRateLimited, "Walk Score is limiting the request rate")
		case a.status >= 500:
			status = statusInternal
		case a.status == http.StatusOK && herr != nil:
			return nil, c.upstreamError(a, 0, providers.CodeUpstreamError, "Walk Score sent an unreadable answer")
		case a.status == http.StatusOK:
			return nil, c.upstreamError(a, 0, providers.CodeUpstreamError, "Walk Score sent an answer without a status")
		default:
			return nil, c.upstreamError(a, 0, providers.CodeUpstreamError,
				fmt.Sprintf("Walk Score answered with HTTP %d", a.status))
		}
	}
	switch status {
	case statusOK:
		return c.decodeScore(a)
	case statusPending:
		return nil, c.upstreamError(a, status, providers.CodeScorePending,
			"Walk Score is still calculating the score of this place; retry later")
	case statusInvalidLatLon:
		return nil, c.upstreamError(a, status, providers.CodeUpstreamRejectedInput,
			"Walk Score rejected the coordinates of this place")
	case statusInternal:
		return nil, c.upstreamError(a, status, providers.CodeUpstreamError, "Walk Score had an internal error")
	case statusQuota:
		return nil, c.upstreamError(a, status, providers.CodeUpstreamRateLimited, "the daily Walk Score quota is exhausted")
	case statusInvalidKey:
		return nil, c.misconfigured(a, status, "Walk Score rejected the configured API key")
	case statusBlockedIP:
		return nil, c.misconfigured(a, status, "Walk Score has blocked the IP address of this server")
	}
	return nil, c.upstreamError(a, status, providers.CodeUpstreamError,
		fmt.Sprintf("Walk Score answered with unknown status %d", status))
}

// decodeScore reads a status 1 body.
func (c *Client) decodeScore(a *answer) (*providers.WalkScore, error) {
	var doc scoreDoc
	if err := json.Unmarshal(a.body, &doc); err != nil {
		return nil, c.garbage(a, err)
	}
	if !doc.WalkScore.Set {
		return nil, c.garbage(a, errors.New("no walkscore in a status 1 answer"))
	}
	if doc.WalkScore.Value < 0 || doc.WalkScore.Value > 100 {
		return nil, c.garbage(a, fmt.Errorf("walkscore %d out of range", doc.WalkScore.Value))
	}
	ws := &providers.WalkScore{
		WalkScore: doc.WalkScore.Value,
		Method:    Name,
		Source:    Name,
	}
	if doc.Description != nil {
		ws.Description = strings.TrimSpace(*doc.Description)
	}
	if ws.Description == "" {
		ws.Description = Band(ws.WalkScore)
	}
	if doc.Transit != nil {
		ws.TransitScore = doc.Transit.Score.ptr()
	}
	if doc.Bike != nil {
		ws.BikeScore = doc.Bike.Score.ptr()
	}
	return ws, nil
}

// cause describes an answer for logs.
func cause(a *answer, status int) error {
	if status != 0 {
		return fmt.Errorf("walkscore: HTTP %d, status %d: %s", a.status, status, snippet(a.body))
	}
	return fmt.Errorf("walkscore: HTTP %d: %s", a.status, snippet(a.body))
}

// upstreamError returns a KindUpstream error with code and message, carrying
// any Retry-After of the answer.
func (c *Client) upstreamError(a *answer, status int, code, message string) error {
	return &providers.Error{
		Kind:       providers.KindUpstream,
		Code:       code,
		Message:    message,
		RetryAfter: upstream.Delay(a.header, c.Now()),
		Err:        cause(a, status),
	}
}

// misconfigured returns a KindUnavailable error: only the operator can fix
// a bad key or a blocked address.
func (c *Client) misconfigured(a *answer, status int, message string) error {
	return providers.Wrap(cause(a, status), providers.KindUnavailable, providers.CodeUpstreamMisconfigured, message)
}

// garbage returns a KindUpstream error for a status 1 body that cannot be read.
func (c *Client) garbage(a *answer, err error) error {
	return providers.Wrap(fmt.Errorf("%w: %v", err, cause(a, statusOK)), providers.KindUpstream,
		providers.CodeUpstreamError, "Walk Score sent an unreadable answer")
}
