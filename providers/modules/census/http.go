package census

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// service names the upstream in the messages clients see.
const service = "the census geocoder"

// Size limits for answers. A layers=all JSON answer is about 8 KB and a full
// batch of MaxBatchRows geographies rows about 2 MB; anything far larger is
// not a geocoder answer.
const (
	maxJSONBody  = 4 << 20
	maxBatchBody = 32 << 20
)

// get sends a GET for path (relative to the base URL) with query q and
// returns the body of an HTTP 200 answer.
func (c *Client) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base()+"/"+path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, providers.Wrap(upstream.Redact(err), providers.KindInternal, providers.CodeInternalError, "could not build the census geocoder request")
	}
	req.Header.Set("Accept", "application/json")
	return c.do(ctx, req, maxJSONBody)
}

// do sends req and returns the body of an HTTP 200 answer, or an
// *providers.Error classifying the failure.
func (c *Client) do(ctx context.Context, req *http.Request, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil { // nothing to send for a caller that has gone
		return nil, providers.As(err)
	}
	a, err := upstream.Do(c.HTTP(), req, limit, service)
	if err != nil {
		return nil, err
	}
	if a.Status != http.StatusOK {
		return nil, c.statusError(a)
	}
	return a.Body, nil
}

// statusError turns a non-200 answer into a KindUpstream error (see
// upstream.StatusError: 429 has its own code; 429 and 5xx carry the parsed
// Retry-After). The upstream's own messages, when the body is its
// {"errors":[...]} document, become the cause.
func (c *Client) statusError(a *upstream.Answer) error {
	e := upstream.StatusError(a.Status, a.Header, a.Body, service, c.Now())
	if cause := errorsCause(a.Body); cause != nil {
		e.Err = fmt.Errorf("census: HTTP %d: %w", a.Status, cause)
	} else {
		e.Err = fmt.Errorf("census: %w", e.Err)
	}
	return e
}

// errorsCause returns the messages of an {"errors":[...]} body as one error,
// or nil when body is not such a document.
func errorsCause(body []byte) error {
	var doc struct {
		Errors []json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &doc) != nil || len(doc.Errors) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(doc.Errors))
	for _, raw := range doc.Errors {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		msgs = append(msgs, s)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// snippet is upstream.Snippet under the name the decoders of this package
// use for the causes they report.
func snippet(body []byte) string { return upstream.Snippet(body) }

// setNonEmpty sets q[key] to v unless v is empty, so optional parameters
// the caller does not know are left out rather than sent blank.
func setNonEmpty(q url.Values, key, v string) {
	if v = strings.TrimSpace(v); v != "" {
		q.Set(key, v)
	}
}
