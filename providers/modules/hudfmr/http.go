package hudfmr

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// service names the upstream in the messages clients see.
const service = "the HUD FMR API"

// maxBody bounds an answer: a Small Area FMR metro with a few hundred ZIP
// rows is well under 1 MB.
const maxBody = 4 << 20

// get sends a GET for path (relative to the base URL, with its query) and
// returns the body of an HTTP 200 answer.
func (c *Client) get(ctx context.Context, path, entity string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base()+"/"+path, nil)
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "could not build the HUD FMR request")
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/json")
	a, err := upstream.Do(c.HTTP(), req, maxBody, service)
	if err != nil {
		return nil, err
	}
	if a.Status != http.StatusOK {
		return nil, c.statusError(a, entity)
	}
	return a.Body, nil
}

// statusError classifies a non-200 answer for entity; see the package
// documentation for the table.
func (c *Client) statusError(a *upstream.Answer, entity string) error {
	cause := fmt.Errorf("hudfmr: HTTP %d for %s: %s", a.Status, entity, upstreamMessage(a.Body))
	switch code := a.Status; {
	case code == http.StatusNotFound:
		return providers.Wrap(cause, providers.KindNotFound, providers.CodeFMRNotFound,
			"HUD publishes no fair market rents for this county"+newEnglandNote(entity))
	case code == http.StatusUnauthorized:
		return providers.Wrap(cause, providers.KindUnavailable, providers.CodeUpstreamMisconfigured,
			"the HUD FMR API rejected the configured token")
	case code == http.StatusForbidden:
		return providers.Wrap(cause, providers.KindUnavailable, providers.CodeUpstreamMisconfigured,
			"the configured HUD token is not registered for the FMR dataset")
	case code == http.StatusBadRequest:
		return providers.Wrap(cause, providers.KindUpstream, providers.CodeUpstreamRejectedInput,
			"the HUD FMR API rejected the request parameters")
	default: // 429, 5xx and anything else, as every module reports them
		e := upstream.StatusError(code, a.Header, a.Body, service, c.Now())
		e.Err = cause
		return e
	}
}

// upstreamMessage returns the "error" text of an {"error": "..."} body, or
// the start of any other body.
func upstreamMessage(body []byte) string {
	var doc struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(body, &doc) == nil && doc.Error != nil {
		if s, ok := doc.Error.(string); ok {
			return s
		}
		if b, err := json.Marshal(doc.Error); err == nil {
			return snippet(b)
		}
	}
	return snippet(body)
}

// newEnglandStates are the state FIPS codes of Connecticut, Maine,
// Massachusetts, New Hampshire, Rhode Island and Vermont, where HUD keys its
// data by town rather than by county.
var newEnglandStates = map[string]bool{"09": true, "23": true, "25": true, "33": true, "44": true, "50": true}

// newEnglandNote explains a 404 for a New England county.
func newEnglandNote(entity string) string {
	if len(entity) >= 2 && newEnglandStates[entity[:2]] {
		return " (in New England HUD publishes them by town, not by county)"
	}
	return ""
}

// snippet is upstream.Snippet under the name the decoders of this package
// use for the causes they report.
func snippet(body []byte) string { return upstream.Snippet(body) }
