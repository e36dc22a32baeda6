package upstream

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/propertyd/propertyd/providers"
)

// Answer is an upstream's answer, read in full whatever its status: the
// module decides what the status means, since some upstreams report errors
// in the body of an HTTP 200 and others outcomes in the body of any status.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// ErrTooLarge is the cause of the error Do returns for an answer longer than
// its limit (errors.Is finds it), so that a module that reports such an
// answer as it reports any other unreadable one can tell it from a
// transport failure.
var ErrTooLarge = errors.New("answer larger than the limit")

// Do sends req with hc and reads the whole answer. A failure to get one is
// TransportError(req.Context(), err, service); a body longer than limit
// bytes is KindUpstream upstream_error ("<service> sent an unexpectedly
// large answer", cause ErrTooLarge), since no answer of the upstream is that
// large. Do does not retry: the decorators in hc do.
func Do(hc *http.Client, req *http.Request, limit int64, service string) (*Answer, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, TransportError(req.Context(), err, service)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, TransportError(req.Context(), err, service)
	}
	if int64(len(body)) > limit {
		return nil, providers.Wrap(fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit),
			providers.KindUpstream, providers.CodeUpstreamError, service+" sent an unexpectedly large answer")
	}
	return &Answer{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}
