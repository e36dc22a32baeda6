package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// The module options config.yaml gives are decoded strictly when serve
// starts, as check-config does (TestCheckConfigInvalidExits3NamingTheField):
// a typo, a value of the wrong type or an empty required token stops
// start-up with a message naming the role, the module and the option, and
// the exit code of an invalid configuration, as check-config's.
func TestServeRejectsBadModuleOptions(t *testing.T) {
	t.Setenv("TEST_CI_KEY", "x")
	t.Setenv("TEST_ACS_KEY", "x")
	t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:0")
	cases := []struct{ name, from, to, want string }{
		{"unknown option", `year: "2022"`, `yeer: "2022"`, `providers.demographics: module census-acs: invalid_config: unknown option "yeer"`},
		{"wrong type", `token: "hud-token-value"`, `token: "hud-token-value", year: abc`,
			`providers.fair_market_rent: module hud-fmr: invalid_config: option year: "abc" is not a whole number`},
		{"empty token", `token: "hud-token-value"`, `token: ""`, "providers.fair_market_rent: module hud-fmr: invalid_config: option token is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TEST_DB_PATH", filepath.Join(t.TempDir(), "p.db"))
			raw := strings.Replace(secretConfig, c.from, c.to, 1)
			code, out, errs := runCLI("serve", "-config", writeConfig(t, raw))
			if code != exitConfig || !strings.Contains(errs, c.want) || out != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 3 before listening and a message with %q", code, errs, out, c.want)
			}
		})
	}
}

// closingModule is a module that records when it is closed; as a flood and
// an amenities module it answers nothing, since these tests never call it.
type closingModule struct {
	role    providers.Role
	log     *[]string
	invalid bool
}

func (c *closingModule) Validate() error {
	if c.invalid {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig, "option x is not valid")
	}
	return nil
}

func (c *closingModule) Close() error {
	*c.log = append(*c.log, "close "+string(c.role))
	return nil
}

func (c *closingModule) Flood(context.Context, providers.Point) (*providers.Flood, error) {
	return nil, providers.ErrNoMatch
}

func (c *closingModule) Amenities(context.Context, providers.Point, int) (*providers.Amenities, error) {
	return nil, providers.ErrNoMatch
}

func (c *closingModule) Demographics(context.Context, providers.Tract) (*providers.Demographics, error) {
	return nil, providers.ErrNoMatch
}

// closingRegistry is the default registry plus a closing module for the
// flood, amenities and demographics roles, the last one failing to
// validate when invalid is set; log records the closes.
func closingRegistry(invalid bool) (*providers.Registry, *[]string) {
	log := &[]string{}
	reg := &providers.Registry{}
	for _, name := range providers.Default.Names("") {
		m, _ := providers.Default.Lookup(name)
		reg.Register(m)
	}
	for _, role := range []providers.Role{providers.RoleFlood, providers.RoleAmenities, providers.RoleDemographics} {
		reg.Register(providers.Module{Name: "closing-" + string(role), Roles: []providers.Role{role},
			New: func() any {
				return &closingModule{role: role, log: log, invalid: invalid && role == providers.RoleDemographics}
			}})
	}
	return reg, log
}

// openClosing opens a Main of the shipped configuration whose given roles
// are filled by closing modules (see closingRegistry).
func openClosing(t *testing.T, invalid bool, roles ...string) (*Main, *[]string, error) {
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	for _, role := range roles {
		cfg.Providers[role].Module, cfg.Providers[role].Options = "closing-"+role, nil
	}
	reg, log := closingRegistry(invalid)
	m := NewMain(cfg)
	m.Registry, m.HTTPTransport = reg, upstreams()
	return m, log, m.Open(context.Background())
}

func TestMainClosesModulesOnShutdownLastBuiltFirst(t *testing.T) {
	m, log, err := openClosing(t, false, "flood", "amenities")
	if err != nil {
		t.Fatal(err)
	}
	if len(*log) != 0 {
		t.Fatalf("modules closed while serving: %v", *log)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// Flood is built before amenities (catalogue order), so closed after.
	if want := []string{"close amenities", "close flood"}; !slices.Equal(*log, want) {
		t.Errorf("on shutdown the modules were closed as %v, want %v", *log, want)
	}
	if err := m.Close(); err != nil || len(*log) != 2 {
		t.Errorf("a second Close closed modules again: %v, %v", err, *log)
	}
}

func TestMainClosesModulesBuiltBeforeOneFails(t *testing.T) {
	_, log, err := openClosing(t, true, "flood", "demographics")
	if err == nil || !strings.Contains(err.Error(), "providers.demographics: module closing-demographics: invalid_config: option x is not valid") {
		t.Fatalf("Open = %v; want the demographics module's error", err)
	}
	// The failing module is closed by the build; flood, built before it,
	// by Main when start-up fails.
	if want := []string{"close demographics", "close flood"}; !slices.Equal(*log, want) {
		t.Errorf("after a failed start-up the modules were closed as %v, want %v", *log, want)
	}
}

func TestCheckConfigClosesTheModulesItBuilt(t *testing.T) {
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.Providers["flood"].Module = "closing-flood"
	reg, log := closingRegistry(false)
	if err := checkModules(cfg, reg); err != nil {
		t.Fatal(err)
	}
	if want := []string{"close flood"}; !slices.Equal(*log, want) {
		t.Errorf("check-config closed %v, want %v", *log, want)
	}
}
