package hudfmr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// maxBody bounds an answer: a Small Area FMR metro with a few hundred ZIP
// rows is well under 1 MB.
const maxBody = 4 << 20

// get sends a GET for path (relative to the base URL, with its query) and
// returns the body of an HTTP 200 answer.
func (c *Client) get(ctx context.Context, path, entity string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/"+path, nil)
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, "internal_error", "could not build the HUD FMR request")
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, transportError(ctx, err)
	}
	if len(body) > maxBody {
		return nil, providers.Wrap(fmt.Errorf("hudfmr: answer larger than %d bytes", maxBody),
			providers.KindUpstream, "upstream_error", "the HUD FMR API sent an unexpectedly large answer")
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp, body, entity)
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
		return providers.Wrap(err, providers.KindTimeout, "upstream_timeout", "the HUD FMR API did not answer in time")
	}
	return providers.Wrap(err, providers.KindUpstream, "upstream_error", "the HUD FMR API could not be reached")
}

// statusError classifies a non-200 answer for entity; see the package
// documentation for the table.
func (c *Client) statusError(resp *http.Response, body []byte, entity string) error {
	cause := fmt.Errorf("hudfmr: HTTP %d for %s: %s", resp.StatusCode, entity, upstreamMessage(body))
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound:
		return providers.Wrap(cause, providers.KindNotFound, "fmr_not_found",
			"HUD publishes no fair market rents for this county"+newEnglandNote(entity))
	case code == http.StatusUnauthorized:
		return providers.Wrap(cause, providers.KindUnavailable, "upstream_misconfigured",
			"the HUD FMR API rejected the configured token")
	case code == http.StatusForbidden:
		return providers.Wrap(cause, providers.KindUnavailable, "upstream_misconfigured",
			"the configured HUD token is not registered for the FMR dataset")
	case code == http.StatusBadRequest:
		return providers.Wrap(cause, providers.KindUpstream, "upstream_rejected_input",
			"the HUD FMR API rejected the request parameters")
	case code == http.StatusTooManyRequests:
		return &providers.Error{Kind: providers.KindUpstream, Code: "upstream_rate_limited",
			Message:    "the HUD FMR API is limiting the request rate",
			RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), c.now()), Err: cause}
	case code >= 500:
		return &providers.Error{Kind: providers.KindUpstream, Code: "upstream_error",
			Message:    fmt.Sprintf("the HUD FMR API answered with HTTP %d", code),
			RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), c.now()), Err: cause}
	default:
		return providers.Wrap(cause, providers.KindUpstream, "upstream_error",
			fmt.Sprintf("the HUD FMR API answered with HTTP %d", code))
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
