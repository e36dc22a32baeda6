package upstream

import (
	"net/http"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// Endpoint is what a module calling one HTTP upstream keeps of its
// Settings: the base URL to append paths to, the client to send with, the
// clock to read Retry-After dates with. Building a module has already
// defaulted and checked all three (see providers.Settings), so a module
// that embeds Endpoint is a providers.Provisioner without writing a
// Provision of its own, and none repeats that work. The zero value is not
// usable; Provision sets it, once, and it is read-only and safe for
// concurrent use after.
type Endpoint struct {
	base   string // without trailing slash
	client *http.Client
	now    func() time.Time
}

// Provision keeps the base URL, client and clock of s. It never fails.
func (e *Endpoint) Provision(s providers.Settings) error {
	e.base, e.client, e.now = s.BaseURL, s.Client, s.Now
	return nil
}

// Base returns the base URL without trailing slash: the module's default
// unless config.yaml names another.
func (e *Endpoint) Base() string { return e.base }

// HTTP returns the client to send requests with; the decorators (retries,
// rate limits) live in it.
func (e *Endpoint) HTTP() *http.Client { return e.client }

// Now returns the current time by the module's clock.
func (e *Endpoint) Now() time.Time { return e.now() }
