package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// relBuildPropertyd builds this command into dir with the go tool that built
// the test (or the one on PATH) and returns the binary's path.
func relBuildPropertyd(t *testing.T, dir string) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build the propertyd binary with")
		}
	}
	bin := filepath.Join(dir, "propertyd")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// relProc is one running propertyd binary.
type relProc struct {
	cmd    *exec.Cmd
	base   string
	stderr *relLockedBuffer
	done   chan error
}

type relLockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *relLockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *relLockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	if len(s) > 4000 {
		s = "..." + s[len(s)-4000:]
	}
	return s
}

var relListeningRE = regexp.MustCompile(`listening on (http://\S+)`)

// relStartBinary runs bin with the config file and waits until it says where
// it listens.
func relStartBinary(t *testing.T, bin, config string) *relProc {
	t.Helper()
	p := &relProc{stderr: &relLockedBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(bin, "-config", config)
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := relListeningRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	select {
	case p.base = <-addr:
	case err := <-p.done:
		p.done <- err
		t.Fatalf("propertyd exited before listening: %v\n%s", err, p.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("propertyd did not say where it listens within 30s\n%s", p.stderr)
	}
	return p
}

// kill sends SIGKILL: no shutdown, no deferred close, no checkpoint.
func (p *relProc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9: %v", err)
	}
	<-p.done
}

// stop sends SIGTERM and waits for a clean exit. The client first drops
// its idle connections, as a client going away would: the server counts a
// connection that never carried a request as idle only after 5s.
func (p *relProc) stop(t *testing.T) {
	t.Helper()
	relClient.CloseIdleConnections()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("propertyd did not exit cleanly on SIGTERM: %v\n%s", err, p.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("propertyd did not exit within 20s of SIGTERM\n%s", p.stderr)
	}
}

// relCrashAddress is one address of the crash load: a place, a unit and a
// spelling (the canonical street or an alias), so several spellings name
// one record.
type relCrashAddress struct {
	place  sandbox.Place
	unit   string
	street string
}

// record is the identity of an address: the place id and unit.
func (a relCrashAddress) record() string { return a.place.ID + "/" + a.unit }

// relRecorder keeps every record returned to a client, by address record.
type relRecorder struct {
	mu   sync.Mutex
	recs map[string]map[string]any
	errs []string
	n    atomic.Int64
}

func (rc *relRecorder) add(a relCrashAddress, rec map[string]any) {
	for _, extra := range []string{"index", "client_id", "source", "match", "flood", "sections"} {
		delete(rec, extra)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if prev, ok := rc.recs[a.record()]; ok {
		if fmt.Sprint(prev) != fmt.Sprint(rec) {
			rc.errs = append(rc.errs, fmt.Sprintf("%s returned as %v and as %v", a.record(), prev, rec))
		}
		return
	}
	rc.recs[a.record()] = rec
	rc.n.Add(1)
}

// relRunCrashLoad sends every address once, from workers goroutines, as
// single lookups (some with include=flood) and batches of up to 5, and
// records what comes back, until the addresses run out or ctx ends. It
// returns how many requests failed at the transport (the server died).
func relRunCrashLoad(ctx context.Context, base string, addrs []relCrashAddress, workers int, rc *relRecorder) (transportErrors int64, unexpected []string) {
	var mu sync.Mutex
	var terr atomic.Int64
	next := make(chan []relCrashAddress)
	go func() {
		defer close(next)
		for i := 0; i < len(addrs); {
			n := 1
			if i%3 == 0 {
				n = min(5, len(addrs)-i)
			}
			select {
			case next <- addrs[i : i+n]:
			case <-ctx.Done():
				return
			}
			i += n
		}
	}()
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(unexpected) < 20 {
			unexpected = append(unexpected, fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for group := range next {
				if ctx.Err() != nil {
					continue
				}
				var rp relReply
				var err error
				if len(group) == 1 {
					a := group[0]
					include := ""
					if len(a.unit)%2 == 0 {
						include = "flood"
					}
					p := a.place
					p.Street = a.street
					rp, err = relTryCall(base, relKey.key, http.MethodGet, relLookupPath(p, a.unit, include), nil, nil)
				} else {
					items := make([]map[string]string, len(group))
					for i, a := range group {
						items[i] = map[string]string{"id": a.record(), "street": a.street + " " + a.unit,
							"city": a.place.City, "state": a.place.State, "zip": a.place.Zip}
					}
					body, _ := json.Marshal(map[string]any{"addresses": items})
					rp, err = relTryCall(base, relKey.key, http.MethodPost, "/v1/properties/batch", body, nil)
				}
				if err != nil {
					terr.Add(1)
					continue
				}
				if rp.status != 200 {
					fail("%s", rp)
					continue
				}
				d := rp.json()["data"].(map[string]any)
				if len(group) == 1 {
					rc.add(group[0], d)
					continue
				}
				if errs := d["errors"].([]any); len(errs) > 0 {
					fail("batch errors: %s", rp)
				}
				for _, res := range d["results"].([]any) {
					m := res.(map[string]any)
					rc.add(group[int(m["index"].(float64))], m)
				}
			}
		})
	}
	wg.Wait()
	return terr.Load(), unexpected
}

func relIntegrityCheck(t *testing.T, path string) {
	t.Helper()
	db := relOpenReadOnly(t, path)
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	if len(lines) != 1 || lines[0] != "ok" {
		t.Fatalf("integrity_check after the crash: %v", lines)
	}
}

// TestKill9MidLoadLosesNothing builds the binary, runs a lookup and batch
// load against it, kills it with SIGKILL mid-way and restarts it: every
// record a client was given is there with the same data, the database
// passes integrity_check, and resuming the load creates no duplicates.
func TestKill9MidLoadLosesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	dir := t.TempDir()
	bin := relBuildPropertyd(t, dir)

	sb := sandbox.New(sandbox.DefaultPlaces(), sandbox.Options{Seed: 3,
		// A little geocoder latency keeps lookups in flight when the kill comes.
		Faults: map[string]sandbox.Faults{sandbox.UpstreamCensus: {Latency: 2 * time.Millisecond, Jitter: 6 * time.Millisecond}}})
	root, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	dbPath := filepath.Join(dir, "data", "propertyd.db")
	config := filepath.Join(dir, "config.yaml")
	cfg := relConfig{root: root, db: dbPath, cacheMB: 16}
	if err := os.WriteFile(config, []byte(cfg.yaml()), 0o600); err != nil {
		t.Fatal(err)
	}

	// Every place with 60 units, half spelled with the place's alias: 420
	// records, 420 addresses, and the same records again under the other
	// spelling when the load resumes.
	var addrs, again []relCrashAddress
	for _, p := range sandbox.DefaultPlaces() {
		for u := range 60 {
			a := relCrashAddress{place: p, unit: fmt.Sprintf("APT %d", u+1), street: p.Street}
			b := a
			if len(p.Aliases) > 0 {
				b.street = p.Aliases[0]
			}
			if u%2 == 1 {
				a, b = b, a
			}
			addrs, again = append(addrs, a), append(again, b)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	rng.Shuffle(len(again), func(i, j int) { again[i], again[j] = again[j], again[i] })

	p1 := relStartBinary(t, bin, config)
	rc := &relRecorder{recs: map[string]map[string]any{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	loadDone := make(chan struct{})
	var terr int64
	var unexpected []string
	go func() {
		defer close(loadDone)
		terr, unexpected = relRunCrashLoad(ctx, p1.base, addrs, 8, rc)
	}()
	killAt := int64(len(addrs) / 3)
	if !relEventually(60*time.Second, func() bool { return rc.n.Load() >= killAt }) {
		t.Fatalf("only %d records returned in 60s\n%s", rc.n.Load(), p1.stderr)
	}
	p1.kill(t)
	<-loadDone
	cancel()
	if len(unexpected) > 0 {
		t.Fatalf("the load got answers other than 200 before the kill:\n%s", strings.Join(unexpected, "\n"))
	}
	if len(rc.errs) > 0 {
		t.Fatalf("one address got two different records:\n%s", strings.Join(rc.errs, "\n"))
	}
	returned := len(rc.recs)
	t.Logf("killed with %d of %d records returned; %d requests cut off", returned, len(addrs), terr)
	if returned >= len(addrs) {
		t.Fatalf("the load finished before the kill; nothing was cut off")
	}
	relIntegrityCheck(t, dbPath)

	// Restart: every record a client saw is there, field for field.
	p2 := relStartBinary(t, bin, config)
	for key, want := range rc.recs {
		id := int64(want["id"].(float64))
		rp, err := relTryCall(p2.base, relKey.key, http.MethodGet, fmt.Sprintf("/v1/properties/%d", id), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rp.status != 200 {
			t.Fatalf("record %d (%s), returned before the kill, after restart: %s", id, key, rp)
		}
		got := rp.json()["data"].(map[string]any)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("record %d (%s) changed across the crash:\nbefore %v\nafter  %v", id, key, want, got)
		}
	}

	// Resume: the whole load again under the other spellings. Records
	// seen before keep their ids; none is created twice.
	resumed := &relRecorder{recs: map[string]map[string]any{}}
	terr, unexpected = relRunCrashLoad(context.Background(), p2.base, again, 8, resumed)
	if terr > 0 || len(unexpected) > 0 {
		t.Fatalf("resumed load: %d transport errors, unexpected answers:\n%s", terr, strings.Join(unexpected, "\n"))
	}
	if len(resumed.recs) != len(addrs) {
		t.Fatalf("resumed load returned %d records for %d addresses", len(resumed.recs), len(addrs))
	}
	ids := map[float64]string{}
	for key, rec := range resumed.recs {
		if before, ok := rc.recs[key]; ok && before["id"] != rec["id"] {
			t.Fatalf("%s was id %v before the crash and %v after", key, before["id"], rec["id"])
		}
		if other, dup := ids[rec["id"].(float64)]; dup {
			t.Fatalf("%s and %s share id %v", key, other, rec["id"])
		}
		ids[rec["id"].(float64)] = key
	}
	if n := relDbCounts(t, dbPath)["properties"]; n != len(addrs) {
		t.Fatalf("%d property rows for %d distinct addresses: the crash or the resume duplicated records", n, len(addrs))
	}
	p2.stop(t)
	relIntegrityCheck(t, dbPath)
}
