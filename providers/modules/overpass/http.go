package overpass

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// service names the upstream in the messages clients see.
const service = "the Overpass API"

// maxBody bounds an answer. Tags-only output is about 300 bytes per element;
// a 5 km radius downtown is some ten thousand elements, a few megabytes.
const maxBody = 64 << 20

// answer is the JSON document the interpreter sends for [out:json].
type answer struct {
	Version   *float64   `json:"version"`
	Generator string     `json:"generator"`
	Elements  *[]element `json:"elements"`
	Remark    string     `json:"remark"`
}

// element is one node, way or relation of an answer. Nodes carry lat/lon;
// ways and relations carry center with "out center" (possibly empty).
type element struct {
	Type   string            `json:"type"`
	ID     int64             `json:"id"`
	Lat    *float64          `json:"lat"`
	Lon    *float64          `json:"lon"`
	Center *latLon           `json:"center"`
	Tags   map[string]string `json:"tags"`
}

type latLon struct {
	Lat *float64 `json:"lat"`
	Lon *float64 `json:"lon"`
}

// point returns where the element is: a node's own position, else a way's
// or relation's center; ok=false when it has neither or they are not valid
// WGS84 coordinates.
func (e element) point() (providers.Point, bool) {
	lat, lon := e.Lat, e.Lon
	if e.Center != nil && e.Center.Lat != nil && e.Center.Lon != nil {
		lat, lon = e.Center.Lat, e.Center.Lon
	}
	if lat == nil || lon == nil || !(*lat >= -90 && *lat <= 90) || !(*lon >= -180 && *lon <= 180) {
		return providers.Point{}, false
	}
	return providers.Point{Lat: *lat, Lng: *lon}, true
}

// interpret sends the query q and returns the elements of a complete answer.
func (c *Client) interpret(ctx context.Context, q string) ([]element, error) {
	if err := ctx.Err(); err != nil {
		// Do not spend one of the two slots the public instance grants an
		// IP on a request nobody waits for.
		return nil, providers.As(err)
	}
	form := url.Values{"data": {q}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "could not build the Overpass request")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	a, err := upstream.Do(c.HTTP(), req, maxBody, service)
	if err != nil {
		return nil, err
	}
	return decode(a.Status, a.Header, a.Body, c.Now())
}

// decode turns one interpreter answer into its elements, or into the
// *providers.Error the package doc describes. now resolves an HTTP-date
// Retry-After.
func decode(status int, h http.Header, body []byte, now time.Time) ([]element, error) {
	if status != http.StatusOK {
		return nil, statusError(status, h, body, now)
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		// Mirrors send their HTML error pages with status 200.
		return nil, pageError(status, h, body, now)
	}
	var a answer
	if err := json.Unmarshal(trimmed, &a); err != nil {
		return nil, providers.Wrap(fmt.Errorf("overpass: decoding answer: %w", err),
			providers.KindUpstream, providers.CodeUpstreamError, "the Overpass API sent an unreadable answer")
	}
	if isRuntimeError(a.Remark) {
		return nil, providers.Wrap(fmt.Errorf("overpass: %s (%d elements dropped)", a.Remark, elementCount(a)),
			providers.KindUpstream, providers.CodeUpstreamIncomplete, remarkMessage(a.Remark))
	}
	if a.Elements == nil {
		return nil, providers.Wrap(errors.New("overpass: answer has no elements array"),
			providers.KindUpstream, providers.CodeUpstreamError, "the Overpass API sent an unreadable answer")
	}
	return *a.Elements, nil
}

func elementCount(a answer) int {
	if a.Elements == nil {
		return 0
	}
	return len(*a.Elements)
}

// isRuntimeError reports whether remark says the query failed on the server
// (timeout, out of memory), which leaves the elements partial. A "runtime
// remark" is informational.
func isRuntimeError(remark string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(remark)), "runtime error")
}

func remarkMessage(remark string) string {
	r := strings.ToLower(remark)
	switch {
	case strings.Contains(r, "timed out"):
		return "the Overpass API ran out of time for this query and sent an incomplete answer"
	case strings.Contains(r, "out of memory"):
		return "the Overpass API ran out of memory for this query and sent an incomplete answer"
	}
	return "the Overpass API failed during the query and sent an incomplete answer"
}

// Markers of the dispatcher states in the upstream's HTML error pages.
const (
	markRateLimited = "request_read_and_idx::rate_limited"
	markBusy        = "request_read_and_idx::timeout"
)

// statusError turns a non-200 answer into an error: 429 is
// upstream_rate_limited, 404 means the base URL is no interpreter, anything
// else is upstream_error. 429 and 5xx carry a parsed Retry-After.
func statusError(status int, h http.Header, body []byte, now time.Time) error {
	if status == http.StatusNotFound {
		return providers.Wrap(fmt.Errorf("overpass: HTTP 404: %s", pageText(body)),
			providers.KindUnavailable, providers.CodeUpstreamMisconfigured, "the configured Overpass URL is not an interpreter endpoint")
	}
	return pageError(status, h, body, now)
}

// pageError classifies an error page (HTML or text) by status and by the
// dispatcher state it names: a page naming the rate limit counts as HTTP 429
// whatever its status, and the rest is upstream.StatusError with messages
// for the states the dispatcher explains.
func pageError(status int, h http.Header, body []byte, now time.Time) error {
	text := pageText(body)
	as := status
	if strings.Contains(text, markRateLimited) {
		as = http.StatusTooManyRequests
	}
	e := upstream.StatusError(as, h, body, service, now)
	e.Err = fmt.Errorf("overpass: HTTP %d: %s", status, text)
	e.RetryAfter = min(e.RetryAfter, maxRetryAfter)
	if e.Code == providers.CodeUpstreamRateLimited {
		return e
	}
	switch {
	case strings.Contains(text, markBusy):
		e.Message = "the Overpass API is too busy to answer"
	case status == http.StatusBadRequest:
		e.Message = "the Overpass API rejected the query"
	case status == http.StatusOK:
		e.Message = "the Overpass API sent an error page instead of data"
	}
	return e
}

// maxRetryAfter caps the RetryAfter of an error: a wait of more than a day
// is no advice a client can use.
const maxRetryAfter = 24 * time.Hour

var (
	errorParagraph = regexp.MustCompile(`(?is)<strong[^>]*>\s*Error\s*</strong>\s*:?(.*?)</p>`)
	htmlTag        = regexp.MustCompile(`<[^>]*>`)
)

// pageText returns the upstream's own message from an OSM3S error page (the
// "Error: ..." paragraph), else the start of the body without markup, with
// white space collapsed, for logs.
func pageText(body []byte) string {
	s := string(body)
	if m := errorParagraph.FindStringSubmatch(s); m != nil {
		s = m[1]
	} else {
		s = htmlTag.ReplaceAllString(s, " ")
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
