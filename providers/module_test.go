package providers_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// lifecycle is a test module that records each step of its life, so a test
// can tell the order the registry runs them in. Its options cover every
// kind an option can be.
type lifecycle struct {
	lifecycleOptions `yaml:",inline"`
	Ignored          string // no yaml tag: not an option

	log      *[]string
	settings providers.Settings
	failAt   string // "provision" or "validate": that step fails
}

type lifecycleOptions struct {
	Name    string        `yaml:"name"`
	Count   int           `yaml:"count"`
	Strict  bool          `yaml:"strict"`
	Wait    time.Duration `yaml:"wait"`
	Ratio   float64       `yaml:"ratio"`
	Size    uint16        `yaml:"size"`
	Skipped string        `yaml:"-"`
}

func (l *lifecycle) Provision(s providers.Settings) error {
	*l.log = append(*l.log, "provision")
	l.settings = s
	if l.failAt == "provision" {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig, "provision failed")
	}
	return nil
}

func (l *lifecycle) Validate() error {
	*l.log = append(*l.log, "validate")
	if l.failAt == "validate" {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig, "option count is too large")
	}
	return nil
}

func (l *lifecycle) Close() error {
	*l.log = append(*l.log, "close")
	return nil
}

// Geocode is the use: the module fills the geocoder role.
func (l *lifecycle) Geocode(context.Context, providers.Address) (providers.Location, error) {
	*l.log = append(*l.log, "use")
	return providers.Location{}, nil
}

// testModule registers a lifecycle module under "life" in a registry of
// its own; New sets the default of the name option, as modules state
// theirs.
func testModule(failAt string) (*providers.Registry, *[]string) {
	log := &[]string{}
	reg := &providers.Registry{}
	reg.Register(providers.Module{Name: "life", Roles: []providers.Role{providers.RoleGeocoder},
		DefaultBaseURL: "https://life.example.org/api/",
		New: func() any {
			*log = append(*log, "new")
			return &lifecycle{lifecycleOptions: lifecycleOptions{Name: "default-name"}, log: log, failAt: failAt}
		}})
	return reg, log
}

func TestBuildRunsTheLifecycleInOrder(t *testing.T) {
	reg, log := testModule("")
	v, err := reg.Build(providers.RoleGeocoder, "life", providers.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	g := v.(providers.Geocoder)
	if _, err := g.Geocode(context.Background(), providers.Address{}); err != nil {
		t.Fatal(err)
	}
	if err := v.(interface{ Close() error }).Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(*log, " "); got != "new provision validate use close" {
		t.Errorf("lifecycle ran %q, want new provision validate use close", got)
	}
}

func TestBuildClosesAModuleThatFailsItsLifecycle(t *testing.T) {
	for _, step := range []string{"provision", "validate"} {
		t.Run(step, func(t *testing.T) {
			reg, log := testModule(step)
			v, err := reg.Build(providers.RoleGeocoder, "life", providers.Settings{})
			if v != nil || providers.KindOf(err) != providers.KindInvalid || !strings.HasPrefix(err.Error(), "module life: ") {
				t.Fatalf("Build = %v, %v; want no module and a KindInvalid error naming the module", v, err)
			}
			if got := (*log)[len(*log)-1]; got != "close" {
				t.Errorf("after a failed %s the module was not closed: %v", step, *log)
			}
		})
	}
	t.Run("decode", func(t *testing.T) {
		reg, log := testModule("")
		_, err := reg.Build(providers.RoleGeocoder, "life", providers.Settings{Options: map[string]string{"nmae": "x"}})
		if err == nil || strings.Join(*log, " ") != "new" {
			t.Errorf("a bad option: err %v, steps %v; want an error before Provision, nothing to close", err, *log)
		}
	})
}

func TestBuildDecodesOptionsIntoTypedFields(t *testing.T) {
	reg, _ := testModule("")
	v, err := reg.Build(providers.RoleGeocoder, "life", providers.Settings{Options: map[string]string{
		"count": " 42 ", "strict": "true", "wait": "1m30s", "ratio": "0.25", "size": "512",
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := v.(*lifecycle).lifecycleOptions
	want := lifecycleOptions{Name: "default-name", Count: 42, Strict: true, Wait: 90 * time.Second, Ratio: 0.25, Size: 512}
	if got != want {
		t.Errorf("options %+v, want %+v (an unset option keeps the default New set)", got, want)
	}
	// An empty value, as ${VAR:-} expands to, is an option not given.
	v, err = reg.Build(providers.RoleGeocoder, "life", providers.Settings{Options: map[string]string{"name": " ", "count": ""}})
	if err != nil || v.(*lifecycle).Name != "default-name" {
		t.Errorf("empty values: %v, %+v; want the defaults", err, v)
	}
}

func TestBuildRejectsBadOptionsNamingThem(t *testing.T) {
	tests := []struct {
		name string
		opts map[string]string
		want string
	}{
		{"unknown", map[string]string{"nmae": "x"},
			`unknown option "nmae"; did you mean "name"? (known: name, count, strict, wait, ratio, size)`},
		{"unknown, nothing close", map[string]string{"timeout": "x"},
			`unknown option "timeout" (known: name, count, strict, wait, ratio, size)`},
		{"untagged field is no option", map[string]string{"Ignored": "x"}, `unknown option "Ignored"`},
		{"dash-tagged field is no option", map[string]string{"Skipped": "x"}, `unknown option "Skipped"`},
		{"int", map[string]string{"count": "abc"}, `option count: "abc" is not a whole number`},
		{"int overflow", map[string]string{"size": "70000"}, `option size: "70000" is not a whole number, not negative`},
		{"negative uint", map[string]string{"size": "-1"}, `option size: "-1" is not a whole number, not negative`},
		{"bool", map[string]string{"strict": "maybe"}, `option strict: "maybe" is not true or false`},
		{"duration", map[string]string{"wait": "10"}, `option wait: "10" is not a duration such as "10s"`},
		{"float", map[string]string{"ratio": "half"}, `option ratio: "half" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _ := testModule("")
			_, err := reg.Build(providers.RoleGeocoder, "life", providers.Settings{Options: tt.opts})
			e := providers.As(err)
			if e.Kind != providers.KindInvalid || e.Code != providers.CodeInvalidConfig || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Build with %v = %v; want KindInvalid invalid_config saying %s", tt.opts, err, tt.want)
			}
		})
	}
}

func TestBuildRejectsOptionsOfAModuleWithout(t *testing.T) {
	reg := &providers.Registry{}
	reg.Register(providers.Module{Name: "bare", Roles: []providers.Role{providers.RoleGeocoder},
		New: func() any { return struct{}{} }})
	_, err := reg.Build(providers.RoleGeocoder, "bare", providers.Settings{Options: map[string]string{"radius": "1"}})
	if err == nil || !strings.Contains(err.Error(), `unknown option "radius" (the module takes none)`) {
		t.Errorf("err = %v, want the option named and none known", err)
	}
}

func TestBuildFillsTheCommonSettingsOnce(t *testing.T) {

	tests := []struct {
		name    string
		baseURL string
		want    string
		ok      bool
	}{
		{"empty means the default, trailing slash dropped", "", "https://life.example.org/api", true},
		{"only slashes mean the default", "//", "https://life.example.org/api", true},
		{"kept", "http://127.0.0.1:8080/geo", "http://127.0.0.1:8080/geo", true},
		{"trailing slashes dropped", "https://mirror.example.org/api///", "https://mirror.example.org/api", true},
		{"relative", "api.example.gov/data", "", false},
		{"no host", "https://", "", false},
		{"not http", "ftp://api.example.gov/data", "", false},
		{"unparseable", "http://[::1", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, log := testModule("")
			v, err := reg.Build(providers.RoleGeocoder, "life", providers.Settings{BaseURL: tt.baseURL})
			if !tt.ok {
				e := providers.As(err)
				if e.Kind != providers.KindInvalid || e.Code != "invalid_config" ||
					!strings.Contains(e.Message, "base_url") || !strings.Contains(e.Message, tt.baseURL) {
					t.Errorf("error %v, want KindInvalid invalid_config naming base_url and %q", err, tt.baseURL)
				}
				if len(*log) != 0 {
					t.Errorf("a bad base URL reached the module: %v", *log)
				}
				return
			}
			if got := v.(*lifecycle).settings.BaseURL; err != nil || got != tt.want {
				t.Errorf("base URL %q, %v; want %q", got, err, tt.want)
			}
		})
	}

	reg, _ := testModule("")
	v, _ := reg.Build(providers.RoleGeocoder, "life", providers.Settings{})
	s := v.(*lifecycle).settings
	if s.Client != http.DefaultClient || s.Now == nil || s.Logger == nil {
		t.Fatalf("empty settings were provisioned as %+v; want http.DefaultClient, a clock and a logger", s)
	}
	if d := time.Since(s.Now()); d < 0 || d > time.Minute {
		t.Errorf("the default clock is %v away from time.Now", d)
	}
	mine := &http.Client{}
	fixed := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	v, _ = reg.Build(providers.RoleGeocoder, "life", providers.Settings{Client: mine, Now: func() time.Time { return fixed }})
	if s := v.(*lifecycle).settings; s.Client != mine || !s.Now().Equal(fixed) {
		t.Errorf("the configured client and clock were not kept")
	}
}

func TestBuildTyped(t *testing.T) {
	reg, _ := testModule("")
	m, _ := reg.Lookup("life")
	l, err := providers.Build[*lifecycle](m, providers.Settings{Options: map[string]string{"count": "3"}})
	if err != nil || l.Count != 3 {
		t.Fatalf("Build = %+v, %v", l, err)
	}
	_, err = providers.Build[*strings.Builder](m, providers.Settings{})
	if providers.KindOf(err) != providers.KindInternal {
		t.Errorf("Build of the wrong type: %v, want KindInternal", err)
	}
	var e *providers.Error
	if !errors.As(err, &e) {
		t.Errorf("not a *providers.Error: %v", err)
	}
}
