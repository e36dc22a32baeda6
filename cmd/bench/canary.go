package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The canary tells the machine's stalls from the servers' own: a process of
// its own (this binary with -canary, GOMAXPROCS 1) that does nothing but
// sleep canaryNap at a time, and says each time it woke later than
// canaryLate. It runs under the real-time FIFO policy (chrt -f), so that
// on waking it takes a CPU from whatever runs there at once: it then waits
// for nothing but the kernel and the hypervisor, and a late wake-up in one
// of a server's seconds is a stall that any server would have lived
// through. (Under the ordinary policy it waited for the loaded CPUs too: 80
// wake-ups more than 1 ms late in 8 s beside a loaded bare Fiber, 3 under
// FIFO.) It runs beside the open loops; their seconds are then read with
// and without the ones in which it woke late (see stallFree).
const (
	canaryNap  = time.Millisecond
	canaryLate = time.Millisecond
	// canaryStall is how late a wake-up must be for its second to count as
	// a stall of the machine: about bare Fiber's own p99 per second at half
	// its rate on this machine (1.1 to 2.5 ms), so that a stall that long
	// can make a second's p99 by itself.
	canaryStall = 2 * time.Millisecond
)

// serveCanary sleeps canaryNap at a time until SIGTERM or SIGINT and writes
// "UNIX_NANO LATE_NANO" to w for each wake-up more than canaryLate late.
func serveCanary(w io.Writer) error {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "canary sleeping")
	if err := bw.Flush(); err != nil {
		return err
	}
	for {
		select {
		case <-stop:
			return bw.Flush()
		default:
		}
		t := time.Now()
		time.Sleep(canaryNap)
		if late := time.Since(t) - canaryNap; late > canaryLate {
			fmt.Fprintf(bw, "%d %d\n", t.Add(canaryNap).UnixNano(), int64(late))
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
}

// wakeup is one late wake-up of the canary: when it was due and how late
// it came.
type wakeup struct {
	due  time.Time
	late time.Duration
}

// canary is a running canary process.
type canary struct {
	// realtime is whether it runs under the FIFO policy; without chrt, or
	// where the policy is refused, it runs as an ordinary process and its
	// wake-ups count CPU contention as stalls.
	realtime bool
	cmd      *exec.Cmd
	mu       sync.Mutex
	seen     []wakeup
	done     chan struct{}
}

// startCanary starts this binary as the canary, real-time when it can, and
// returns once it sleeps.
func startCanary() (*canary, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if chrt, err := exec.LookPath("chrt"); err == nil {
		if c, err := runCanary(exec.Command(chrt, "-f", "50", self, "-canary")); err == nil {
			c.realtime = true
			return c, nil
		}
	}
	return runCanary(exec.Command(self, "-canary"))
}

// runCanary starts cmd, the canary, and returns once it sleeps.
func runCanary(cmd *exec.Cmd) (*canary, error) {
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the canary: %w", err)
	}
	c := &canary{cmd: cmd, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			close(ready)
		}
		for sc.Scan() {
			due, late, ok := strings.Cut(sc.Text(), " ")
			d, err1 := strconv.ParseInt(due, 10, 64)
			l, err2 := strconv.ParseInt(late, 10, 64)
			if ok && err1 == nil && err2 == nil {
				c.mu.Lock()
				c.seen = append(c.seen, wakeup{time.Unix(0, d), time.Duration(l)})
				c.mu.Unlock()
			}
		}
	}()
	select {
	case <-ready:
		return c, nil
	case <-c.done:
		cmd.Wait() //nolint:errcheck // reporting that it never slept
		return nil, fmt.Errorf("the canary exited before it slept")
	case <-time.After(10 * time.Second):
		cmd.Process.Kill() //nolint:errcheck // it never said it sleeps
		cmd.Wait()         //nolint:errcheck
		return nil, fmt.Errorf("the canary did not start within 10s")
	}
}

// stop ends the canary and returns its late wake-ups.
func (c *canary) stop() []wakeup {
	c.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
	<-c.done
	c.cmd.Wait() //nolint:errcheck // what it said is what counts
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

// lateness returns, for each window of s (n of them), the latest the
// canary woke in it: how far the machine stalled in that second of the
// loop.
func lateness(seen []wakeup, s slots, n int) []time.Duration {
	out := make([]time.Duration, n)
	for _, w := range seen {
		at := w.due.Sub(s.start)
		if at < 0 || at%s.period >= s.on {
			continue
		}
		if i := int(at / s.period); i < n && w.late > out[i] {
			out[i] = w.late
		}
	}
	return out
}

// stallFree is worstSecond over the pairs in which the canary woke no more
// than canaryStall late in either server's second, and how many such pairs
// there were.
func stallFree(p, bare, pLate, bareLate []time.Duration) (ratio float64, pair, pairs int) {
	var ps, bs []time.Duration
	var index []int
	for i := range min(len(p), len(bare), len(pLate), len(bareLate)) {
		if pLate[i] <= canaryStall && bareLate[i] <= canaryStall {
			ps, bs, index = append(ps, p[i]), append(bs, bare[i]), append(index, i)
		}
	}
	if len(index) == 0 {
		return 0, -1, 0
	}
	ratio, at := worstSecond(ps, bs)
	return ratio, index[at], len(index)
}
