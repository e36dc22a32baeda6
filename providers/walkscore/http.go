package walkscore

import (
	"context"
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

// maxBody bounds an answer: a score with transit and bike is under 1 KB.
const maxBody = 1 << 20

// answer is one HTTP answer of the upstream, read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// get sends GET score with query q and returns the answer whatever its HTTP
// status, since Walk Score reports outcomes in the body.
func (c *Client) get(ctx context.Context, q url.Values) (*answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/score?"+q.Encode(), nil)
	if err != nil {
		return nil, providers.Wrap(c.redact(err), providers.KindInternal, "internal_error", "could not build the Walk Score request")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(ctx, c.redact(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, transportError(ctx, c.redact(err))
	}
	if len(body) > maxBody {
		return nil, providers.Wrap(fmt.Errorf("walkscore: answer larger than %d bytes", maxBody),
			providers.KindUpstream, "upstream_error", "Walk Score sent an unexpectedly large answer")
	}
	return &answer{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// transportError classifies a failure to get an answer at all: the caller's
// context first, then client timeouts, then anything else as an upstream
// failure. err must already be redacted.
func transportError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return providers.As(cerr)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return providers.As(err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return providers.Wrap(err, providers.KindTimeout, "upstream_timeout", "Walk Score did not answer in time")
	}
	return providers.Wrap(err, providers.KindUpstream, "upstream_error", "Walk Score could not be reached")
}

// redactedError hides the API key in the text of an error that quotes the
// request URL (as *url.Error does), while errors.Is and errors.As still see
// the cause.
type redactedError struct {
	err     error
	secrets []string
}

func (e *redactedError) Error() string {
	s := e.err.Error()
	for _, secret := range e.secrets {
		s = strings.ReplaceAll(s, secret, "REDACTED")
	}
	return s
}

func (e *redactedError) Unwrap() error { return e.err }

// redact wraps err so that its text never shows the API key, raw or
// query-escaped.
func (c *Client) redact(err error) error {
	secrets := []string{c.key}
	if esc := url.QueryEscape(c.key); esc != c.key {
		secrets = append(secrets, esc)
	}
	return &redactedError{err: err, secrets: secrets}
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
