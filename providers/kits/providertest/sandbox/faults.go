package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Faults are the knobs of one upstream: how slow it is and how it fails.
// The zero value is a healthy upstream that answers at once.
//
// Every call first waits Latency plus a uniformly drawn part of Jitter.
// Then it fails with probability ErrorRate, in the first of these ways that
// is set: Hang (no answer until the client gives up or the server closes),
// Malformed (the real answer with its body cut in half: truncated JSON for
// the JSON upstreams), ArcGISError (fema only: HTTP 200 with ArcGIS's
// {"error":{"code":400,...}} envelope), else HTTP Status (503 when 0) with
// a Retry-After header when RetryAfter is set. When Hang, Malformed or
// ArcGISError is set and ErrorRate is 0, every call fails that way.
type Faults struct {
	Latency     time.Duration
	Jitter      time.Duration
	ErrorRate   float64
	Status      int
	RetryAfter  string
	Hang        bool
	Malformed   bool
	ArcGISError bool
}

// failureRate is the probability that a call fails.
func (f Faults) failureRate() float64 {
	if f.ErrorRate == 0 && (f.Hang || f.Malformed || f.ArcGISError) {
		return 1
	}
	return f.ErrorRate
}

// failStatus is the HTTP status of an injected failure.
func (f Faults) failStatus() int {
	if f.Status == 0 {
		return http.StatusServiceUnavailable
	}
	return f.Status
}

// CheckFaults reports whether f can be set on upstream (an upstream name
// or "*" for all): an unknown upstream, a negative duration, an error rate
// outside 0..1, a status outside 400..599, a Retry-After that is neither
// seconds nor an HTTP date, or ArcGISError on another upstream than fema
// are errors.
func CheckFaults(upstream string, f Faults) error {
	if upstream != All && !isUpstream(upstream) {
		return fmt.Errorf("unknown upstream %q (known: %s, or %q for all)", upstream, strings.Join(Upstreams(), ", "), All)
	}
	if f.Latency < 0 || f.Jitter < 0 {
		return fmt.Errorf("latency and jitter must not be negative")
	}
	if math.IsNaN(f.ErrorRate) || f.ErrorRate < 0 || f.ErrorRate > 1 {
		return fmt.Errorf("error_rate %v is not between 0 and 1", f.ErrorRate)
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		return fmt.Errorf("status %d is not an HTTP error status (400-599)", f.Status)
	}
	if ra := strings.TrimSpace(f.RetryAfter); ra != "" {
		if n, err := strconv.Atoi(ra); err != nil || n < 0 {
			if _, err := http.ParseTime(ra); err != nil {
				return fmt.Errorf("retry_after %q is neither whole seconds nor an HTTP date", f.RetryAfter)
			}
		}
	}
	if f.ArcGISError && upstream != UpstreamFEMA && upstream != All {
		return fmt.Errorf("arcgis_error applies to the fema upstream only, not %q", upstream)
	}
	return nil
}

// faultsJSON is the wire form of Faults in the control endpoint.
type faultsJSON struct {
	Upstream    string  `json:"upstream,omitempty"`
	Latency     string  `json:"latency"`
	Jitter      string  `json:"jitter"`
	ErrorRate   float64 `json:"error_rate"`
	Status      int     `json:"status"`
	RetryAfter  string  `json:"retry_after"`
	Hang        bool    `json:"hang"`
	Malformed   bool    `json:"malformed"`
	ArcGISError bool    `json:"arcgis_error"`
}

func (f Faults) toJSON() faultsJSON {
	return faultsJSON{
		Latency: f.Latency.String(), Jitter: f.Jitter.String(), ErrorRate: f.ErrorRate,
		Status: f.Status, RetryAfter: f.RetryAfter, Hang: f.Hang, Malformed: f.Malformed, ArcGISError: f.ArcGISError,
	}
}

// decodeFaultsRequest reads the body of POST /_sandbox/faults strictly.
func decodeFaultsRequest(body []byte) (string, Faults, error) {
	var w faultsJSON
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return "", Faults{}, fmt.Errorf("invalid JSON body: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF { // dec.More misses a stray } or ]
		return "", Faults{}, fmt.Errorf("invalid JSON body: data after the object")
	}
	if w.Upstream == "" {
		return "", Faults{}, fmt.Errorf("upstream is required (one of %s, or %q for all)", strings.Join(Upstreams(), ", "), All)
	}
	f := Faults{ErrorRate: w.ErrorRate, Status: w.Status, RetryAfter: strings.TrimSpace(w.RetryAfter),
		Hang: w.Hang, Malformed: w.Malformed, ArcGISError: w.ArcGISError}
	var err error
	if f.Latency, err = parseDuration(w.Latency); err != nil {
		return "", Faults{}, fmt.Errorf("latency: %v", err)
	}
	if f.Jitter, err = parseDuration(w.Jitter); err != nil {
		return "", Faults{}, fmt.Errorf("jitter: %v", err)
	}
	if err := CheckFaults(w.Upstream, f); err != nil {
		return "", Faults{}, err
	}
	return w.Upstream, f, nil
}

// parseDuration reads a knob duration such as "100ms"; empty is zero.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 100ms", s)
	}
	return d, nil
}

// String lists the knobs that are set, e.g. "latency=100ms error_rate=0.3
// status=503", or "healthy", for logs and banners.
func (f Faults) String() string {
	var parts []string
	add := func(cond bool, s string) {
		if cond {
			parts = append(parts, s)
		}
	}
	add(f.Latency != 0, "latency="+f.Latency.String())
	add(f.Jitter != 0, "jitter="+f.Jitter.String())
	add(f.ErrorRate != 0, "error_rate="+strconv.FormatFloat(f.ErrorRate, 'g', -1, 64))
	add(f.Status != 0, "status="+strconv.Itoa(f.Status))
	add(f.RetryAfter != "", "retry_after="+f.RetryAfter)
	add(f.Hang, "hang")
	add(f.Malformed, "malformed")
	add(f.ArcGISError, "arcgis_error")
	if len(parts) == 0 {
		return "healthy"
	}
	return strings.Join(parts, " ")
}
