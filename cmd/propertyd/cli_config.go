package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/service"
)

// checkConfig serves "propertyd check-config".
func checkConfig(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check-config")
	path := configFlag(fs)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q (the file is given with -config)", fs.Arg(0))
	}
	// Every mistake in one run: the fields, the values and the modules'
	// options, the modules built from what could be read.
	cfg, doc, err := readConfig(*path)
	if cfg != nil {
		if merr := withLines(doc, checkModules(cfg, providers.Default)); merr != nil {
			if err == nil {
				err = fmt.Errorf("config %s: %w", *path, merr)
			} else {
				err = errors.Join(err, merr)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "propertyd check-config: %v\n", err)
		return exitConfig
	}
	out, err := effectiveConfig(cfg, providers.Default)
	if err != nil {
		fmt.Fprintf(stderr, "propertyd check-config: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "# %s is valid. Effective settings, defaults applied, secrets masked.\n", *path)
	sections := cfg.Sections()
	fmt.Fprintf(stdout, "# Sections served: %s; every key's burst must be at least %d.\n",
		orNone(strings.Join(sections, ", ")), 1+len(sections))
	_, err = stdout.Write(out)
	if err != nil {
		return exitError
	}
	return exitOK
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// checkModules builds and wires every enabled module as serve does, from
// reg, with an HTTP transport that refuses to send anything: unknown module
// names, unknown options, bad option values and a module that cannot fill
// its role fail here rather than at start-up. No upstream is called, and
// the modules built are closed before it returns.
func checkModules(cfg *Config, reg *providers.Registry) error {
	m := &Main{Config: cfg, Registry: reg, HTTPTransport: refuseTransport{}, Logger: slog.New(slog.DiscardHandler)}
	err := m.wireModules(&service.Config{})
	return errors.Join(err, m.closeModules())
}

// refuseTransport fails every request: checking a configuration must not
// reach the network.
type refuseTransport struct{}

func (refuseTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("check-config makes no upstream calls")
}

// masked replaces a secret value; its length is not revealed.
const masked = "********"

// secretWords mark module options whose values are secrets.
var secretWords = []string{"key", "token", "secret", "password"}

// isSecretOption reports whether the option name holds a secret.
func isSecretOption(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// shownKey is a KeyConfig as check-config prints it: the hash truncated,
// the environment variable by name only.
type shownKey struct {
	Name   string  `yaml:"name"`
	SHA256 string  `yaml:"sha256,omitempty"`
	KeyEnv string  `yaml:"key_env,omitempty"`
	Rate   float64 `yaml:"rate"`
	Burst  int     `yaml:"burst"`
}

// effectiveConfig renders cfg as YAML with secrets masked and each
// module's real base URL filled in where the file leaves it empty. cfg is
// not modified.
func effectiveConfig(cfg *Config, reg *providers.Registry) ([]byte, error) {
	shown := *cfg
	shown.Keys = nil
	shown.Providers = make(map[string]*ProviderConfig, len(cfg.Providers))
	for role, pc := range cfg.Providers {
		p := *pc
		if p.BaseURL == "" {
			if m, ok := reg.Lookup(p.Module); ok {
				p.BaseURL = m.DefaultBaseURL
			}
		} else {
			p.BaseURL = redactURL(p.BaseURL)
		}
		p.Options = maps.Clone(pc.Options)
		for name, v := range p.Options {
			if v != "" && isSecretOption(name) {
				p.Options[name] = masked
			}
		}
		shown.Providers[role] = &p
	}
	shown.Redis.URL = redactURL(cfg.Redis.URL)
	shown.Database = redactURL(cfg.Database) // a postgres:// URL may hold a password
	keys := make([]shownKey, len(cfg.Keys))
	for i, k := range cfg.Keys {
		keys[i] = shownKey{Name: k.Name, SHA256: truncateHash(k.SHA256), KeyEnv: k.KeyEnv, Rate: k.Rate, Burst: k.Burst}
	}

	var doc yaml.Node
	if err := doc.Encode(&shown); err != nil {
		return nil, err
	}
	var keysNode yaml.Node
	if err := keysNode.Encode(keys); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "keys" {
			doc.Content[i+1] = &keysNode
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// redactURL masks the password of a URL that holds credentials
// (user:password@ or :password@, as Redis URLs give it); other URLs are
// returned as they are, and what does not parse as a URL is masked whole.
func redactURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return masked
	case u.User != nil:
		return u.Redacted()
	}
	return s
}

// truncateHash shows enough of a key hash to tell keys apart, not enough to
// be the hash.
func truncateHash(h string) string {
	if len(h) <= 8 {
		return h
	}
	return h[:8] + "…"
}
