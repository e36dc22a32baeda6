// Command testsummary runs go test and tells what it skipped: make test
// runs the tests through it, so a run without PostgreSQL or Redis says so
// at its end instead of reading as a full pass ("ok .../store/postgres
// 0.038s" is printed for a package whose every test skipped).
//
// Usage:
//
//	go run ./cmd/testsummary [go test flags] [packages]
//
// It runs "go test -json" with the arguments, prints what go test prints
// without -json (a line per package, the output of failed tests, build
// errors), then one line grouping the skipped tests by the reason they
// gave, with their packages, and last the plain line "N passed, N failed"
// (tests, subtests included). It exits with go test's status.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

func main() {
	cmd := exec.Command("go", append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	var s summary
	s.read(out, os.Stdout, os.Stderr)
	err = cmd.Wait()
	code := 0
	if err != nil {
		code = 1
		if exit, ok := errors.AsType[*exec.ExitError](err); ok {
			code = exit.ExitCode()
		}
		fmt.Fprintln(os.Stdout, "FAIL") // what go test ends a failed run with
	}
	s.report(os.Stdout)
	os.Exit(code)
}

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output events
	Test       string
	Output     string
}

// summary collects a run's events: each test's output until it ends, and
// the counts and skip reasons reported at the end.
type summary struct {
	pending        map[string][]string // output of tests still running, by package and test
	passed, failed int
	skips          map[string][]string // packages by reason, in order of first skip
	reasons        []string
}

// read consumes go test -json output from r, writing what plain go test
// would write: package results and failed tests' output to stdout, build
// errors to stderr. A line that is not an event is copied as it is.
func (s *summary) read(r io.Reader, stdout, stderr io.Writer) {
	s.pending = map[string][]string{}
	s.skips = map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(stdout, sc.Text())
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(stderr, e.Output)
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" { // plain go test prints only "ok" for a passing package
				fmt.Fprint(stdout, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			// A test binary that crashed ends tests that never reported:
			// show what they printed.
			for k, lines := range s.pending {
				if strings.HasPrefix(k, e.Package+"\x00") {
					fmt.Fprint(stdout, strings.Join(shown(lines), ""))
					delete(s.pending, k)
				}
			}
		case e.Test == "":
		case e.Action == "output":
			s.pending[key] = append(s.pending[key], e.Output)
		case e.Action == "pass":
			s.passed++
			delete(s.pending, key)
		case e.Action == "fail":
			s.failed++
			fmt.Fprint(stdout, strings.Join(shown(s.pending[key]), ""))
			delete(s.pending, key)
		case e.Action == "skip":
			s.skip(e.Package, skipReason(s.pending[key]))
			delete(s.pending, key)
		}
	}
}

// skip counts one skipped test of pkg under reason.
func (s *summary) skip(pkg, reason string) {
	if _, ok := s.skips[reason]; !ok {
		s.reasons = append(s.reasons, reason)
	}
	s.skips[reason] = append(s.skips[reason], pkg)
}

// report writes the skipped tests, grouped by reason, on one line, then
// the passed and failed counts on the last.
func (s *summary) report(w io.Writer) {
	if len(s.reasons) == 0 {
		fmt.Fprintln(w, "skipped: none")
	} else {
		groups := make([]string, len(s.reasons))
		for i, reason := range s.reasons {
			pkgs := s.skips[reason]
			n := len(pkgs)
			pkgs = slices.Compact(slices.Sorted(slices.Values(pkgs)))
			for j, p := range pkgs {
				pkgs[j] = shortPackage(p)
			}
			groups[i] = fmt.Sprintf("%d %s in %s: %s", n, plural(n, "test", "tests"), strings.Join(pkgs, ", "), reason)
		}
		fmt.Fprintf(w, "skipped: %s\n", strings.Join(groups, "; "))
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", s.passed, s.failed)
}

// shown drops the lines -json adds and plain go test does not print for a
// failed test ("=== RUN" and the like).
func shown(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			out = append(out, l)
		}
	}
	return out
}

var logPrefix = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// skipReason is what a skipped test said when it skipped: its last line
// of output before "--- SKIP", without the file:line prefix.
func skipReason(lines []string) string {
	reason := "(no reason given)"
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		if strings.HasPrefix(strings.TrimSpace(l), "--- SKIP") || strings.HasPrefix(l, "=== ") || strings.TrimSpace(l) == "" {
			continue
		}
		if logPrefix.MatchString(l) {
			reason = logPrefix.ReplaceAllString(l, "")
		}
	}
	return reason
}

// modulePath starts the import path of every package of the module.
const modulePath = "github.com/propertyd/propertyd/"

// shortPackage drops the module path, which every package shares.
func shortPackage(p string) string { return strings.TrimPrefix(p, modulePath) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
