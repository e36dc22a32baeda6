// Package upstream is the shared HTTP plumbing of the provider modules: how
// an upstream's transport failure, HTTP status and Retry-After header become
// *providers.Error values (TransportError, StatusError, Delay), how a
// request is sent and its answer read (Do), and which base URL, client and
// clock a module keeps of its providers.Settings (Endpoint).
//
// Every module reports the same things the same way through it: a caller
// that went away is KindCanceled or KindTimeout whatever the transport said;
// an error a decorator in the client already classified keeps its meaning;
// a connection that could not be made at all (DNS, refused, TLS) is
// KindUnreachable (upstream_unreachable); a client timeout is KindTimeout
// (upstream_timeout); any other failure to get an answer is KindUpstream
// (upstream_error); HTTP 429 is KindUpstream upstream_rate_limited and 5xx
// upstream_error, both with the Retry-After the upstream sent, so the retry
// and circuit-breaker decorators around a module can act on them. The
// request URL quoted by a transport failure keeps no query string
// (RedactURL): what a module asks about, an address or a point, is never
// logged. What an upstream does differently (error documents in an
// HTTP 200, HTML key pages, status codes in the body) stays in its module,
// which calls these helpers for the common part.
//
// The package holds no state; everything in it is safe for concurrent use.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// RetryAfter parses a Retry-After header value, delay-seconds or an HTTP
// date, exactly: ok is false when v is empty, negative, too large for a
// time.Duration or neither form; a date in the past is 0 with ok true.
// Surrounding white space is ignored.
func RetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 || secs > int64(math.MaxInt64/time.Second) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Delay returns the wait the Retry-After header of h asks for, rounded to
// whole seconds, as the RetryAfter of a *providers.Error: 0 when the header
// is absent, unreadable or in the past, which means "unknown" there.
func Delay(h http.Header, now time.Time) time.Duration {
	d, _ := RetryAfter(h.Get("Retry-After"), now)
	return d.Round(time.Second)
}

// maxSnippet is how many bytes of a body Snippet keeps.
const maxSnippet = 200

// Snippet returns the start of body on one line (white space collapsed), for
// the cause of an error: logs show what the upstream sent without the whole
// page.
func Snippet(body []byte) string {
	s := string(body)
	if len(s) > maxSnippet {
		s = s[:maxSnippet] + "..."
	}
	return strings.Join(strings.Fields(s), " ")
}

// TransportError classifies a failure to get an answer at all, from
// http.Client.Do or from reading a body; err must not be nil. It is the one
// place where an upstream's transport error becomes a *providers.Error, so
// it is where the request leaves the error: the URL of every *url.Error in
// err is rewritten in place by RedactURL (scheme, host and path stay, the
// query string, which holds the street or the point asked about and
// sometimes an API key, does not), and err is kept as the cause.
//
// The caller's context decides first (KindCanceled, or KindTimeout
// upstream_timeout); then an error a decorator in the client already
// classified (a *providers.Error inside err, such as an open breaker's)
// keeps its meaning; then context errors inside err; then a connection
// that could not be made at all, whose name did not resolve, that was
// refused or timed out while dialling, or whose TLS handshake failed, is
// KindUnreachable upstream_unreachable ("<service> could not be reached"):
// the upstream never saw the request, which a client may tell from an
// upstream that failed while answering; then a client timeout (KindTimeout
// upstream_timeout, "<service> did not answer in time"); anything else (a
// connection reset or closed before the answer was complete, an answer
// that is not HTTP) is KindUpstream upstream_error ("<service> broke off
// its answer"). service names the upstream in the message shown to
// clients, e.g. "the census geocoder".
func TransportError(ctx context.Context, err error, service string) *providers.Error {
	Redact(err)
	if cerr := ctx.Err(); cerr != nil {
		return providers.As(cerr)
	}
	if pe, ok := errors.AsType[*providers.Error](err); ok {
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return providers.As(err)
	}
	if unreachable(err) {
		return providers.Wrap(err, providers.KindUnreachable, providers.CodeUpstreamUnreachable, service+" could not be reached")
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return providers.Wrap(err, providers.KindTimeout, providers.CodeUpstreamTimeout, service+" did not answer in time")
	}
	return providers.Wrap(err, providers.KindUpstream, providers.CodeUpstreamError, service+" broke off its answer")
}

// StatusError turns an answer with an unexpected HTTP status into a
// KindUpstream error: 429 is upstream_rate_limited ("<service> is limiting
// the request rate"), any other status upstream_error ("<service> answered
// with HTTP <status>"). 429 and 5xx carry Delay(h, now) as RetryAfter. The
// cause is "HTTP <status>: " and the Snippet of body; a module whose
// upstream explains itself better replaces Err, and a module that gives some
// statuses another meaning (404: a wrong base URL) handles those first.
func StatusError(status int, h http.Header, body []byte, service string, now time.Time) *providers.Error {
	e := &providers.Error{
		Kind:    providers.KindUpstream,
		Code:    providers.CodeUpstreamError,
		Message: fmt.Sprintf("%s answered with HTTP %d", service, status),
		Err:     fmt.Errorf("HTTP %d: %s", status, Snippet(body)),
	}
	if status == http.StatusTooManyRequests {
		e.Code = providers.CodeUpstreamRateLimited
		e.Message = service + " is limiting the request rate"
	}
	if status == http.StatusTooManyRequests || status >= 500 {
		e.RetryAfter = Delay(h, now)
	}
	return e
}
