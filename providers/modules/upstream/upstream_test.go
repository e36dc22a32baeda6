package upstream_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

var now = time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"   ", 0, false},
		{"45", 45 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"0", 0, true},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999999", 0, false}, // beyond int64
		{"9300000000", 0, false},           // fits int64, overflows a Duration
		{"86400", 24 * time.Hour, true},
		{now.Add(2 * time.Minute).Format(http.TimeFormat), 2 * time.Minute, true},
		{"Tue, 04 Mar 2025 12:00:30 GMT", 30 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"Tuesday, 04-Mar-25 12:01:00 GMT", time.Minute, true}, // RFC 850, still allowed
	}
	for _, tt := range tests {
		got, ok := upstream.RetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestDelay covers what a client is told to wait in an error's RetryAfter.
func TestDelay(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		now    time.Time
		want   time.Duration
	}{
		{"no header", nil, now, 0},
		{"blank", []string{""}, now, 0},
		{"seconds", []string{"45"}, now, 45 * time.Second},
		{"seconds with spaces", []string{" 7 "}, now, 7 * time.Second},
		{"zero", []string{"0"}, now, 0},
		{"negative", []string{"-5"}, now, 0},
		{"garbage", []string{"soon"}, now, 0},
		{"overflow", []string{"9300000000"}, now, 0},
		{"date ahead", []string{now.Add(2 * time.Minute).Format(http.TimeFormat)}, now, 2 * time.Minute},
		{"date in the past", []string{now.Add(-time.Minute).Format(http.TimeFormat)}, now, 0},
		{"date rounded to whole seconds", []string{now.Add(90 * time.Second).Format(http.TimeFormat)},
			now.Add(300 * time.Millisecond), 90 * time.Second},
		{"date less than half a second ahead", []string{now.Format(http.TimeFormat)},
			now.Add(-400 * time.Millisecond), 0},
		{"first of several headers", []string{"12", "99"}, now, 12 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.header {
				h.Add("Retry-After", v)
			}
			if got := upstream.Delay(h, tt.now); got != tt.want {
				t.Errorf("Delay(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("x", 250)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"short", `{"error":"nope"}`, `{"error":"nope"}`},
		{"white space collapsed", "<html>\n  <body>\tdown  </body>\n</html>\n", "<html> <body> down </body> </html>"},
		{"exactly the limit", long[:200], long[:200]},
		{"cut after 200 bytes", long, long[:200] + "..."},
		{"cut before collapsing", strings.Repeat(" ", 199) + "ab", "a..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upstream.Snippet([]byte(tt.in)); got != tt.want {
				t.Errorf("Snippet(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// timeoutError is a transport error that says it timed out, as a dial or
// TLS handshake timeout does.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

var _ net.Error = timeoutError{}

// dialError is the error net/http's transport returns when the dial fails
// with errno.
func dialError(errno syscall.Errno) error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: errno}}
}

// breakerOpen is an error a decorator in the client has already
// classified.
var breakerOpen = &providers.Error{Kind: providers.KindUnavailable, Code: "upstream_unavailable",
	Message: "breaker open", RetryAfter: time.Minute, Err: errors.New("open")}

func TestTransportError(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), now)
	defer cancel2()
	refused := &url.Error{Op: "Get", URL: "http://up/x", Err: dialError(syscall.ECONNREFUSED)}
	inURL := func(err error) error { return &url.Error{Op: "Get", URL: "https://up/x", Err: err} }

	tests := []struct {
		name    string
		ctx     context.Context
		err     error
		kind    providers.Kind
		code    string
		message string
		cause   error // want errors.Is(got, cause) when set
	}{
		{"caller canceled, whatever the transport says", canceled, refused,
			providers.KindCanceled, "canceled", "the request was canceled", context.Canceled},
		{"caller's deadline passed", expired, refused,
			providers.KindTimeout, "upstream_timeout", "an upstream service did not answer in time", context.DeadlineExceeded},
		{"deadline of a decorator's context", context.Background(),
			&url.Error{Op: "Get", URL: "http://up/x", Err: context.DeadlineExceeded},
			providers.KindTimeout, "upstream_timeout", "an upstream service did not answer in time", context.DeadlineExceeded},
		{"canceled inside the transport", context.Background(), fmt.Errorf("read body: %w", context.Canceled),
			providers.KindCanceled, "canceled", "the request was canceled", context.Canceled},
		{"client timeout", context.Background(), &url.Error{Op: "Get", URL: "http://up/x", Err: timeoutError{}},
			providers.KindTimeout, "upstream_timeout", "the test upstream did not answer in time", timeoutError{}},
		{"connection refused", context.Background(), refused,
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", syscall.ECONNREFUSED},
		{"no route to the host", context.Background(), inURL(dialError(syscall.EHOSTUNREACH)),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", syscall.EHOSTUNREACH},
		{"the name does not resolve", context.Background(),
			inURL(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "up", IsNotFound: true}}),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", nil},
		{"the dialer's own timeout", context.Background(), inURL(&net.OpError{Op: "dial", Net: "tcp", Err: timeoutError{}}),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", timeoutError{}},
		{"a proxy that cannot be reached", context.Background(), inURL(&net.OpError{Op: "proxyconnect", Net: "tcp", Err: syscall.ECONNREFUSED}),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", syscall.ECONNREFUSED},
		{"a certificate of an unknown authority", context.Background(),
			inURL(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", nil},
		{"an expired certificate", context.Background(),
			inURL(x509.CertificateInvalidError{Reason: x509.Expired}),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", nil},
		{"a server that does not speak TLS", context.Background(),
			inURL(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", nil},
		{"a TLS alert", context.Background(), inURL(tls.AlertError(40)),
			providers.KindUnreachable, "upstream_unreachable", "the test upstream could not be reached", nil},
		{"connection reset while the answer arrived", context.Background(),
			inURL(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}),
			providers.KindUpstream, "upstream_error", "the test upstream broke off its answer", syscall.ECONNRESET},
		{"connection closed before an answer", context.Background(), inURL(io.EOF),
			providers.KindUpstream, "upstream_error", "the test upstream broke off its answer", io.EOF},
		{"reading the body failed", context.Background(), errors.New("unexpected EOF"),
			providers.KindUpstream, "upstream_error", "the test upstream broke off its answer", nil},
		{"a decorator's own error keeps its meaning", context.Background(),
			&url.Error{Op: "Get", URL: "http://up/x", Err: breakerOpen},
			providers.KindUnavailable, "upstream_unavailable", "breaker open", breakerOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := upstream.TransportError(tt.ctx, tt.err, "the test upstream")
			if e == nil {
				t.Fatal("TransportError returned nil")
			}
			if e.Kind != tt.kind || e.Code != tt.code || e.Message != tt.message {
				t.Errorf("got %v %q %q, want %v %q %q", e.Kind, e.Code, e.Message, tt.kind, tt.code, tt.message)
			}
			if tt.cause != nil && !errors.Is(e, tt.cause) {
				t.Errorf("error %v lost its cause %v", e, tt.cause)
			}
			if e.Err == nil {
				t.Errorf("error %#v has no cause for the logs", e)
			}
		})
	}
}

func TestStatusError(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter string
		body       string
		code       string
		message    string
		wait       time.Duration
		cause      string
	}{
		{"429 with seconds", 429, "30", "Too Many Requests",
			"upstream_rate_limited", "the test upstream is limiting the request rate", 30 * time.Second,
			"HTTP 429: Too Many Requests"},
		{"429 without Retry-After", 429, "", "", "upstream_rate_limited",
			"the test upstream is limiting the request rate", 0, "HTTP 429: "},
		{"500 with seconds", 500, "120", "Internal Server Error", "upstream_error",
			"the test upstream answered with HTTP 500", 2 * time.Minute, "HTTP 500: Internal Server Error"},
		{"503 with a date", 503, now.Add(90 * time.Second).Format(http.TimeFormat), "<html>\n<h1>Down</h1>\n</html>",
			"upstream_error", "the test upstream answered with HTTP 503", 90 * time.Second,
			"HTTP 503: <html> <h1>Down</h1> </html>"},
		{"502 with garbage Retry-After", 502, "later", "Bad Gateway", "upstream_error",
			"the test upstream answered with HTTP 502", 0, "HTTP 502: Bad Gateway"},
		{"400 ignores Retry-After", 400, "30", `{"errors":["bad"]}`, "upstream_error",
			"the test upstream answered with HTTP 400", 0, `HTTP 400: {"errors":["bad"]}`},
		{"404 is an upstream error here", 404, "", "Not Found", "upstream_error",
			"the test upstream answered with HTTP 404", 0, "HTTP 404: Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			e := upstream.StatusError(tt.status, h, []byte(tt.body), "the test upstream", now)
			if e.Kind != providers.KindUpstream || e.Code != tt.code || e.Message != tt.message || e.RetryAfter != tt.wait {
				t.Errorf("got %v %q %q retry %v, want KindUpstream %q %q retry %v",
					e.Kind, e.Code, e.Message, e.RetryAfter, tt.code, tt.message, tt.wait)
			}
			if e.Err == nil || e.Err.Error() != tt.cause {
				t.Errorf("cause %v, want %q", e.Err, tt.cause)
			}
			if !providers.IsFailure(e) {
				t.Error("an upstream error does not count against the upstream's health")
			}
		})
	}
}

// failingBody is a response body that breaks after its first bytes, as a
// connection reset mid-answer does.
type failingBody struct{ sent bool }

func (b *failingBody) Read(p []byte) (int, error) {
	if b.sent {
		return 0, errors.New("connection reset by peer")
	}
	b.sent = true
	return copy(p, "[1,2,"), nil
}

func (b *failingBody) Close() error { return nil }

func TestDo(t *testing.T) {
	const target = "http://up.example/q"
	tests := []struct {
		name      string
		responder httpmock.Responder
		limit     int64
		status    int    // of the answer, when no error is wanted
		body      string // of the answer, when no error is wanted
		kind      providers.Kind
		code      string
		message   string
	}{
		{name: "200 read in full", responder: httpmock.NewStringResponder(200, `{"ok":true}`),
			limit: 100, status: 200, body: `{"ok":true}`},
		{name: "error statuses are answers too", responder: httpmock.NewStringResponder(503, "down"),
			limit: 100, status: 503, body: "down"},
		{name: "body of exactly the limit", responder: httpmock.NewStringResponder(200, "12345"),
			limit: 5, status: 200, body: "12345"},
		{name: "body over the limit", responder: httpmock.NewStringResponder(200, "123456"), limit: 5,
			kind: providers.KindUpstream, code: "upstream_error", message: "the test upstream sent an unexpectedly large answer"},
		{name: "no connection", responder: httpmock.NewErrorResponder(dialError(syscall.ECONNREFUSED)), limit: 100,
			kind: providers.KindUnreachable, code: "upstream_unreachable", message: "the test upstream could not be reached"},
		{name: "body breaks off", limit: 100,
			responder: func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: &failingBody{}}, nil
			},
			kind: providers.KindUpstream, code: "upstream_error", message: "the test upstream broke off its answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt := httpmock.NewMockTransport()
			mt.RegisterResponder(http.MethodGet, target, tt.responder)
			req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, target, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := upstream.Do(&http.Client{Transport: mt}, req, tt.limit, "the test upstream")
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("%d upstream calls, want 1", n)
			}
			if tt.code == "" {
				if err != nil || a.Status != tt.status || string(a.Body) != tt.body {
					t.Fatalf("got %+v, %v; want HTTP %d %q", a, err, tt.status, tt.body)
				}
				return
			}
			if a != nil {
				t.Errorf("got an answer %+v alongside the error", a)
			}
			e := providers.As(err)
			if e.Kind != tt.kind || e.Code != tt.code || e.Message != tt.message || e.Err == nil {
				t.Errorf("got %v, want %v %q %q with a cause", err, tt.kind, tt.code, tt.message)
			}
			if tooLarge := errors.Is(err, upstream.ErrTooLarge); tooLarge != (tt.name == "body over the limit") {
				t.Errorf("errors.Is(%v, ErrTooLarge) = %v", err, tooLarge)
			}
		})
	}
}

func TestDoWhenTheCallerGoesAway(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "http://up.example/slow",
		httpmock.NewStringResponder(200, "late").Delay(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://up.example/slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = upstream.Do(&http.Client{Transport: mt}, req, 100, "the test upstream")
	if providers.KindOf(err) != providers.KindTimeout || providers.CodeOf(err) != "upstream_timeout" {
		t.Errorf("err = %v, want KindTimeout upstream_timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Do returned after %v; it should give up at the deadline", d)
	}
}

var _ io.ReadCloser = (*failingBody)(nil)

func TestLooseNumber(t *testing.T) {
	cases := []struct {
		in    string
		strip string
		f     float64
		set   bool
		err   bool
	}{
		{`null`, "", 0, false, false},
		{`""`, "", 0, false, false},
		{`"  "`, "", 0, false, false},
		{`758`, "", 758, true, false},
		{`"758.0"`, "", 758, true, false},
		{`"$1,250.5"`, "$,", 1250.5, true, false},
		{`"$1,250.5"`, "", 0, false, true},
		{`"high"`, "", 0, false, true},
		{`true`, "", 0, false, true},
		{`"unterminated`, "", 0, false, true},
	}
	for _, c := range cases {
		f, set, err := upstream.LooseNumber([]byte(c.in), c.strip)
		if f != c.f || set != c.set || (err != nil) != c.err {
			t.Errorf("LooseNumber(%s, %q) = %v, %v, %v; want %v, %v, err %v", c.in, c.strip, f, set, err, c.f, c.set, c.err)
		}
	}
}
