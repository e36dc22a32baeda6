package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// client sends requests to one server over a pool of keep-alive
// connections. It is fasthttp's HostClient: on two cores the load generator
// shares the CPU with the server it measures, so it must cost as little per
// request as possible (net/http costs several times more).
type client struct {
	hc   *fasthttp.HostClient
	addr string
	key  string
	// want is the status every answer should have in a loop; 0 means 200.
	want int
}

func newClient(addr, key string, conns int) *client {
	return &client{addr: addr, key: key, hc: &fasthttp.HostClient{
		Addr:                addr,
		MaxConns:            conns,
		ReadTimeout:         60 * time.Second,
		WriteTimeout:        60 * time.Second,
		MaxIdleConnDuration: time.Minute,
		// The load generator reads every body in full but keeps none.
		MaxResponseBodySize: 16 << 20,
	}}
}

// request is one request to send.
type request struct {
	method string
	path   string // with the query
	body   []byte // JSON, for POST
}

func get(path string) request { return request{method: fasthttp.MethodGet, path: path} }

// do sends r and returns the status and a copy of the body.
func (c *client) do(r request) (int, []byte, error) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	c.prepare(req, r)
	if err := c.hc.Do(req, resp); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), nil
}

// doKeeping is do, and also returns the headers the baselines send with
// the body (see answer), their names spelled as sent: on a connection of
// its own, whose client leaves the names as they are.
func (c *client) doKeeping(r request) (int, []byte, string, error) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	c.prepare(req, r)
	hc := &fasthttp.HostClient{Addr: c.addr, DisableHeaderNamesNormalizing: true, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	defer hc.CloseIdleConnections()
	if err := hc.Do(req, resp); err != nil {
		return 0, nil, "", err
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), sentHeaders(&resp.Header), nil
}

// prepare fills req for r. It allocates nothing (the path and host are
// copied into req's own buffers): the load generator's garbage is
// collected in the middle of the loops it measures.
func (c *client) prepare(req *fasthttp.Request, r request) {
	req.Header.SetMethod(r.method)
	req.SetRequestURI(r.path)
	req.Header.SetHost(c.addr)
	if c.key != "" {
		req.Header.Set("X-API-Key", c.key)
	}
	if r.body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(r.body)
	}
}

// collectorOff stops the load generator's own garbage collector for a
// measured loop and returns what starts it again. The generator shares the
// machine with the server it measures: a collection of its own (its
// stop-the-world, its mark phase taking one of the two cores for tens of
// milliseconds) lands in whichever second of whichever server's loop it
// falls in, and once made a second of propertyd's p99 29 times bare
// Fiber's. What a loop allocates (its latencies) is collected before the
// next, and a limit of a gigabyte stays as a backstop.
func collectorOff() (restore func()) {
	settle()
	runtime.GC()
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(1 << 30)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

// settle writes the machine's dirty pages to disk before a measured loop:
// the seeded database, and propertyd's request log (a line per request,
// some 60 MB in a ten-second closed loop). Left to the kernel, pages are
// written back 30 seconds after they were dirtied, by kernel threads that
// take CPU from whichever loop is running then.
func settle() { syscall.Sync() }

// result is what a load run measured.
type result struct {
	requests  int
	failures  int // transport errors and statuses other than 200
	firstFail string
	elapsed   time.Duration
	latencies []time.Duration // sorted
	// windowP99 is the p99 of each second of an open loop (by when its
	// requests were due), in order: it tells a queue that grew all along
	// from a stall of the machine in one second.
	windowP99 []time.Duration
}

func (r result) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// percentile returns the p-th percentile (0..100) of the sorted latencies,
// by the nearest-rank method; zero when there are none.
func (r result) percentile(p float64) time.Duration {
	return percentile(r.latencies, p)
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// recorder collects the latencies and failures of one worker.
type recorder struct {
	want      int // the status expected; 0 means 200
	lat       []time.Duration
	window    []int32 // for an open loop: the second each request was due in
	failures  int
	firstFail string
}

func (rec *recorder) record(status int, err error, d time.Duration) {
	rec.lat = append(rec.lat, d)
	want := rec.want
	if want == 0 {
		want = fasthttp.StatusOK
	}
	if err != nil || status != want {
		if rec.failures == 0 {
			if err != nil {
				rec.firstFail = err.Error()
			} else {
				rec.firstFail = fmt.Sprintf("HTTP %d", status)
			}
		}
		rec.failures++
	}
}

func merge(recs []*recorder, elapsed time.Duration) result {
	var out result
	out.elapsed = elapsed
	for _, rec := range recs {
		out.latencies = append(out.latencies, rec.lat...)
		out.failures += rec.failures
		if out.firstFail == "" {
			out.firstFail = rec.firstFail
		}
	}
	out.requests = len(out.latencies)
	var windows [][]time.Duration
	for _, rec := range recs {
		for i, w := range rec.window {
			for int(w) >= len(windows) {
				windows = append(windows, nil)
			}
			windows[w] = append(windows[w], rec.lat[i])
		}
	}
	for _, w := range windows {
		slices.Sort(w)
		out.windowP99 = append(out.windowP99, percentile(w, 99))
	}
	slices.Sort(out.latencies)
	return out
}

// closedLoop keeps conns requests in flight (each worker sends its next
// request as soon as the previous one is answered) for d, cycling through
// reqs, and returns the throughput and latencies: the most the server
// answers with this client on this machine. With once set it stops
// earlier, after sending each of reqs once.
func (c *client) closedLoop(reqs []request, conns int, d time.Duration, once bool) result {
	defer collectorOff()()
	deadline := time.Now().Add(d)
	recs := make([]*recorder, conns)
	var next atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conns {
		rec := &recorder{lat: make([]time.Duration, 0, 4096), want: c.want}
		recs[w] = rec
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := fasthttp.AcquireRequest()
			resp := fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for {
				t0 := time.Now()
				if t0.After(deadline) {
					return
				}
				i := int(next.Add(1) - 1)
				if once && i >= len(reqs) {
					return
				}
				req.Reset()
				c.prepare(req, reqs[i%len(reqs)])
				err := c.hc.Do(req, resp)
				rec.record(resp.StatusCode(), err, time.Since(t0))
			}
		}()
	}
	wg.Wait()
	return merge(recs, time.Since(start))
}

// rotate runs one open loop at rate over the servers of cs, second by
// second: cs[i] sends in second i of every period of len(cs) seconds, n
// seconds in all, each from its own workers connections (so that a late
// answer of one server never delays a request to another), sending
// reqs[i]. It returns what each server's seconds measured, the k-th window
// of each being its k-th second, so that the k-th windows of all of them
// are len(cs) adjacent seconds. Against loops run one after the other, the
// seconds compared are a second or two apart rather than a whole loop
// apart: on a machine whose hiccups last a second or more, every server
// lives through them.
func rotate(cs []*client, reqs [][]request, rate float64, workers, n int) []result {
	defer collectorOff()()
	ss := rotation(time.Now(), len(cs), n)
	recs := make([][]*recorder, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i] = c.send(reqs[i], rate, workers, ss[i])
		}()
	}
	wg.Wait()
	// Merged once every loop is over: sorting a loop's latencies takes
	// tens of milliseconds of CPU, which would land in another server's
	// second.
	out := make([]result, len(cs))
	for i := range cs {
		out[i] = merge(recs[i], ss[i].sendTime())
	}
	return out
}

// rotation returns the slots of servers servers taking turns from start,
// a second each, n seconds each in all: server i sends in second i of
// every period of servers seconds.
func rotation(start time.Time, servers, n int) []slots {
	period := time.Duration(servers) * time.Second
	ss := make([]slots, servers)
	for i := range ss {
		first := start.Add(time.Duration(i) * time.Second)
		ss[i] = slots{start: first, on: time.Second, period: period, end: first.Add(time.Duration(n) * period)}
	}
	return ss
}

// slots is when a loop sends: from start until end, the first on of every
// period. A request's window is the period it was due in.
type slots struct {
	start, end time.Time
	on, period time.Duration
}

// next returns t, or, when t falls in the idle rest of a period, the same
// instant of the next period's sending time (so that staggered workers
// stay staggered), and whether that is still before end.
func (s slots) next(t time.Time) (time.Time, bool) {
	if s.on < s.period && t.Sub(s.start)%s.period >= s.on {
		t = t.Add(s.period - s.on)
	}
	return t, t.Before(s.end)
}

// sendTime is how long the loop sends in all.
func (s slots) sendTime() time.Duration {
	d := s.end.Sub(s.start)
	return d/s.period*s.on + min(d%s.period, s.on)
}

// send sends reqs at a constant total rate (requests per second) in the
// slots given, whatever the answers, from workers connections each keeping
// its own schedule (wrk2's way: no central dispatcher to slow the
// generator), and returns each worker's recorder, to merge. A request's
// latency runs from the moment it was due, not from when its worker got to
// send it, so a server that falls behind is charged for the queue it
// causes (no coordinated omission).
func (c *client) send(reqs []request, rate float64, workers int, s slots) []*recorder {
	recs := make([]*recorder, workers)
	interval := time.Duration(float64(time.Second) * float64(workers) / rate)
	var wg sync.WaitGroup
	var next atomic.Uint64
	for w := range workers {
		n := int(s.sendTime()/interval) + 16
		rec := &recorder{lat: make([]time.Duration, 0, n), window: make([]int32, 0, n)}
		recs[w] = rec
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := fasthttp.AcquireRequest()
			resp := fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			// Stagger the workers' schedules evenly over one interval.
			due := s.start.Add(time.Duration(float64(time.Second) * float64(w) / rate))
			for {
				var ok bool
				if due, ok = s.next(due); !ok {
					return
				}
				if wait := time.Until(due); wait > 0 {
					time.Sleep(wait)
				}
				req.Reset()
				c.prepare(req, reqs[int(next.Add(1)-1)%len(reqs)])
				err := c.hc.Do(req, resp)
				rec.record(resp.StatusCode(), err, time.Since(due))
				rec.window = append(rec.window, int32(due.Sub(s.start)/s.period))
				due = due.Add(interval)
			}
		}()
	}
	wg.Wait()
	return recs
}
