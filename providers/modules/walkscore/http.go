package walkscore

import (
	"context"
	"net/http"
	"net/url"

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
		return nil, providers.Wrap(upstream.Redact(err), providers.KindInternal, providers.CodeInternalError, "could not build the Walk Score request")
	}
	req.Header.Set("Accept", "application/json")
	a, err := upstream.Do(c.HTTP(), req, maxBody, service)
	if err != nil {
		return nil, err // its URL is redacted; WalkScore scrubs the key and the address from the rest
	}
	return &answer{status: a.Status, header: a.Header, body: a.Body}, nil
}

// snippet is upstream.Snippet under the name the decoders of this package
// use for the causes they report.
func snippet(body []byte) string { return upstream.Snippet(body) }
