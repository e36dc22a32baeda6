package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryCommandHasHelp(t *testing.T) {
	for name := range helps {
		args := append(strings.Fields(name), "--help")
		code, out, errs := runCLI(args...)
		if code != exitOK || !strings.HasPrefix(out, "usage: propertyd "+name) || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want its help on stdout, exit 0", args, code, out, errs)
		}
		code, viaHelp, _ := runCLI(append([]string{"help"}, strings.Fields(name)...)...)
		if code != exitOK || viaHelp != out {
			t.Errorf("propertyd help %s: exit %d, differs from --help:\n%s", name, code, viaHelp)
		}
	}
	if !strings.Contains(helps["import"].about, "4 some rows failed") {
		t.Error("import help does not document exit code 4")
	}
}

func TestOverviewAndUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		code, out, _ := runCLI(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		for _, cmd := range []string{"serve", "check-config", "keys new", "migrate", "import FILE.csv", "copy", "help [command]", "4 import or data load parcels finished"} {
			if !strings.Contains(out, cmd) {
				t.Errorf("%v: the overview does not mention %q:\n%s", args, cmd, out)
			}
		}
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"check-config", "-verbose"}, "flag provided but not defined: -verbose"},
		{[]string{"check-config", "config.yaml"}, "the file is given with -config"},
		{[]string{"serve", "-port", "80"}, "usage: propertyd serve"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
	}
}

// TestTheOverviewListsEveryCommand: each command with a help of its own
// and no subcommands (data load osm, not data load) is in the overview
// that propertyd help prints, so it can be found from there.
func TestTheOverviewListsEveryCommand(t *testing.T) {
	_, out, _ := runCLI("help")
	for name := range helps {
		leaf := true
		for other := range helps {
			if strings.HasPrefix(other, name+" ") {
				leaf = false
			}
		}
		if leaf && !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("the overview does not list %q:\n%s", name, out)
		}
	}
}

// TestHelpAtEveryLevel asks for help at each level of each command line,
// the flag before or after the subcommand's other words: each answers its
// own help on stdout with exit 0, whole sentences.
func TestHelpAtEveryLevel(t *testing.T) {
	cases := []struct {
		args  []string
		usage string
	}{
		{[]string{"--help"}, "usage: propertyd [command]"},
		{[]string{"data", "--help"}, "usage: propertyd data load acs"},
		{[]string{"data", "load", "--help"}, "usage: propertyd data load acs"},
		{[]string{"data", "load", "acs", "--help"}, "usage: propertyd data load acs"},
		{[]string{"data", "load", "acs", "-states", "CA", "-h"}, "usage: propertyd data load acs"},
		{[]string{"keys", "--help"}, "usage: propertyd keys new"},
		{[]string{"keys", "new", "--help"}, "usage: propertyd keys new"},
		{[]string{"keys", "new", "-name", "ci", "-help"}, "usage: propertyd keys new"},
		{[]string{"import", "homes.csv", "--help"}, "usage: propertyd import"},
		{[]string{"help", "data", "load"}, "usage: propertyd data load acs"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code != exitOK || errs != "" || !strings.HasPrefix(out, c.usage) {
			t.Errorf("propertyd %s: exit %d, stderr %q, stdout:\n%s\nwant %q... on stdout, exit 0",
				strings.Join(c.args, " "), code, errs, out, c.usage)
		}
		// Each help's text ends its sentences: no line stops at a word a
		// sentence needs after it.
		for _, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(strings.TrimSpace(line), " ahead") {
				t.Errorf("propertyd %s: a sentence stops mid-way: %q", strings.Join(c.args, " "), line)
			}
		}
	}
	if _, out, _ := runCLI("data", "--help"); !strings.Contains(out, "ahead of\n                 time") {
		t.Errorf("propertyd data --help does not say what loading ahead is for:\n%s", out)
	}
}

// TestFlagsAndSubcommandsInAnyOrder puts the flags where a newcomer does:
// each line reaches its command with its flags read, shown here by the
// configuration file named being opened (and missing: exit 3), or by the
// command's own answer.
func TestFlagsAndSubcommandsInAnyOrder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "demo.yaml")
	for _, args := range [][]string{
		{"data", "load", "acs", "-config", missing},
		{"data", "load", "-config", missing, "acs"},
		{"data", "-config", missing, "load", "acs", "-states", "CA"},
		{"data", "load", "acs", "-states", "CA", "-config", missing},
		// The file exists: a missing one is refused before the config.
		{"import", "-config", missing, filepath.Join("testdata", "homes.csv")},
		{"import", filepath.Join("testdata", "homes.csv"), "-config", missing},
		{"check-config", "-config", missing},
		{"migrate", "-config", missing},
	} {
		code, _, errs := runCLI(args...)
		if code != exitConfig || !strings.Contains(errs, "config: open "+missing) {
			t.Errorf("propertyd %s: exit %d, stderr %q; want the file named opened (exit 3)", strings.Join(args, " "), code, errs)
		}
	}
	t.Setenv("PROPERTYD_CONFIG", "")
	for _, args := range [][]string{{"keys", "new", "-name", "ci"}, {"keys", "-name", "ci", "new"}, {"keys", "new", "-rate", "2", "-name", "ci"}} {
		code, out, errs := runCLI(args...)
		if code != exitOK || !strings.Contains(out, `API key for "ci"`) {
			t.Errorf("propertyd %s: exit %d, stderr %q; want a key named ci", strings.Join(args, " "), code, errs)
		}
	}
	// A line missing its last word says which word, not that the flags
	// are an unknown subcommand.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"data", "load", "-config", missing}, "propertyd data load: missing dataset (acs, parcels, osm, addresses, boundaries, flood)"},
		{[]string{"data", "load"}, "propertyd data load: missing dataset (acs, parcels, osm, addresses, boundaries, flood)"},
		{[]string{"data"}, "propertyd data: missing subcommand (load, status)"},
		{[]string{"data", "unload"}, `propertyd data: unknown subcommand "unload" (want load, status)`},
		{[]string{"keys", "-name", "ci"}, "propertyd keys: missing subcommand (new)"},
		{[]string{"keys", "old"}, `propertyd keys: unknown subcommand "old" (want new)`},
		{[]string{"-config", missing, "check-config"}, `unexpected argument "check-config" (the command comes first: propertyd check-config -config PATH)`},
		{[]string{"import", "a.csv", "-config", missing, "b.csv"}, "one file at a time, got 2"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("propertyd %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}
