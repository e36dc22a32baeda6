package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The instructions row counts the CPU a warm GET costs the server, in
// instructions, under valgrind's callgrind: a count that does not depend
// on what else the machine does, where every timing on two shared cores
// does. Each server runs on its own under callgrind; the bench warms it
// up, then twice zeroes its counters (callgrind_control -z), sends a
// number of requests and dumps the counters (callgrind_control -d). The
// figure per request is the difference of the two dumps' totals over the
// difference of their request counts, (I2 - I1) / (N2 - N1): what every
// counted stretch costs apart from its requests (the runtime's background
// work while the counters are read and reset, the first answers on a
// connection that sat idle) cancels out, which I / N would only dilute.
//
// The counts are of the server's process only, in user space, all its
// threads: valgrind cannot see the kernel (the system calls' own work,
// the same for every server of the same bytes), and the client runs
// outside it.
const (
	// countConns is the closed loop's connections: few, so that callgrind,
	// which runs the server's threads one at a time, is not asked to keep
	// many requests waiting.
	countConns = 4
	// countEnv turns off the Go runtime's asynchronous preemption, whose
	// signals valgrind delivers slowly and which would add their own
	// instructions.
	countEnv = "GODEBUG=asyncpreemptoff=1"
)

// countSizes are the request counts of the instructions row: a warm-up,
// then the two counted stretches.
type countSizes struct{ warm, n1, n2 int }

// countSizesFor returns the counts for -count-requests n: the first counted
// stretch a fifth of the second, the warm-up a tenth.
func countSizesFor(n int) countSizes {
	return countSizes{warm: max(n/10, 1), n1: max(n/5, 1), n2: n}
}

// noCallgrind says why the instructions row cannot run ("" when it can).
func noCallgrind() string {
	for _, tool := range []string{"valgrind", "callgrind_control"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " not found (the row needs valgrind: apt-get install valgrind)"
		}
	}
	return ""
}

// instructions counts the instructions per warm GET by id of propertyd,
// of bare Fiber and of bare fasthttp, each serving the same bytes, and
// adds the row: propertyd against bare Fiber, bare fasthttp beside it.
func (b *bench) instructions(ctx context.Context) error {
	r := row{
		scenario: "CPU per warm GET /v1/properties/{id}: instructions, server side only (callgrind)",
		target:   "<= 1.25 x bare Fiber's (bare fasthttp's beside it)",
	}
	if why := noCallgrind(); why != "" {
		b.skip(r, why)
		return nil
	}
	rec, _, err := b.fetchRecord(get(lookupPath(b.places[0], "")), false)
	if err != nil {
		return fmt.Errorf("first lookup of %s: %w", b.places[0].ID, err)
	}
	byID := get(fmt.Sprintf("/v1/properties/%d", rec.Data.ID))
	_, body, headers, err := fetchAnswer(b.pc, byID, false)
	if err != nil {
		return fmt.Errorf("GET %s: %w", byID.path, err)
	}
	// The baselines send propertyd's answer, headers included; the body
	// alone is the former baseline, kept beside it.
	dir, plain := filepath.Join(b.tmp, "bodies-instructions"), filepath.Join(b.tmp, "bodies-instructions-plain")
	for _, d := range []string{dir, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := keepAnswer(dir, "get", body, headers); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(plain, "get.json"), body, 0o644); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	sizes := countSizesFor(b.o.countRequests)
	// propertyd is a second instance on the same config and database as
	// the one the warm GET row measures, its cache warmed by the warm-up.
	servers := []struct {
		name, bin string
		env, args []string
		key       string
		r         request
	}{
		{"bare Fiber", self, nil, []string{"-serve-bare", "127.0.0.1:0", "-bodies", dir}, benchKey, get("/get")},
		{"bare fasthttp", self, nil, []string{"-serve-bare-fasthttp", "127.0.0.1:0", "-bodies", dir}, benchKey, get("/get")},
		{"propertyd", b.bin, b.o.env, []string{"-config", b.cfgPath}, benchKey, byID},
		// Beside the verdict: bare Fiber with propertyd's server timeouts,
		// for which fasthttp sets each connection's deadlines request by
		// request (propertyd arms them lazily, see gateway/conns.go), and
		// the former baseline, the body alone to a request without a key.
		{"bare Fiber, timeouts", self, nil, append([]string{"-serve-bare", "127.0.0.1:0", "-bodies", dir}, propertydTimeouts()...), benchKey, get("/get")},
		{"bare Fiber, body only", self, nil, []string{"-serve-bare", "127.0.0.1:0", "-bodies", plain}, "", get("/get")},
	}
	per := make([]float64, len(servers))
	var refused float64 // propertyd's instructions per 429
	for i, s := range servers {
		if err := ctx.Err(); err != nil {
			return err
		}
		slug := strings.ReplaceAll(s.name, " ", "-")
		out := filepath.Join(b.tmp, "callgrind."+slug)
		p, err := startCallgrind(s.name, s.bin, out, filepath.Join(b.tmp, slug+"-callgrind.log"), s.env, s.args...)
		if err != nil {
			return err
		}
		per[i], err = countInstructions(p, out, newClient(p.addr, s.key, countConns), s.r, sizes, 0)
		if err == nil && s.bin == b.bin {
			refused, err = b.countRefused(p, out, s.r, sizes)
		}
		p.kill() // what it counted is in its dumps
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		b.logf("instructions per warm GET, %s: %s", s.name, thousands(int64(per[i]+0.5)))
	}
	fiber, fast, prop, timed, former := per[0], per[1], per[2], per[3], per[4]
	ratio := prop / fiber
	r.measured = fmt.Sprintf("propertyd %s, bare Fiber %s, bare fasthttp %s instructions per request, the baselines sending propertyd's answer, its headers included, to its request "+
		"(the server process's user space, all threads; (I2 - I1) / (N2 - N1) over N1 = %s and N2 = %s requests on %d connections, after %s to warm up); %.2f x bare fasthttp; "+
		"beside them, bare Fiber with propertyd's server timeouts %s (%.2f x), and sending the body alone to a request without a key %s (%.2f x)",
		thousands(int64(prop+0.5)), thousands(int64(fiber+0.5)), thousands(int64(fast+0.5)),
		thousands(int64(sizes.n1)), thousands(int64(sizes.n2)), countConns, thousands(int64(sizes.warm)), prop/fast,
		thousands(int64(timed+0.5)), prop/timed, thousands(int64(former+0.5)), prop/former)
	r.ratio = fmt.Sprintf("%.2f x bare Fiber", ratio)
	r.met = ratio <= 1.25
	b.add(r)
	b.add(row{
		scenario: "CPU per 429 of GET /v1/properties/{id} (a key over its budget): instructions, server side only (callgrind)",
		target:   "<= 1.00 x propertyd's warm GET (the row above): a client that ignores Retry-After costs no more than one that is served",
		measured: fmt.Sprintf("propertyd %s instructions per 429 against %s per warm GET, counted alike on the same process after it "+
			"(the refused key's burst spent, then (I2 - I1) / (N2 - N1) over N1 = %s and N2 = %s requests on %d connections, after %s to warm up)",
			thousands(int64(refused+0.5)), thousands(int64(prop+0.5)), thousands(int64(sizes.n1)), thousands(int64(sizes.n2)),
			countConns, thousands(int64(sizes.warm))),
		ratio: fmt.Sprintf("%.2f x the warm GET", refused/prop),
		met:   refused <= prop,
	})
	return nil
}

// countRefused counts, on propertyd under callgrind (p, its dumps at out,
// two made already by the warm GET's count), the instructions per request
// r sent with spentKey, whose budget never refills within the run: every
// one is answered 429 once the first spentBurst spend the burst.
func (b *bench) countRefused(p *proc, out string, r request, sizes countSizes) (float64, error) {
	c := newClient(p.addr, spentKey, countConns)
	for range spentBurst {
		if status, body, err := c.do(r); err != nil || status != 200 {
			return 0, fmt.Errorf("spending the refused key's burst: %d %v %s", status, err, body)
		}
	}
	c.want = 429
	n, err := countInstructions(p, out, c, r, sizes, 2)
	if err != nil {
		return 0, fmt.Errorf("counting 429s: %w", err)
	}
	b.logf("instructions per 429, propertyd: %s", thousands(int64(n+0.5)))
	return n, nil
}

// startCallgrind starts bin with args under callgrind, its counts dumped
// into out.1, out.2, ..., and waits until it answers GET /readyz or GET
// /get (the baselines'): under callgrind a start-up takes seconds.
func startCallgrind(name, bin, out, logPath string, env []string, args ...string) (*proc, error) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return nil, err
	}
	vgArgs := append([]string{"--tool=callgrind", "--callgrind-out-file=" + out, bin}, args...)
	env = append([]string{countEnv}, env...)
	env = append(env, godebugWith(append(os.Environ(), env...), noRDTSCP))
	p, err := startProc(name+" under callgrind", vg, logPath, env, vgArgs...)
	if err != nil {
		return nil, err
	}
	path := "/get"
	if slices.Contains(args, "-config") {
		path = "/readyz"
	}
	if err := waitReady(p, "http://"+p.addr+path, 3*time.Minute); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// noRDTSCP has the Go runtime read the clock with RDTSC, not RDTSCP
// (runtime.cputicks, which every lock that spins reads): valgrind 3.19,
// Debian 12's, does not know RDTSCP (0F 01 F9) and raises SIGILL, which
// killed a server under callgrind at its first contended lock on a CPU
// that has the instruction. Every server counted runs with it alike.
const noRDTSCP = "cpu.rdtscp=off"

// godebugWith is the GODEBUG entry of an environment env (the last
// GODEBUG in it wins, as in exec.Cmd) with setting added.
func godebugWith(env []string, setting string) string {
	v := ""
	for _, e := range env {
		if rest, ok := strings.CutPrefix(e, "GODEBUG="); ok {
			v = rest
		}
	}
	if v != "" {
		v += ","
	}
	return "GODEBUG=" + v + setting
}

// countInstructions warms up the server of p, under callgrind with its
// dumps at out.N, then counts two stretches of requests r through c and
// returns the instructions per request (see the top of this file). dumps
// is how many dumps the process has made before (its next is out.dumps+1).
func countInstructions(p *proc, out string, c *client, r request, sizes countSizes, dumps int) (float64, error) {
	send := func(n int) error {
		res := c.closedLoop(slices.Repeat([]request{r}, n), countConns, time.Hour, true)
		if f := failure(res); f != "" {
			return errors.New(f)
		}
		return nil
	}
	if err := send(sizes.warm); err != nil {
		return 0, err
	}
	pid := strconv.Itoa(p.cmd.Process.Pid)
	var totals [2]int64
	for i, n := range []int{sizes.n1, sizes.n2} {
		if err := callgrindControl("-z", pid); err != nil {
			return 0, err
		}
		if err := send(n); err != nil {
			return 0, err
		}
		if err := callgrindControl("-d", pid); err != nil {
			return 0, err
		}
		f, err := os.Open(fmt.Sprintf("%s.%d", out, dumps+i+1))
		if err != nil {
			return 0, fmt.Errorf("callgrind's dump: %w", err)
		}
		totals[i], err = callgrindTotal(f)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("callgrind's dump %s: %w", f.Name(), err)
		}
	}
	if totals[1] <= totals[0] {
		return 0, fmt.Errorf("%d requests counted %d instructions, %d requests %d: no figure per request", sizes.n1, totals[0], sizes.n2, totals[1])
	}
	return float64(totals[1]-totals[0]) / float64(sizes.n2-sizes.n1), nil
}

// callgrindControl runs callgrind_control with a command (-z zero, -d
// dump) for the process pid; it returns once callgrind has carried it
// out.
func callgrindControl(command, pid string) error {
	out, err := exec.Command("callgrind_control", command, pid).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		return fmt.Errorf("callgrind_control %s %s: %v: %s", command, pid, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// callgrindTotal reads the total count of instructions (the event Ir) from
// a callgrind dump: its "totals:" line, or the older "summary:" line, in
// the column of Ir in the "events:" line.
func callgrindTotal(r io.Reader) (int64, error) {
	col := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		switch key {
		case "events":
			col = slices.Index(fields, "Ir")
			if col < 0 {
				return 0, fmt.Errorf("the dump counts %q, not Ir (instructions)", rest)
			}
		case "totals", "summary":
			if col < 0 {
				return 0, fmt.Errorf("%s: before any events: line", key)
			}
			if col >= len(fields) {
				return 0, fmt.Errorf("%s: no column %d in %q", key, col+1, rest)
			}
			return strconv.ParseInt(fields[col], 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no totals: or summary: line")
}
