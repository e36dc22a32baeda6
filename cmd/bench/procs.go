package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/providers/service"
)

// allSections is the include= of the "all sections" scenarios: every
// section the catalogue offers, each of which configYAML configures.
var allSections = strings.Join(service.PublicSections(), ",")

// benchKey is the API key of the benchmark's client.
const benchKey = "propertyd-bench-key"

// spentKey is a key whose budget the instructions row spends: spentBurst
// tokens (at least the dearest request, as the config requires), refilled
// one a week, so that every request after the first spentBurst is a 429.
const (
	spentKey   = "propertyd-bench-spent-key"
	spentBurst = 10
)

// benchRequestTimeout is the request_timeout of the config the bench
// writes; the bare Fiber counted with propertyd's server timeouts beside
// the instructions row's verdict takes them from it, as propertyd does
// (gateway.ServerTimeouts).
const benchRequestTimeout = 30 * time.Second

// configYAML is the propertyd configuration of a run: the sandbox for
// every upstream, a key whose budget never throttles the load (its burst
// is a second's worth; a budget shared in Redis was once charged at each
// instance's own reading of the time, and a burst of a millisecond's worth
// refused requests whose instance read it a few milliseconds before
// another's charge, until the script read Redis's clock instead), and
// propertyd's defaults for everything else that shapes performance
// (timeouts, retries, memory limit, and batch concurrency unless
// batchConcurrency > 0). The outbound rate limits of the shipped
// config.yaml are left out: they pace the real public services and would
// measure the pacing, not propertyd. Fair market rents (HUD) are off, as
// shipped.
func configYAML(dbPath, sandboxRoot string, cacheMB, batchConcurrency int) string {
	base := sandbox.BaseURLs(sandboxRoot)
	sum, spent := sha256.Sum256([]byte(benchKey)), sha256.Sum256([]byte(spentKey))
	var b strings.Builder
	fmt.Fprintf(&b, `listen: "127.0.0.1:0"
database: %q
request_timeout: %q
shutdown_timeout: "5s"
cache:
  max_mb: %d
  record_ttl: "1h"
  miss_ttl: "1h"
keys:
  - name: bench
    sha256: %q
    rate: 1000000000
    burst: 1000000000
  - name: spent
    sha256: %q
    rate: 0.0000016
    burst: %d
`, dbPath, benchRequestTimeout.String(), cacheMB, hex.EncodeToString(sum[:]), hex.EncodeToString(spent[:]), spentBurst)
	if batchConcurrency > 0 {
		fmt.Fprintf(&b, "batch_concurrency: %d\n", batchConcurrency)
	}
	b.WriteString("providers:\n")
	for _, p := range []struct{ role, module string }{
		{"geocoder", "census"}, {"reverse_geocoder", "census"}, {"flood", "fema-nfhl"},
		{"demographics", "census-acs"}, {"amenities", "overpass"}, {"housing", "census-acs-housing"},
	} {
		fmt.Fprintf(&b, "  %s:\n    module: %s\n    base_url: %q\n", p.role, p.module, base[p.role])
	}
	b.WriteString("  walkscore:\n    module: osm-walk\n")
	b.WriteString("  fair_market_rent:\n    module: hud-fmr\n    disabled: true\n")
	// facts-warm loads facts while propertyd serves and waits for them.
	b.WriteString("facts:\n  refresh: \"1s\"\n")
	return b.String()
}

// buildPropertyd compiles cmd/propertyd into dir and returns the binary.
func buildPropertyd(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "propertyd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/propertyd/propertyd/cmd/propertyd")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building propertyd (run from inside the module): %w", err)
	}
	return bin, nil
}

// proc is a server running as a child process.
type proc struct {
	name string
	cmd  *exec.Cmd
	addr string // host:port it listens on
	log  string // file holding its stderr
	done chan error
	// started is when it was executed: start-up times run from here, not
	// from creating its log (truncating a big old log takes a while).
	started time.Time
	// profiles receives the address of propertyd's debug_listen, when it
	// prints one ("propertyd profiles on http://ADDR/debug/pprof/").
	profiles chan string
}

var (
	listeningRE = regexp.MustCompile(`listening on http://(\S+)`)
	profilesRE  = regexp.MustCompile(`profiles on http://(\S+)/debug/pprof/`)
)

// startProc starts bin with args, its stderr going to logPath, and waits
// for the "... listening on http://ADDR" line on its stdout.
func startProc(name, bin, logPath string, env []string, args ...string) (*proc, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan error, 1), started: started, profiles: make(chan string, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			if m := profilesRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case p.profiles <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, out) //nolint:errcheck // drain until exit
	}()
	go func() {
		p.done <- cmd.Wait()
		logf.Close()
	}()
	select {
	case p.addr = <-addr:
		return p, nil
	case err := <-p.done:
		p.done <- err
		return nil, fmt.Errorf("%s exited before listening (%v); see %s:\n%s", name, err, logPath, tail(logPath))
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, fmt.Errorf("%s did not say where it listens within 60s; see %s", name, logPath)
	}
}

// waitReady polls url until it answers 200.
func waitReady(p *proc, url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body) //nolint:errcheck // only the status matters
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("%s exited (%v); see %s:\n%s", p.name, err, p.log, tail(p.log))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready at %s after %s", p.name, url, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for the process to exit (SIGKILL after 15s).
func (p *proc) stop() error {
	if p == nil || p.cmd.Process == nil {
		return nil
	}
	p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
	select {
	case err := <-p.done:
		p.done <- err
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s exited with %v; see %s", p.name, err, p.log)
		}
		return err
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill() //nolint:errcheck // last resort
		return fmt.Errorf("%s did not stop within 15s of SIGTERM", p.name)
	}
}

// kill ends the process with SIGKILL and waits for it to exit: for a
// process whose shutdown says nothing, and callgrind, which fails an
// assertion of its own when the program it runs handles a signal while it
// stops.
func (p *proc) kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Kill() //nolint:errcheck // it may have exited
	err := <-p.done
	p.done <- err
}

// memStatus is the memory of a process as /proc/PID/status tells it, in
// bytes: resident (VmRSS), its peak (VmHWM), and the resident anonymous
// memory (RssAnon: the Go heap, SQLite's page caches) and file pages
// (RssFile: the binary, mapped files).
type memStatus struct {
	rss, peak, anon, file int64
}

// memory reads the process's memStatus.
func (p *proc) memory() (memStatus, error) {
	var m memStatus
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return m, err
	}
	fields := map[string]*int64{"VmRSS": &m.rss, "VmHWM": &m.peak, "RssAnon": &m.anon, "RssFile": &m.file}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		dst := fields[name]
		if !ok || dst == nil {
			continue
		}
		f := strings.Fields(v) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			*dst = kb << 10
		}
	}
	if m.rss == 0 {
		return m, fmt.Errorf("no VmRSS in /proc/%d/status", p.cmd.Process.Pid)
	}
	return m, nil
}

// gcTraceRE matches the heap figures of a GODEBUG=gctrace=1 line:
// "... 41->43->21 MB, 44 MB goal, ...": heap at the start and end of the
// collection, live heap marked, and the goal of the next one.
var gcTraceRE = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

// lastGC returns the live heap and heap goal, in MB, of the last garbage
// collection the process logged (it runs with GODEBUG=gctrace=1).
func (p *proc) lastGC() (live, goal int, ok bool) {
	// Only the end of the log: it holds an access-log line per request.
	f, err := os.Open(p.log)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	const window = 8 << 20
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		f.Seek(fi.Size()-window, io.SeekStart) //nolint:errcheck // a failed seek reads from the start
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return 0, 0, false
	}
	all := gcTraceRE.FindAllSubmatch(b, -1)
	if len(all) == 0 {
		return 0, 0, false
	}
	m := all[len(all)-1]
	live, _ = strconv.Atoi(string(m[3]))
	goal, _ = strconv.Atoi(string(m[4]))
	return live, goal, true
}

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}
