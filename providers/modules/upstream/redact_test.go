package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://geocoding.geo.census.gov/geocoder/locations/address?street=1600+Pennsylvania+Ave+NW&zip=20500&benchmark=4",
			"https://geocoding.geo.census.gov/geocoder/locations/address?<redacted>"},
		{"http://127.0.0.1:8080/fema/28/query?geometry=-77.0365%2C38.8977#frag", "http://127.0.0.1:8080/fema/28/query?<redacted>"},
		{"https://user:secret@api.example/score?address=x&wsapikey=k", "https://api.example/score?<redacted>"},
		{"https://overpass.example/api/interpreter", "https://overpass.example/api/interpreter"},
		{"https://up.example/x?", "https://up.example/x?<redacted>"},
		{"https://up.example/x#street=1600", "https://up.example/x"},
		{"http://[::1:bad/?street=1600", "<redacted URL>"},
	}
	for _, tt := range tests {
		if got := upstream.RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The street of the requests below: an error that shows it in any form
// leaks the address into the logs.
const street = "4217 Quillfeather Lane"

// transportFailure sends GET u (with the street and a key in its query)
// through client and returns what Do makes of the failure.
func transportFailure(t *testing.T, client *http.Client, u string) *providers.Error {
	t.Helper()
	q := url.Values{"street": {street}, "zip": {"78701"}, "key": {"s3cr3t-key"}}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u+"/geocoder/address?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := upstream.Do(client, req, 1<<10, "the test upstream")
	if err == nil {
		t.Fatalf("got an answer %+v, want a transport failure", a)
	}
	e := providers.As(err)
	for _, leak := range []string{street, url.QueryEscape(street), url.PathEscape(street), "Quillfeather", "78701", "s3cr3t-key"} {
		if strings.Contains(e.Error(), leak) || strings.Contains(e.Message, leak) {
			t.Errorf("error %q shows %q of the request's query", e, leak)
		}
	}
	if !strings.Contains(e.Error(), "/geocoder/address?<redacted>") {
		t.Errorf("error %q does not name the endpoint that failed", e)
	}
	return e
}

// TestTransportErrorHidesTheRequest: real transport failures (a refused
// connection, a certificate no one vouches for) are upstream_unreachable,
// failures once connected (a connection closed unanswered, a redirect loop)
// upstream_error; all keep their cause for errors.Is, and their text names
// the endpoint but nothing of the query string.
func TestTransportErrorHidesTheRequest(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		e := transportFailure(t, &http.Client{}, "http://"+addr)
		if e.Kind != providers.KindUnreachable || e.Code != providers.CodeUpstreamUnreachable {
			t.Errorf("got %v %s, want upstream_unreachable", e.Kind, e.Code)
		}
		if !errors.Is(e, syscall.ECONNREFUSED) {
			t.Errorf("error %q lost its cause", e)
		}
	})
	t.Run("unknown certificate authority", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(http.NotFoundHandler())
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
		srv.StartTLS()
		defer srv.Close()
		e := transportFailure(t, &http.Client{}, srv.URL)
		if e.Code != providers.CodeUpstreamUnreachable {
			t.Errorf("got %s (%v), want upstream_unreachable", e.Code, e)
		}
	})
	t.Run("connection closed without an answer", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}))
		defer srv.Close()
		e := transportFailure(t, &http.Client{}, srv.URL)
		if e.Kind != providers.KindUpstream || e.Code != providers.CodeUpstreamError {
			t.Errorf("got %v %s (%v), want upstream_error: the upstream was reached", e.Kind, e.Code, e)
		}
	})
	t.Run("too many redirects", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
		}))
		defer srv.Close()
		e := transportFailure(t, &http.Client{}, srv.URL)
		if e.Code != providers.CodeUpstreamError {
			t.Errorf("got %s (%v), want upstream_error", e.Code, e)
		}
	})
}

// ExampleRedactURL shows what an error about a census geocoder request
// keeps of its URL.
func ExampleRedactURL() {
	fmt.Println(upstream.RedactURL("https://geocoding.geo.census.gov/geocoder/locations/address?street=1600+Pennsylvania+Ave+NW&zip=20500"))
	// Output: https://geocoding.geo.census.gov/geocoder/locations/address?<redacted>
}
