package femanfhl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// service names the upstream in the messages clients see.
const service = "the FEMA flood map service"

// ArcGISError is the error envelope ArcGIS sends with HTTP 200,
// {"error":{"code":400,"message":"Failed to execute query.","details":[]}}.
// It is the cause (Err) of the KindUpstream *providers.Error Flood returns
// for such a body, so logs keep the service's own code and message; use
// errors.As to reach it.
type ArcGISError struct {
	Code    int      `json:"code"`
	Message string   `json:"message"`
	Details []string `json:"details"`
}

// Error reports the ArcGIS code, message and details, for logs.
func (e *ArcGISError) Error() string {
	msg := fmt.Sprintf("arcgis error %d: %s", e.Code, e.Message)
	if len(e.Details) > 0 {
		msg += " (" + strings.Join(e.Details, "; ") + ")"
	}
	return msg
}

// UnmarshalJSON reads the envelope leniently: details that are not strings
// are kept as their JSON text instead of failing the whole body.
func (e *ArcGISError) UnmarshalJSON(b []byte) error {
	var raw struct {
		Code    json.Number       `json:"code"`
		Message string            `json:"message"`
		Details []json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.Code != "" {
		n, err := strconv.ParseFloat(string(raw.Code), 64)
		if err != nil {
			return fmt.Errorf("arcgis error code %q: %w", raw.Code, err)
		}
		e.Code = int(n)
	}
	e.Message = raw.Message
	e.Details = nil
	for _, d := range raw.Details {
		var s string
		if json.Unmarshal(d, &s) == nil {
			e.Details = append(e.Details, s)
		} else {
			e.Details = append(e.Details, string(d))
		}
	}
	return nil
}

// featureSet is the Esri JSON featureset of a query with
// returnGeometry=false, or the error envelope. Features is a pointer so that
// a body without the key is told apart from an empty result.
type featureSet[A any] struct {
	Error    *ArcGISError `json:"error"`
	Features *[]struct {
		Attributes A `json:"attributes"`
	} `json:"features"`
}

// decodeFeatures returns the attributes of every feature in body, or a
// KindUpstream error for an ArcGIS error envelope or anything that is not a
// featureset. what names the layer in messages.
func decodeFeatures[A any](body []byte, what string) ([]A, error) {
	var fs featureSet[A]
	if err := json.Unmarshal(body, &fs); err != nil {
		return nil, providers.Wrap(fmt.Errorf("decoding %s: %w", what, err),
			providers.KindUpstream, providers.CodeUpstreamError, "the FEMA flood map service sent an unreadable answer")
	}
	if fs.Error != nil {
		return nil, providers.Wrap(fs.Error,
			providers.KindUpstream, providers.CodeUpstreamError, "the FEMA flood map service reported an error")
	}
	if fs.Features == nil {
		return nil, providers.Wrap(fmt.Errorf("decoding %s: no features in the answer", what),
			providers.KindUpstream, providers.CodeUpstreamError, "the FEMA flood map service sent an unreadable answer")
	}
	out := make([]A, 0, len(*fs.Features))
	for _, f := range *fs.Features {
		out = append(out, f.Attributes)
	}
	return out, nil
}

// query runs one point query on layer and returns the body of a 200 answer.
// Every failure is an *providers.Error: getting the answer fails as it
// does for every module (upstream.Do), and a status other than 200 as
// statusError says.
func (c *Client) query(ctx context.Context, layer int, outFields string, p providers.Point) ([]byte, error) {
	q := url.Values{
		"geometry":       {strconv.FormatFloat(p.Lng, 'f', -1, 64) + "," + strconv.FormatFloat(p.Lat, 'f', -1, 64)},
		"geometryType":   {"esriGeometryPoint"},
		"inSR":           {"4326"},
		"spatialRel":     {"esriSpatialRelIntersects"},
		"outFields":      {outFields},
		"returnGeometry": {"false"},
		"f":              {"json"},
	}
	u := c.Base() + "/" + strconv.Itoa(layer) + "/query?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, providers.Wrap(upstream.Redact(err), providers.KindInternal, providers.CodeInternalError, "could not build the flood map request")
	}
	req.Header.Set("Accept", "application/json")
	a, err := upstream.Do(c.HTTP(), req, maxBody, service)
	if err != nil {
		return nil, err
	}
	if a.Status != http.StatusOK {
		return nil, c.statusError(a, layer)
	}
	return a.Body, nil
}

// statusError turns a non-200 answer into an error: 429 is
// upstream_rate_limited, 404 means the base URL or layer id is wrong
// (upstream_misconfigured), anything else is upstream_error. Retry-After is
// kept whenever the service sent one.
func (c *Client) statusError(a *upstream.Answer, layer int) *providers.Error {
	cause := fmt.Errorf("layer %d: HTTP %d %s", layer, a.Status, http.StatusText(a.Status))
	var e *providers.Error
	switch {
	case a.Status == http.StatusTooManyRequests:
		e = providers.Wrap(cause, providers.KindUpstream, providers.CodeUpstreamRateLimited, "the FEMA flood map service is rate limiting requests")
	case a.Status == http.StatusNotFound:
		e = providers.Wrap(cause, providers.KindUnavailable, providers.CodeUpstreamMisconfigured, "the FEMA flood map service has no such layer; check base_url and the layer options")
	default:
		e = providers.Wrap(cause, providers.KindUpstream, providers.CodeUpstreamError, "the FEMA flood map service answered with an error")
	}
	e.RetryAfter = upstream.Delay(a.Header, c.Now())
	return e
}
