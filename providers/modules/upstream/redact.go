package upstream

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
)

// redactedQuery stands in for the query string of a redacted URL.
const redactedQuery = "<redacted>"

// RedactURL returns raw fit for an error or a log line: scheme, host and
// path stay, so a reader still sees which upstream and endpoint failed; a
// query string becomes "?<redacted>", and a fragment and user information
// are dropped. The query is where the modules put what they ask about (the
// census geocoder's street, Walk Score's address and point, FEMA's point)
// and some of them an API key, and the README promises that no address is
// logged. A raw that does not parse as a URL is replaced whole, since
// nothing in it can be told safe.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<redacted URL>"
	}
	query := u.RawQuery != "" || u.ForceQuery
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	s := u.String()
	if query {
		s += "?" + redactedQuery
	}
	return s
}

// Redact rewrites, in place, the URL of every *url.Error in err's tree with
// RedactURL, and returns err. net/http's client wraps each failure in a
// *url.Error it makes for that call, and url.Parse (so
// http.NewRequestWithContext) each parse failure, and both quote the URL,
// query string included, in Error(); nothing else holds that value, so
// rewriting it keeps the cause (errors.Is and errors.As still find what is
// inside) and removes the request from every log line that prints the
// error. TransportError calls it; a module calls it on the error of
// building a request. A nil err is returned as is.
func Redact(err error) error {
	for _, ue := range urlErrors(err) {
		ue.URL = RedactURL(ue.URL)
	}
	return err
}

// urlErrors returns every *url.Error in err's tree, depth first.
func urlErrors(err error) []*url.Error {
	var out []*url.Error
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if ue, ok := err.(*url.Error); ok {
			out = append(out, ue)
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}

// unreachable reports whether err says no connection to the upstream could
// be made, so the request was never sent: its name did not resolve, the
// dial failed (refused, no route, the dialer's own timeout), a proxy could
// not be reached, or the TLS handshake failed (an unknown authority, a
// certificate for another host, an expired one, a server that does not
// speak TLS, an alert).
func unreachable(err error) bool {
	if _, ok := errors.AsType[*net.DNSError](err); ok {
		return true
	}
	if oe, ok := errors.AsType[*net.OpError](err); ok && (oe.Op == "dial" || oe.Op == "proxyconnect") {
		return true
	}
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return true
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return true
	}
	if _, ok := errors.AsType[tls.AlertError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.UnknownAuthorityError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.HostnameError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.CertificateInvalidError](err); ok {
		return true
	}
	return false
}
