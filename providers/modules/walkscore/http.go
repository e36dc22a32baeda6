package walkscore

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// service names the upstream in the messages clients see.
const service = "Walk Score"

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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base()+"/score?"+q.Encode(), nil)
	if err != nil {
		return nil, providers.Wrap(c.redact(err), providers.KindInternal, providers.CodeInternalError, "could not build the Walk Score request")
	}
	req.Header.Set("Accept", "application/json")
	a, err := upstream.Do(c.HTTP(), req, maxBody, service)
	if err != nil {
		e := providers.As(err)
		e.Err = c.redact(e.Err) // the cause may quote the request URL
		return nil, e
	}
	return &answer{status: a.Status, header: a.Header, body: a.Body}, nil
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
	secrets := []string{c.APIKey}
	if esc := url.QueryEscape(c.APIKey); esc != c.APIKey {
		secrets = append(secrets, esc)
	}
	return &redactedError{err: err, secrets: secrets}
}

// snippet is upstream.Snippet under the name the decoders of this package
// use for the causes they report.
func snippet(body []byte) string { return upstream.Snippet(body) }
