package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// parseKeysNew splits the output of keys new into the key and the entry.
func parseKeysNew(t *testing.T, out string) (string, KeyConfig) {
	t.Helper()
	_, rest, ok := strings.Cut(out, "propertyd keeps only its SHA-256):\n\n")
	key, entry, ok2 := strings.Cut(rest, "\n\nconfig.yaml entry, to paste under keys:\n\n")
	if !ok || !ok2 {
		t.Fatalf("keys new output has no key and entry:\n%s", out)
	}
	var keys []KeyConfig
	if err := yaml.Unmarshal([]byte(entry), &keys); err != nil || len(keys) != 1 {
		t.Fatalf("the printed entry is not one keys: item (%v):\n%s", err, entry)
	}
	return strings.TrimSpace(key), keys[0]
}

func TestKeysNewPrintsAWorkingKey(t *testing.T) {
	t.Setenv("PROPERTYD_CONFIG", "")
	code, out, errs := runCLI("keys", "new", "--name", "reporting", "--rate", "2", "--burst", "12")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	key, entry := parseKeysNew(t, out)
	if !strings.HasPrefix(key, apiKeyPrefix) || len(key) != len(apiKeyPrefix)+43 {
		t.Fatalf("key %q is not %s + 256 bits in base64url", key, apiKeyPrefix)
	}
	sum := sha256.Sum256([]byte(key))
	if entry.Name != "reporting" || entry.SHA256 != hex.EncodeToString(sum[:]) || entry.Rate != 2 || entry.Burst != 12 || entry.KeyEnv != "" {
		t.Fatalf("entry = %+v, want name reporting, the key's SHA-256, rate 2, burst 12", entry)
	}
	if strings.Count(out, key) != 1 {
		t.Fatal("the key is printed more than once")
	}

	// The pasted entry authenticates the key against the running service.
	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.Keys = []KeyConfig{entry}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the printed entry does not validate: %v", err)
	}
	m := startMain(t, cfg, upstreams())
	get := func(apiKey string) int {
		q := url.Values{"street": {"2200 West Broad Street"}, "city": {"Richmond"}, "state": {"VA"}}
		req, _ := http.NewRequest("GET", "http://"+m.Addr()+"/v1/properties/lookup?"+q.Encode(), nil)
		req.Header.Set("X-API-Key", apiKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := get(key); status != http.StatusOK {
		t.Fatalf("lookup with the new key: %d, want 200", status)
	}
	if status := get(demoKey); status != http.StatusUnauthorized {
		t.Fatalf("lookup with a key not in the config: %d, want 401", status)
	}

	_, again, _ := runCLI("keys", "new", "-name", "reporting")
	if other, _ := parseKeysNew(t, again); other == key {
		t.Fatal("two runs printed the same key")
	}
}

func TestKeysNewValidatesItsFlags(t *testing.T) {
	t.Setenv("PROPERTYD_CONFIG", "")
	oneSection := writeConfig(t, `
keys: [{name: ops, sha256: "`+opsHash+`", rate: 1, burst: 2}]
providers:
  geocoder: {module: census}
  reverse_geocoder: {module: census}
  flood: {module: fema-nfhl}
`)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"defaults", []string{"-name", "a"}, exitOK, "burst: 150"},
		{"no name", []string{"-rate", "1"}, exitUsage, "-name is required"},
		{"blank name", []string{"-name", "  "}, exitUsage, "-name is required"},
		{"zero rate", []string{"-name", "a", "-rate", "0"}, exitUsage, "-rate must be a positive"},
		{"burst below every section", []string{"-name", "a", "-burst", "5"}, exitUsage, "-burst must be at least 6, the cost of one lookup with every section"},
		{"burst enough for the config", []string{"-name", "a", "-burst", "2", "-config", oneSection}, exitOK, "burst: 2"},
		{"burst below the config", []string{"-name", "a", "-burst", "1", "-config", oneSection}, exitUsage, "-burst must be at least 2, the cost of one lookup with the sections " + oneSection + " serves"},
		{"name taken in the config", []string{"-name", "ops", "-config", oneSection}, exitUsage, `already has a key named "ops"`},
		{"invalid config", []string{"-name", "a", "-config", filepath.Join("testdata", "homes.csv")}, exitConfig, "config testdata/homes.csv"},
		{"stray argument", []string{"-name", "a", "extra"}, exitUsage, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"keys", "new"}, c.args...)...)
			if code != c.code || !strings.Contains(out+errs, c.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s%s", code, c.code, c.want, out, errs)
			}
			if code != exitOK && strings.Contains(out, apiKeyPrefix) {
				t.Fatal("a refused keys new printed a key")
			}
		})
	}
	t.Run("config from the environment", func(t *testing.T) {
		t.Setenv("PROPERTYD_CONFIG", oneSection)
		if code, out, errs := runCLI("keys", "new", "-name", "a", "-burst", "2"); code != exitOK {
			t.Fatalf("exit %d: %s%s", code, out, errs)
		}
	})
	// The default config.yaml, which --help names, is read as -config
	// would read it: its names are taken, its sections set the burst.
	t.Run("config.yaml of the current folder", func(t *testing.T) {
		raw, err := os.ReadFile(oneSection)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		if code, out, errs := runCLI("keys", "new", "-name", "ops"); code != exitUsage || !strings.Contains(errs, `config.yaml already has a key named "ops"`) {
			t.Fatalf("a name config.yaml has: exit %d: %s%s", code, out, errs)
		}
		if code, out, errs := runCLI("keys", "new", "-name", "a", "-burst", "2"); code != exitOK || !strings.Contains(out, "burst: 2") {
			t.Fatalf("the burst config.yaml's sections need: exit %d: %s%s", code, out, errs)
		}
	})
	for _, args := range [][]string{{"keys"}, {"keys", "rotate"}} {
		if code, _, errs := runCLI(args...); code != exitUsage || !strings.Contains(errs, "usage: propertyd keys new") {
			t.Fatalf("%v: exit %d, %q", args, code, errs)
		}
	}
}
