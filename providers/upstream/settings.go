package upstream

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// BaseURL returns the URL a module appends its paths to: s.BaseURL without
// trailing slashes, or def when that leaves nothing. It fails with
// KindInvalid (invalid_config) naming base_url when the result is not an
// absolute http(s) URL, so a typo in config.yaml fails start-up rather than
// every request.
func BaseURL(s providers.Settings, def string) (string, error) {
	base := strings.TrimRight(s.BaseURL, "/")
	if base == "" {
		base = def
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"base_url %q is not an absolute http(s) base URL", s.BaseURL)
	}
	return base, nil
}

// Client returns the HTTP client of s, http.DefaultClient when it has none:
// the decorators (retries, rate limits) live in the client a module is given.
func Client(s providers.Settings) *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return http.DefaultClient
}

// Clock returns the clock of s, time.Now when it has none; modules read it
// to resolve Retry-After dates, and tests fix it.
func Clock(s providers.Settings) func() time.Time {
	if s.Now != nil {
		return s.Now
	}
	return time.Now
}
