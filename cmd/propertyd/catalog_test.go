package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/service"
)

// everySection includes every section the catalogue offers, for the tests
// that ask for all of them: a section added to the catalogue is asked for
// there too.
var everySection = strings.Join(service.PublicSections(), ",")

// everySectionRole lists the roles of every section, internal ones too.
func everySectionRole() []string {
	var out []string
	for _, e := range service.Catalog {
		if e.Section != "" {
			out = append(out, string(e.Role))
		}
	}
	return out
}

// noiseProvider is the interface of a section propertyd does not have: the
// traffic noise at a point. It stands for the next section anyone adds.
type noiseProvider interface {
	Noise(ctx context.Context, p providers.Point) (*noiseLevel, error)
}

type noiseLevel struct {
	Decibels int    `json:"decibels"`
	Source   string `json:"source"`
}

// fakeNoise is the provider module of the new section.
type fakeNoise struct{ calls atomic.Int32 }

var _ noiseProvider = (*fakeNoise)(nil)

func (f *fakeNoise) Noise(context.Context, providers.Point) (*noiseLevel, error) {
	f.calls.Add(1)
	return &noiseLevel{Decibels: 55, Source: "fake-noise"}, nil
}

// A new section is a catalogue entry and a provider module, nothing else:
// configuration, wiring, include= and its cost, the standalone endpoint,
// caching and meta.sections all follow from the entry. (The OpenAPI
// document must then describe it: gateway/docs fails until it does.)
func TestANewSectionIsACatalogueEntryAndAModule(t *testing.T) {
	// The entry.
	saved := service.Catalog
	t.Cleanup(func() { service.Catalog = saved })
	service.Catalog = append(slices.Clone(saved), service.Entry{
		Role: "noise", Section: "noise", Cost: 1, DefaultTTL: time.Hour,
		Key: func(p *providers.Property, _ service.Options) (string, bool) { return p.Point().Key(), true },
		Bind: service.BindTo(func(m noiseProvider, ctx context.Context, p *providers.Property, _ service.Options) (any, error) {
			return m.Noise(ctx, p.Point())
		}),
	})
	// The module, registered for the role beside the standard ones.
	mod := &fakeNoise{}
	reg := &providers.Registry{}
	for _, name := range providers.Default.Names("") {
		m, _ := providers.Default.Lookup(name)
		reg.Register(m)
	}
	reg.Register(providers.Module{Name: "fake-noise", Roles: []providers.Role{"noise"},
		New: func() any { return mod }})

	// config.yaml names it for its role.
	cfg := testConfig(t, t.TempDir()+"/p.db")
	cfg.Providers["noise"] = &ProviderConfig{Module: "fake-noise"}
	cfg.applyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("a config naming the new role: %v", err)
	}
	if got := cfg.Providers["noise"].TTL.D(); got != time.Hour {
		t.Fatalf("the role's default TTL = %v, want the entry's 1h", got)
	}
	if err := checkModules(cfg, reg); err != nil {
		t.Fatalf("check-config refuses the new module: %v", err)
	}

	m := NewMain(cfg)
	m.Registry, m.HTTPTransport, m.Logger = reg, upstreams(), discardLogger()
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })

	q := url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"}, "include": {"noise,flood"}}
	status, body, hdr := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	if status != 200 {
		t.Fatalf("lookup with include=noise: %d %v", status, body)
	}
	d := body["data"].(map[string]any)
	if n, _ := d["noise"].(map[string]any); n["decibels"] != float64(55) {
		t.Fatalf("data.noise = %v", d["noise"])
	}
	if meta := body["meta"].(map[string]any)["sections"].(map[string]any)["noise"].(map[string]any); meta["status"] != "ok" || meta["source"] != "fake-noise" {
		t.Fatalf("meta.sections.noise = %v", meta)
	}
	if hdr.Get("X-Request-Cost") != "3" {
		t.Fatalf("X-Request-Cost = %s, want 1 + flood + noise = 3", hdr.Get("X-Request-Cost"))
	}
	id := int(d["id"].(float64))
	status, body, _ = getJSON(t, m, fmt.Sprintf("/v1/properties/%d/noise", id))
	if status != 200 || body["data"].(map[string]any)["decibels"] != float64(55) {
		t.Fatalf("the standalone endpoint: %d %v", status, body)
	}
	if mod.calls.Load() != 1 {
		t.Fatalf("the module was asked %d times, want once (then the cache)", mod.calls.Load())
	}
	status, body, _ = getJSON(t, m, "/v1/properties/lookup?street=1+Main+St&state=VA&include=nois")
	if status != 400 || !strings.Contains(fmt.Sprint(body["errors"]), "noise") {
		t.Fatalf("a misspelt include does not list the new section: %d %v", status, body)
	}
}

// batchComment is config.yaml's note on the demo key's burst: the batch
// it lets a key send with every section.
var batchComment = regexp.MustCompile(`burst: (\d+) .*\(a batch of (\d+) with all sections\)`)

// The catalogue is the one list of roles and sections; the places that
// must still name each role by hand (a module's registration, the shipped
// and demo configuration files, the README's lists, the sandbox's upstream
// for a module that calls one) are held to
// it here, so a section added to the catalogue fails with one error per
// place that does not know it yet, naming the place.
func TestEveryListOfRolesFollowsTheCatalogue(t *testing.T) {
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	demo, err := os.ReadFile(filepath.Join("..", "sandbox", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]map[string]any{}
	for name, raw := range map[string][]byte{"config.yaml": shipped, "cmd/sandbox/demo.yaml": demo} {
		var f struct {
			Providers map[string]any `yaml:"providers"`
		}
		if err := yaml.Unmarshal(raw, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files[name] = f.Providers
	}
	urls := sandbox.BaseURLs("http://sandbox.test")
	for _, role := range service.Roles() {
		if len(providers.Default.Names(role)) == 0 {
			t.Errorf("role %s: no module registers for it (a module package imported by providers/modules/all)", role)
		}
		for name, roles := range files {
			if _, ok := roles[string(role)]; !ok {
				t.Errorf("role %s: %s has no providers.%s block", role, name, role)
			}
		}
		for _, name := range providers.Default.Names(role) {
			if m, _ := providers.Default.Lookup(name); m.DefaultBaseURL != "" && urls[string(role)] == "" {
				t.Errorf("role %s: module %s calls an upstream, but the sandbox serves none for the role (sandbox.BaseURLs)", role, name)
			}
		}
	}
	for name, roles := range files {
		for role := range roles {
			if _, ok := service.EntryOf(providers.Role(role)); !ok {
				t.Errorf("%s names providers.%s, a role the catalogue does not have", name, role)
			}
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range []struct {
		line  string // where the README lists them
		names []string
	}{
		{"`include` is a comma-separated list of ", service.PublicSections()},
		{"| `providers.<role>.module` |", everySectionRole()},
	} {
		i := strings.Index(string(readme), list.line)
		if i < 0 {
			t.Errorf("README.md no longer has the line %q", list.line)
			continue
		}
		line, _, _ := strings.Cut(string(readme[i:]), "\n")
		for _, name := range list.names {
			if !strings.Contains(line, "`"+name+"`") {
				t.Errorf("README.md: the line %q does not list %s", list.line, name)
			}
		}
	}
	m := batchComment.FindSubmatch(shipped)
	if m == nil {
		t.Fatalf("config.yaml no longer says what batch the demo key's burst allows (%s)", batchComment)
	}
	burst, _ := strconv.Atoi(string(m[1]))
	batch, _ := strconv.Atoi(string(m[2]))
	if every := 1 + service.CostOf(service.PublicSections()); burst != batch*every {
		t.Errorf("config.yaml: burst %d is said to allow a batch of %d with all sections, which costs %d x %d = %d", burst, batch, batch, every, batch*every)
	}
}
