package census

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
)

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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/"+path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, "internal_error", "could not build the census geocoder request")
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
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, transportError(ctx, err)
	}
	if int64(len(body)) > limit {
		return nil, providers.Wrap(fmt.Errorf("census: answer larger than %d bytes", limit),
			providers.KindUpstream, "upstream_error", "the census geocoder sent an unexpectedly large answer")
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp, body)
	}
	return body, nil
}

// transportError classifies a failure to get an answer at all: the caller's
// context first, then client timeouts, then anything else as an upstream
// failure.
func transportError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return providers.As(cerr)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return providers.As(err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return providers.Wrap(err, providers.KindTimeout, "upstream_timeout", "the census geocoder did not answer in time")
	}
	return providers.Wrap(err, providers.KindUpstream, "upstream_error", "the census geocoder could not be reached")
}

// statusError turns a non-200 answer into a KindUpstream error. 429 has its
// own code; 429 and 5xx carry the parsed Retry-After. The upstream's own
// messages, when the body is its {"errors":[...]} document, become the cause.
func (c *Client) statusError(resp *http.Response, body []byte) error {
	e := &providers.Error{
		Kind:    providers.KindUpstream,
		Code:    "upstream_error",
		Message: fmt.Sprintf("the census geocoder answered with HTTP %d", resp.StatusCode),
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		e.Code = "upstream_rate_limited"
		e.Message = "the census geocoder is limiting the request rate"
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.now())
	}
	if cause := errorsCause(body); cause != nil {
		e.Err = fmt.Errorf("census: HTTP %d: %w", resp.StatusCode, cause)
	} else {
		e.Err = fmt.Errorf("census: HTTP %d: %s", resp.StatusCode, snippet(body))
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

// parseRetryAfter reads a Retry-After header given in seconds or as an HTTP
// date; 0 means absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}

// snippet returns the start of body for an error cause, on one line.
func snippet(body []byte) string {
	const max = 200
	s := string(body)
	if len(s) > max {
		s = s[:max] + "..."
	}
	return strings.Join(strings.Fields(s), " ")
}

// setNonEmpty sets q[key] to v unless v is empty, so optional parameters
// the caller does not know are left out rather than sent blank.
func setNonEmpty(q url.Values, key, v string) {
	if v = strings.TrimSpace(v); v != "" {
		q.Set(key, v)
	}
}
