package providers

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Settings is what a module is built from: where its upstream is, the HTTP
// client to reach it with (timeouts, retries and rate limits are applied by
// decorators around the module, not by the module), its own options from
// config.yaml, and what it may need of the rest of the service.
//
// A caller leaves empty what it has no opinion on. Building fills the
// common fields once, for every module, before Provision sees them: an
// empty BaseURL becomes the module's DefaultBaseURL (trailing slashes
// trimmed, an absolute http(s) URL checked), a nil Client http.DefaultClient,
// a nil Now time.Now, a nil Logger one that discards; so a module never
// repeats those defaults or checks.
type Settings struct {
	BaseURL string
	Client  *http.Client
	// Options are the module's options as config.yaml writes them, each
	// value as text whether the file quotes it or not. Building decodes
	// them strictly into the module's option fields (see Module.New); the
	// module itself never reads this map.
	Options map[string]string
	// Amenities is the (cached) amenities source, for modules such as
	// osm-walk that derive their answer from amenity data. May be nil.
	Amenities AmenitiesProvider
	// Now returns the current time; modules read it to resolve Retry-After
	// dates, and tests fix it.
	Now func() time.Time
	// Logger receives what a module has to tell an operator outside any
	// one call (a failed discovery of the newest data release). Modules
	// never log addresses or keys.
	Logger *slog.Logger
	// Contact is how the upstream's maintainers can reach the operator
	// (config.yaml's contact: an e-mail address or a URL), which modules
	// whose upstream asks for it put in their User-Agent; "" when none is
	// configured.
	Contact string
}

// Provisioner is implemented by a module that derives state from its
// Settings: it keeps the client, the base URL or the amenities source, and
// turns its decoded options into what its calls use. Provision is called
// once, after the options are decoded and before Validate; it receives
// Settings with the common fields filled (see Settings). It must not call
// an upstream: check-config builds every module without the network.
// Provision may leave things to close (see Build) even when it fails.
type Provisioner interface {
	Provision(Settings) error
}

// Validator is implemented by a module that rejects option values that
// cannot work. Validate is called once, after Provision; it returns a
// KindInvalid error (code invalid_config) naming the option, so a bad
// config.yaml fails start-up and check-config, not every request.
type Validator interface {
	Validate() error
}

// Build makes a module of m from s, in the order Caddy builds its modules:
// a new value from m.New (its defaults set), the options in s decoded
// strictly into its option fields, Provision, Validate. When a step fails
// the value is closed (when it is an io.Closer) and the error returned;
// the caller closes a module it got with Close when it is done.
//
// A module package's own New is Build with its Module, so tests and users
// build it exactly as config.yaml does. T is the type m.New returns; Build
// fails with KindInternal when it is not.
func Build[T any](m Module, s Settings) (T, error) {
	var zero T
	v, err := m.build(s)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		closeModule(v)
		return zero, Errorf(KindInternal, CodeInternalError, "module %s builds a %T, not a %T", m.Name, v, zero)
	}
	return t, nil
}

// build runs the lifecycle of Build and returns the module's value; a nil
// interface, not a typed nil pointer, when it fails, so callers can trust
// a nil check.
func (m Module) build(s Settings) (any, error) {
	s, err := m.settle(s)
	if err != nil {
		return nil, err
	}
	v := m.New()
	if err := decodeOptions(s.Options, v); err != nil {
		return nil, err
	}
	if p, ok := v.(Provisioner); ok {
		if err := p.Provision(s); err != nil {
			return nil, errors.Join(err, closeModule(v))
		}
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return nil, errors.Join(err, closeModule(v))
		}
	}
	return v, nil
}

// closeModule closes v when it is an io.Closer. A failure is reported as
// an internal error: the caller is already failing for another reason, or
// shutting down.
func closeModule(v any) error {
	c, ok := v.(io.Closer)
	if !ok {
		return nil
	}
	if err := c.Close(); err != nil {
		return Wrap(err, KindInternal, CodeInternalError, "closing the module failed")
	}
	return nil
}

// settle fills the common fields of s, in this one place for every module
// (see Settings).
func (m Module) settle(s Settings) (Settings, error) {
	given := s.BaseURL
	if s.BaseURL = strings.TrimRight(strings.TrimSpace(given), "/"); s.BaseURL == "" {
		s.BaseURL = strings.TrimRight(m.DefaultBaseURL, "/")
	}
	if s.BaseURL != "" {
		u, err := url.Parse(s.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, Errorf(KindInvalid, CodeInvalidConfig,
				"base_url %q is not an absolute http(s) base URL", given)
		}
	}
	if s.Client == nil {
		s.Client = http.DefaultClient
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	return s, nil
}
