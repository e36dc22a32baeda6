package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version serves "propertyd version" and "propertyd --version": the
// module version, the commit the binary was built from and its time, and
// the Go release, as go build stamps them (see versionText).
func version(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info))
	return exitOK
}

// versionText words what info says of the build. go build stamps
// vcs.revision and vcs.time (the commit's time) when it builds in a git
// checkout, and vcs.modified when the work tree had changes; a build
// without them (go run, go test, a tree outside git, -buildvcs=false)
// says "unknown". info may be nil.
func versionText(info *debug.BuildInfo) string {
	mod, commit, at, modified := "unknown", "unknown", "unknown", false
	if info != nil {
		if v := info.Main.Version; v != "" {
			mod = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += " (with changes not committed)"
	}
	return fmt.Sprintf("propertyd %s\ncommit:  %s\ndate:    %s\ngo:      %s\n", mod, commit, at, runtime.Version())
}
