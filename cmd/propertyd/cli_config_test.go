package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const opsHash = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

// secretConfig has a secret of every kind check-config must not print.
const secretConfig = `
database: "${TEST_DB_PATH}"
keys:
  - {name: ops, sha256: "` + opsHash + `", rate: 2, burst: 10}
  - {name: ci, key_env: TEST_CI_KEY, rate: 1, burst: 10}
providers:
  geocoder: {module: census}
  reverse_geocoder: {module: census, base_url: "https://geo-user:geo-pass@geocoder.example.com/geocoder"}
  demographics: {module: census-acs, options: {api_key: "${TEST_ACS_KEY}", year: "2022"}}
  fair_market_rent: {module: hud-fmr, options: {token: "hud-token-value"}}
`

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckConfigMasksSecrets(t *testing.T) {
	t.Setenv("TEST_CI_KEY", "ci-key-plain-value")
	t.Setenv("TEST_ACS_KEY", "acs-key-plain-value")
	t.Setenv("TEST_DB_PATH", "/var/lib/propertyd/p.db")
	code, out, errs := runCLI("check-config", "-config", writeConfig(t, secretConfig))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, secret := range []string{"ci-key-plain-value", "acs-key-plain-value", "hud-token-value", opsHash, "geo-pass"} {
		if strings.Contains(out, secret) {
			t.Errorf("check-config printed the secret %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"sha256: 0f1e2d3c…",                                   // the hash, truncated
		"key_env: TEST_CI_KEY",                                // the variable's name only
		"api_key: '********'",                                 // a secret option, masked
		"token: '********'",                                   // another
		`year: "2022"`,                                        // not a secret
		"database: /var/lib/propertyd/p.db",                   // environment expanded
		"batch_concurrency: 25",                               // a default applied
		"refresh_concurrency: 8",                              // another
		"refresh: background",                                 // a section's refresh mode, defaulted
		"base_url: https://geocoding.geo.census.gov/geocoder", // the module's real upstream
		"geo-user:xxxxx@geocoder.example.com",                 // credentials in a URL
		"# Sections served: demographics; every key's burst must be at least 2.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var parsed map[string]any
	if err := yaml.Unmarshal([]byte(out), &parsed); err != nil || parsed["listen"] != "127.0.0.1:8080" {
		t.Fatalf("output is not the settings as YAML (%v): %v", err, parsed)
	}
}

func TestCheckConfigShippedFileIsValid(t *testing.T) {
	code, out, errs := runCLI("check-config", "-config", filepath.Join("..", "..", "config.yaml"))
	if code != exitOK || !strings.Contains(out, "module: fema-nfhl") || strings.Contains(out, "7f7c1323bd52a8ada28ddf749a1914d3611fd8b099980c0a14e5fea8acbb6462") {
		t.Fatalf("exit %d, stderr %s, output:\n%s", code, errs, out)
	}
}

func TestCheckConfigInvalidExits3NamingTheField(t *testing.T) {
	t.Setenv("TEST_CI_KEY", "x")
	t.Setenv("TEST_ACS_KEY", "x")
	cases := []struct{ name, from, to, want string }{
		{"burst too small", "rate: 2, burst: 10", "rate: 2, burst: 1", "keys[0].burst: must be at least 2"},
		{"unknown field", "database:", "databse:", "databse"},
		{"unknown module", "module: census-acs", "module: census-asc", `providers.demographics: unknown demographics module "census-asc"`},
		{"unknown option", `year: "2022"`, `yeer: "2022"`, `providers.demographics: module census-acs: invalid_config: unknown option "yeer"`},
		{"module option missing", `token: "hud-token-value"`, `year: "2023"`, "providers.fair_market_rent: module hud-fmr: invalid_config: option token is required"},
		{"module option empty", `token: "hud-token-value"`, `token: ""`, "providers.fair_market_rent: module hud-fmr: invalid_config: option token is required"},
		{"an impossible as_of", "database:", "facts: {datasets: [{name: cook, preset: cook-county, as_of: \"2025-02-30\"}]}\ndatabase:",
			`facts.datasets[0]: dataset cook: as_of "2025-02-30" is not a date`},
		{"option of the wrong type", `token: "hud-token-value"`, `token: "hud-token-value", year: abc`,
			`providers.fair_market_rent: module hud-fmr: invalid_config: option year: "abc" is not a whole number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := strings.Replace(secretConfig, c.from, c.to, 1)
			if raw == secretConfig {
				t.Fatalf("test edit %q not applied", c.from)
			}
			code, out, errs := runCLI("check-config", "-config", writeConfig(t, raw))
			if code != exitConfig || !strings.Contains(errs, c.want) || out != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 3 and a message with %q", code, errs, out, c.want)
			}
		})
	}
	if code, _, errs := runCLI("check-config", "-config", filepath.Join(t.TempDir(), "none.yaml")); code != exitConfig || !strings.Contains(errs, "none.yaml") {
		t.Fatalf("missing file: exit %d, %q", code, errs)
	}
}

func TestCheckConfigHidesADatabasePassword(t *testing.T) {
	t.Setenv("TEST_CI_KEY", "ci-key-plain-value")
	t.Setenv("TEST_DB_PATH", "postgres://propertyd:db-secret-pass@db.example.com:5432/propertyd?sslmode=require")
	code, out, errs := runCLI("check-config", "-config", writeConfig(t, secretConfig))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "db-secret-pass") {
		t.Fatalf("check-config printed the database password:\n%s", out)
	}
	if !strings.Contains(out, "propertyd:xxxxx@db.example.com:5432/propertyd") {
		t.Fatalf("the database URL is not shown with its password masked:\n%s", out)
	}
}

// TestCheckConfigSaysWhichFieldAsTheFileWritesIt makes one mistake at each
// level of the shipped file: the message names the field by its path in
// the file and its line, suggests the field meant when one is close, and
// never shows a Go type.
func TestCheckConfigSaysWhichFieldAsTheFileWritesIt(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// want holds %d where the line of the text at goes.
	cases := []struct{ name, from, to, at, want string }{
		{"top level", "listen:", "lisen:", "lisen:", `unknown field "lisen" (line %d); did you mean "listen"?`},
		{"a section", "  max_mb: 64", "  max_mbb: 64", "max_mbb", `unknown field "cache.max_mbb" (line %d); did you mean "cache.max_mb"?`},
		{"a key entry", "    burst: 150", "    burts: 150", "burts", `unknown field "keys[0].burts" (line %d); did you mean "keys[0].burst"?`},
		{"a provider", "    module: census\n    timeout", "    modul: census\n    timeout", "modul:",
			`unknown field "providers.geocoder.modul" (line %d); did you mean "providers.geocoder.module"?`},
		{"a provider's rate limit", "rate_limit: {rate: 10, burst: 10,", "rate_limit: {rate: 10, brust: 10,", "brust",
			`unknown field "providers.geocoder.rate_limit.brust" (line %d); did you mean "providers.geocoder.rate_limit.burst"?`},
		{"redis", "# redis:\n#   url", "redis:\n  prefx: x\n#   url", "prefx", `unknown field "redis.prefx" (line %d); did you mean "redis.prefix"?`},
		{"nothing close", "    module: census\n    timeout", "    module: census\n    port: 80\n    timeout", "port: 80",
			`unknown field "providers.geocoder.port" (line %d)` + "\n"},
		{"a module's option", "module: overpass", "module: overpass\n    options: {max_result: 3}", "",
			`unknown option "max_result"; did you mean "max_results"? (known: `},
		{"a value of the wrong kind", "batch_concurrency: 25", "batch_concurrency: many", "many",
			`batch_concurrency: "many" is not a whole number (line %d)`},
		{"a duration", `request_timeout: "30s"`, `request_timeout: "thirty"`, "thirty",
			`request_timeout: invalid duration "thirty"; use e.g. "10s" or "720h" (line %d)`},
		{"where addresses are matched", "batch_concurrency: 25", "batch_concurrency: 25\ngeocoding: remote", "",
			`geocoding: must be "auto" or "local"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := strings.Replace(string(base), c.from, c.to, 1)
			if raw == string(base) {
				t.Fatalf("test edit %q not applied", c.from)
			}
			want := c.want
			if c.at != "" {
				want = fmt.Sprintf(c.want, 1+strings.Count(raw[:strings.Index(raw, c.at)], "\n"))
			}
			code, out, errs := runCLI("check-config", "-config", writeConfig(t, raw))
			if code != exitConfig || out != "" || !strings.Contains(errs+"\n", want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 3 saying %s", code, errs, want)
			}
			for _, goWords := range []string{"main.", "not found in type", "unmarshal", "!!"} {
				if strings.Contains(errs, goWords) {
					t.Errorf("the message shows Go's words (%q):\n%s", goWords, errs)
				}
			}
		})
	}
}

// TestCheckConfigReportsEveryMistakeInOneRun writes six mistakes of the
// three kinds (fields unknown or of the wrong kind, values out of range,
// a module's options) in one file: one run of check-config names all six,
// each with its line, where it once showed the first kind only and took
// three runs.
func TestCheckConfigReportsEveryMistakeInOneRun(t *testing.T) {
	raw := `listen: "127.0.0.1:8080"
lisen: "127.0.0.1:9090"
batch_concurrency: many
refresh_concurrency: 500
keys:
  - {name: ops, sha256: "` + opsHash + `", rate: 2, burst: 1}
providers:
  geocoder: {module: census}
  reverse_geocoder: {module: census}
  demographics:
    module: census-acs
    options: {yeer: "2022"}
  flood:
    module: fema-nfhl
    retries: 99
`
	code, out, errs := runCLI("check-config", "-config", writeConfig(t, raw))
	if code != exitConfig || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit 3", code, out)
	}
	for _, want := range []string{
		`unknown field "lisen" (line 2); did you mean "listen"?`,
		`batch_concurrency: "many" is not a whole number (line 3)`,
		`refresh_concurrency: must be between 1 and 100 (line 4)`,
		`keys[0].burst: must be at least `,
		`providers.demographics: module census-acs: invalid_config: unknown option "yeer"`,
		`providers.flood.retries: must be between 0 and 10 (line 15)`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("check-config does not say %q:\n%s", want, errs)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		if !strings.Contains(line, "(line ") {
			t.Errorf("a mistake without its line: %q", line)
		}
	}
	if !strings.Contains(errs, "(line 6)") || !strings.Contains(errs, "(line 10)") {
		t.Errorf("the burst's and the module's mistakes are not at lines 6 and 10:\n%s", errs)
	}
}

// TestEnvironmentOverridesAnyFile gives a file that writes its own
// database and listen address, with no ${...}: PROPERTYD_DATABASE and
// PROPERTYD_LISTEN still win, as the README says, and the file's values
// hold when they are unset or empty.
func TestEnvironmentOverridesAnyFile(t *testing.T) {
	t.Setenv("TEST_CI_KEY", "x")
	raw := strings.Replace(secretConfig, `database: "${TEST_DB_PATH}"`, "database: from-file.db\nlisten: \"127.0.0.1:7000\"", 1)
	path := writeConfig(t, raw)
	t.Setenv("PROPERTYD_DATABASE", "from-env.db")
	t.Setenv("PROPERTYD_LISTEN", "127.0.0.1:7001")
	code, out, errs := runCLI("check-config", "-config", path)
	if code != exitOK || !strings.Contains(out, "\ndatabase: from-env.db\n") || !strings.Contains(out, "\nlisten: 127.0.0.1:7001\n") {
		t.Fatalf("exit %d, stderr %s; want the environment's database and listen:\n%s", code, errs, out)
	}
	t.Setenv("PROPERTYD_DATABASE", "")
	t.Setenv("PROPERTYD_LISTEN", "")
	code, out, errs = runCLI("check-config", "-config", path)
	if code != exitOK || !strings.Contains(out, "\ndatabase: from-file.db\n") || !strings.Contains(out, "\nlisten: 127.0.0.1:7000\n") {
		t.Fatalf("exit %d, stderr %s; want the file's database and listen:\n%s", code, errs, out)
	}
}
