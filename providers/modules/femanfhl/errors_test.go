package femanfhl_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/femanfhl"
)

// TestFloodArcGISErrorsInHTTP200 covers the service's way of failing: HTTP
// 200 with {"error":{...}}. Whichever layer fails, the call fails, and the
// cause keeps the ArcGIS code and message for the logs.
func TestFloodArcGISErrorsInHTTP200(t *testing.T) {
	tests := []struct {
		file        string
		layer       int
		wantCode    int
		wantMessage string
	}{
		{"error_failed_query.json", 28, 400, "Failed to execute query."},
		{"error_failed_query.json", 3, 400, "Failed to execute query."},
		{"error_invalid_url.json", 28, 400, "Invalid URL"},
		{"error_extension_not_found.json", 3, 500, "Server object extension 'featureserver' not found."},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			zones, panels := "zones_ae_floodway_harris_tx.json", "panels_harris_tx.json"
			if tt.layer == 28 {
				zones = tt.file
			} else {
				panels = tt.file
			}
			mt := serveFiles(t, zones, panels)
			f, err := newClient(t, mt, nil).Flood(context.Background(), houston)
			if f != nil {
				t.Errorf("got a flood section %s alongside the error", asJSON(t, f))
			}
			e := wantError(t, err, providers.KindUpstream, "upstream_error")
			var ae *femanfhl.ArcGISError
			if !errors.As(e, &ae) {
				t.Fatalf("cause %v is not an *ArcGISError", e.Err)
			}
			if ae.Code != tt.wantCode || ae.Message != tt.wantMessage {
				t.Errorf("ArcGIS error %d %q, want %d %q", ae.Code, ae.Message, tt.wantCode, tt.wantMessage)
			}
			if e.RetryAfter != 0 {
				t.Errorf("RetryAfter %v for an error body, want 0", e.RetryAfter)
			}
		})
	}
}

func TestFloodHTTPErrors(t *testing.T) {
	now := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	tests := []struct {
		name      string
		layer     int
		failure   providertest.FEMAFailure
		kind      providers.Kind
		code      string
		retryWait time.Duration
	}{
		{"500 with Retry-After seconds", 28,
			providertest.FEMAFailure{Status: 500, RetryAfter: "120"},
			providers.KindUpstream, "upstream_error", 120 * time.Second},
		{"503 with Retry-After date", 3,
			providertest.FEMAFailure{Status: 503, RetryAfter: now.Add(90 * time.Second).Format(http.TimeFormat)},
			providers.KindUpstream, "upstream_error", 90 * time.Second},
		{"502 without Retry-After", 28,
			providertest.FEMAFailure{Status: 502},
			providers.KindUpstream, "upstream_error", 0},
		{"500 with garbage Retry-After", 28,
			providertest.FEMAFailure{Status: 500, RetryAfter: "soon"},
			providers.KindUpstream, "upstream_error", 0},
		{"429 rate limited", 3,
			providertest.FEMAFailure{Status: 429, RetryAfter: "30"},
			providers.KindUpstream, "upstream_rate_limited", 30 * time.Second},
		{"404: wrong base URL or layer", 28,
			providertest.FEMAFailure{Status: 404},
			providers.KindUnavailable, "upstream_misconfigured", 0},
		{"invalid JSON", 28,
			providertest.FEMAFailure{Body: string(testdata(t, "invalid_truncated.json"))},
			providers.KindUpstream, "upstream_error", 0},
		{"an HTML page with HTTP 200", 3,
			providertest.FEMAFailure{Body: "<html><body><h1>Service Unavailable</h1></body></html>"},
			providers.KindUpstream, "upstream_error", 0},
		{"JSON that is no featureset", 28,
			providertest.FEMAFailure{Body: `{"currentVersion":10.91}`},
			providers.KindUpstream, "upstream_error", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			providertest.RegisterFEMA(mt, testBase, harrisFloodway)
			providertest.RegisterFEMAFailure(mt, testBase, tt.layer, tt.failure)
			c, err := femanfhl.New(providers.Settings{
				BaseURL: testBase, Client: &http.Client{Transport: mt},
				Now: func() time.Time { return now },
			})
			if err != nil {
				t.Fatal(err)
			}
			f, err := c.Flood(context.Background(), houston)
			if f != nil {
				t.Errorf("got a flood section %s alongside the error", asJSON(t, f))
			}
			e := wantError(t, err, tt.kind, tt.code)
			if e.RetryAfter != tt.retryWait {
				t.Errorf("RetryAfter %v, want %v", e.RetryAfter, tt.retryWait)
			}
			if e.Message == "" || e.Err == nil {
				t.Errorf("error %#v lacks a message for clients or a cause for logs", e)
			}
		})
	}
}

func TestFloodInvalidJSONKeepsDecodeCause(t *testing.T) {
	mt := serveFiles(t, "invalid_truncated.json", "panels_empty.json")
	_, err := newClient(t, mt, nil).Flood(context.Background(), houston)
	wantError(t, err, providers.KindUpstream, "upstream_error")
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("cause of %v is not the JSON syntax error", err)
	}
}

func TestFloodTimeout(t *testing.T) {
	t.Run("context deadline", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterFEMA(mt, testBase, harrisFloodway)
		providertest.RegisterFEMAFailure(mt, testBase, 28, providertest.FEMAFailure{
			Delay: time.Minute, Body: string(testdata(t, "zones_ae_floodway_harris_tx.json")),
		})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := newClient(t, mt, nil).Flood(ctx, houston)
		wantError(t, err, providers.KindTimeout, "upstream_timeout")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Flood returned after %v; it should give up at the deadline", d)
		}
	})
	t.Run("http.Client timeout", func(t *testing.T) {
		mt := httpmock.NewMockTransport()
		providertest.RegisterFEMA(mt, testBase, harrisFloodway)
		providertest.RegisterFEMAFailure(mt, testBase, 3, providertest.FEMAFailure{
			Delay: time.Minute, Body: string(testdata(t, "panels_harris_tx.json")),
		})
		c, err := femanfhl.New(providers.Settings{
			BaseURL: testBase, Client: &http.Client{Transport: mt, Timeout: 50 * time.Millisecond},
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Flood(context.Background(), houston)
		wantError(t, err, providers.KindTimeout, "upstream_timeout")
	})
}

func TestFloodCanceled(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, testBase, harrisFloodway)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newClient(t, mt, nil).Flood(ctx, houston)
	e := wantError(t, err, providers.KindCanceled, "canceled")
	if providers.IsFailure(e) {
		t.Error("a caller going away counts against the upstream's health")
	}
}

// TestFloodOneLayerFailingFailsTheCall guards against caching a zone without
// its panel as if the map had none.
func TestFloodOneLayerFailingFailsTheCall(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, testBase, harrisFloodway)
	providertest.RegisterFEMAFailure(mt, testBase, 3, providertest.FEMAFailure{Status: 500})
	f, err := newClient(t, mt, nil).Flood(context.Background(), houston)
	if err == nil {
		t.Fatalf("panels layer failed but Flood answered %s", asJSON(t, f))
	}
	wantError(t, err, providers.KindUpstream, "upstream_error")
}

// TestFloodAnswerTooLargeIsAnUpstreamError: no point query answer comes
// near 4 MB, so a longer one is an upstream error, not read to its end nor
// decoded.
func TestFloodAnswerTooLargeIsAnUpstreamError(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, testBase, harrisFloodway)
	huge := `{"features":[` + strings.Repeat(`{"attributes":{"FLD_ZONE":"X"}},`, 150_000) + `{}]}`
	providertest.RegisterFEMAFailure(mt, testBase, 28, providertest.FEMAFailure{Body: huge})
	_, err := newClient(t, mt, nil).Flood(context.Background(), houston)
	e := wantError(t, err, providers.KindUpstream, "upstream_error")
	var syn *json.SyntaxError
	if errors.As(err, &syn) || strings.Contains(e.Message, "unreadable") {
		t.Errorf("error %v: the oversized answer was decoded", err)
	}
}

// TestFloodTransportFailureIsUnreachable: a service that cannot be reached
// is upstream_unreachable saying so, for the breaker to count, and its
// error does not show the point asked about.
func TestFloodTransportFailureIsUnreachable(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterFEMA(mt, testBase, harrisFloodway)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	mt.RegisterResponder(http.MethodGet, layerURL(3), httpmock.NewErrorResponder(refused))
	_, err := newClient(t, mt, nil).Flood(context.Background(), houston)
	e := wantError(t, err, providers.KindUnreachable, "upstream_unreachable")
	if e.Message != "the FEMA flood map service could not be reached" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error %v: want the service named and the cause kept", err)
	}
	if lat := strconv.FormatFloat(houston.Lat, 'f', -1, 64); strings.Contains(err.Error(), lat) {
		t.Errorf("error %v shows the point asked about", err)
	}
	if !providers.IsFailure(err) {
		t.Error("an unreachable service does not count against its health")
	}
}
