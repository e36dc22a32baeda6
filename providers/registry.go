package providers

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// Role is the job a module does for propertyd; config.yaml picks one module
// by name for each role.
type Role string

// The roles a module can fill.
const (
	RoleGeocoder        Role = "geocoder"
	RoleReverseGeocoder Role = "reverse_geocoder"
	RoleFlood           Role = "flood"
	RoleDemographics    Role = "demographics"
	RoleAmenities       Role = "amenities"
	RoleWalkScore       Role = "walkscore"
	RoleHousing         Role = "housing"
	RoleFairMarketRent  Role = "fair_market_rent"
)

// Module describes one provider module: its unique name, the roles it can
// fill, the base URL of the real upstream, and how to make a new value of
// it. The value New returns implements the interface of each role in
// Roles once it is built (see Build).
//
// Modules are built as Caddy builds its own: New returns a pointer to the
// module's struct with the defaults of its options set, each stated there
// once; the options of config.yaml are decoded strictly into its option
// fields (exported fields with a yaml tag); then, when the value
// implements them, Provisioner, Validator, and at the end io.Closer.
type Module struct {
	Name           string
	Roles          []Role
	DefaultBaseURL string
	New            func() any
	// Courtesy is what the upstream's maintainers ask of its clients; the
	// zero value asks nothing.
	Courtesy Courtesy
}

// Courtesy is what an upstream's maintainers ask of every client, which
// the instances of a fleet honour as one client: the role's outbound
// limits apply it (cmd/propertyd), shared through the fleet's Redis when
// there is one.
type Courtesy struct {
	// Concurrency is the most calls in flight at once they allow: the
	// role's rate_limit.concurrency when config.yaml gives none (0: none
	// asked).
	Concurrency int
	// QuietAfterRateLimit is how long no call may go to the upstream,
	// from any instance, after it answered rate limited (HTTP 429, or any
	// answer the module returns as upstream_rate_limited), or longer when
	// its Retry-After says so (0: retry as any upstream).
	QuietAfterRateLimit time.Duration
}

// Registry maps module names to modules. The zero value is empty and ready
// to use; it is safe for concurrent use. Tests build their own registries;
// modules register in the package-level Default one.
type Registry struct {
	mu   sync.RWMutex
	mods map[string]Module
}

// Default is the registry modules add themselves to in init.
var Default = &Registry{}

// Register adds m to the Default registry. It panics when the name is empty
// or already taken, like database/sql.Register: both are programming errors.
func Register(m Module) { Default.Register(m) }

// Register adds m to r; see the package-level Register.
func (r *Registry) Register(m Module) {
	if m.Name == "" || m.New == nil {
		panic("providers: Register with an empty name or nil constructor")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mods == nil {
		r.mods = map[string]Module{}
	}
	if _, dup := r.mods[m.Name]; dup {
		panic("providers: Register called twice for module " + m.Name)
	}
	r.mods[m.Name] = m
}

// Lookup returns the module registered under name.
func (r *Registry) Lookup(name string) (Module, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.mods[name]
	return m, ok
}

// Names returns the registered module names that can fill role, sorted;
// all names when role is empty.
func (r *Registry) Names(role Role) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for name, m := range r.mods {
		if role == "" || m.can(role) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (m Module) can(role Role) bool {
	for _, r := range m.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// Build builds the module registered under name for role from s (see the
// package-level Build for the steps). Unknown names and modules that
// cannot fill the role fail with a message listing the modules that can;
// a module that fails to build is closed and its error names it. The
// caller closes the module it got when it is an io.Closer.
func (r *Registry) Build(role Role, name string, s Settings) (any, error) {
	m, ok := r.Lookup(name)
	if !ok || !m.can(role) {
		return nil, fmt.Errorf("unknown %s module %q (known: %v)", role, name, r.Names(role))
	}
	v, err := m.build(s)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", name, err)
	}
	return v, nil
}
