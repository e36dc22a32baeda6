package main

import (
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
		for _, cmd := range []string{"serve", "check-config", "keys new", "migrate", "import FILE.csv", "copy", "help [command]", "4 import finished"} {
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
