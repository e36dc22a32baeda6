package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionSaysTheCommitAndDate prints the version of a build go build
// stamped in a git checkout, of one with changes not committed, and of one
// it did not stamp; propertyd version and propertyd --version print the
// same with exit 0.
func TestVersionSaysTheCommitAndDate(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Path: "github.com/propertyd/propertyd", Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "9f2c1e0d4b7a6c5e8f9a0b1c2d3e4f5a6b7c8d9e"},
		{Key: "vcs.time", Value: "2026-11-20T10:42:00Z"}, {Key: "vcs.modified", Value: "false"},
	}}
	if got, want := versionText(stamped), "propertyd v1.4.0\ncommit:  9f2c1e0d4b7a6c5e8f9a0b1c2d3e4f5a6b7c8d9e\ndate:    2026-11-20T10:42:00Z\ngo:      "+runtime.Version()+"\n"; got != want {
		t.Errorf("a stamped build:\n%s\nwant:\n%s", got, want)
	}
	stamped.Settings[3].Value = "true"
	if got := versionText(stamped); !strings.Contains(got, "commit:  9f2c1e0d4b7a6c5e8f9a0b1c2d3e4f5a6b7c8d9e (with changes not committed)\n") {
		t.Errorf("a build with changes:\n%s", got)
	}
	if got, want := versionText(nil), "propertyd unknown\ncommit:  unknown\ndate:    unknown\ngo:      "+runtime.Version()+"\n"; got != want {
		t.Errorf("an unstamped build:\n%s\nwant:\n%s", got, want)
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errs := runCLI(args...)
		if code != exitOK || !strings.HasPrefix(out, "propertyd ") || !strings.Contains(out, "\ncommit:  ") || !strings.Contains(out, "\ndate:    ") || errs != "" {
			t.Errorf("propertyd %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
		}
	}
	if code, _, errs := runCLI("version", "extra"); code != exitUsage || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("propertyd version extra: exit %d, %q", code, errs)
	}
}
