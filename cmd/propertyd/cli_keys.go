package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers/service"
)

// apiKeyPrefix starts every generated key, so secret scanners and people
// recognize a leaked propertyd key.
const apiKeyPrefix = "pd_"

// allSectionsCost is the cost of one lookup with every section propertyd
// offers (1 + each section's cost in the catalogue): the smallest safe
// burst when no configuration says which sections are served.
func allSectionsCost() int { return 1 + service.CostOf(service.PublicSections()) }

// keysCmd serves "propertyd keys <subcommand>".
func keysCmd(args []string, stdout, stderr io.Writer) int {
	newKey := func(args []string) int { return keysNew(args, stdout, stderr) }
	return group{"keys", "subcommand", []subcommand{{"new", newKey}}}.dispatch(args, stdout, stderr)
}

// keyEntry is the config.yaml entry keys new prints.
type keyEntry struct {
	Name   string  `yaml:"name"`
	SHA256 string  `yaml:"sha256"`
	Rate   float64 `yaml:"rate"`
	Burst  int     `yaml:"burst"`
}

// keysNew serves "propertyd keys new".
func keysNew(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("keys new")
	path := configFlag(fs)
	name := fs.String("name", "", "the key's `name`, unique in config.yaml (required; shown in logs)")
	rate := fs.Float64("rate", 5, "tokens per second the key earns")
	burst := fs.Int("burst", 150, "bucket size: the largest request cost the key may send")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	*name = strings.TrimSpace(*name)
	if *name == "" {
		return usageError(fs, stderr, "-name is required")
	}
	if !(*rate > 0) || math.IsInf(*rate, 0) {
		return usageError(fs, stderr, "-rate must be a positive number of tokens per second")
	}
	minBurst, from := allSectionsCost(), "every section"
	if configGiven(fs) || fileExists(*path) {
		cfg, err := LoadConfig(*path)
		if err != nil {
			fmt.Fprintf(stderr, "propertyd keys new: %v\n", err)
			return exitConfig
		}
		for _, k := range cfg.Keys {
			if k.Name == *name {
				return usageError(fs, stderr, "%s already has a key named %q", *path, *name)
			}
		}
		minBurst, from = cfg.maxCost(), "the sections "+*path+" serves"
	}
	if *burst < minBurst {
		return usageError(fs, stderr, "-burst must be at least %d, the cost of one lookup with %s", minBurst, from)
	}

	key := newAPIKey()
	sum := sha256.Sum256([]byte(key))
	entry, err := yaml.Marshal([]keyEntry{{Name: *name, SHA256: hex.EncodeToString(sum[:]), Rate: *rate, Burst: *burst}})
	if err != nil {
		fmt.Fprintf(stderr, "propertyd keys new: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "API key for %q (shown only now: store it in a secret manager; propertyd keeps only its SHA-256):\n\n    %s\n\n", *name, key)
	fmt.Fprintf(stdout, "config.yaml entry, to paste under keys:\n\n")
	for _, line := range strings.Split(strings.TrimRight(string(entry), "\n"), "\n") {
		fmt.Fprintf(stdout, "  %s\n", line)
	}
	return exitOK
}

// configGiven reports whether the user named a configuration file, with
// -config or $PROPERTYD_CONFIG: then it must exist.
func configGiven(fs *flag.FlagSet) bool {
	given := os.Getenv("PROPERTYD_CONFIG") != ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "config" {
			given = true
		}
	})
	return given
}

// fileExists reports whether path names a file: keys new reads the
// default config.yaml when there is one, and does without it when there
// is none.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// newAPIKey returns a new key: 256 bits from crypto/rand, URL-safe base64,
// after apiKeyPrefix. It is a header-safe ASCII string.
func newAPIKey() string {
	var b [32]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program instead
	return apiKeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}
