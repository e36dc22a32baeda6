package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // read-only checks of the database file

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// The reliability tests run propertyd for real (Main on port 0, or the
// built binary) against the upstream sandbox over real HTTP, and look at
// what a client sees: statuses, problem details, section statuses, the
// rows in the database file and the calls the sandbox received.

// relTestKey is one API key of a test configuration.
type relTestKey struct {
	name, key string
	rate      float64
	burst     int
}

// relKey is the key every reliability test sends unless it says otherwise:
// fast enough that rate limiting never shapes a fault test.
var relKey = relTestKey{name: "reliability", key: "reliability-test-key", rate: 10000, burst: 10000}

// relProviderKnobs override the guard settings of one role in a test config.
type relProviderKnobs struct {
	timeout  string // per-call timeout
	retries  int
	failures int    // consecutive failures that open the breaker
	openFor  string // how long the breaker stays open
	ttl      string // section freshness
	refresh  string // background or sync; empty leaves the default
}

// relConfig describes a propertyd configuration pointed at a sandbox.
type relConfig struct {
	root string // sandbox root URL
	db   string // SQLite file
	keys []relTestKey
	// defaults apply to every role; knobs override them per role.
	defaults relProviderKnobs
	knobs    map[string]relProviderKnobs
	// walkScoreAPI serves walkscore with the walkscore-api module (the
	// sandbox's Walk Score API) instead of osm-walk; hud adds hud-fmr.
	walkScoreAPI, hud bool
	requestTimeout    string
	cacheMB           int
	bodyLimit         int
	// redis and redisPrefix, when redis is set, make the instance one of a
	// fleet sharing that Redis.
	redis, redisPrefix string
	// acsKey, when set, is the census-acs modules' api_key.
	acsKey string
}

// relDefaultKnobs are short enough that a hanging upstream or an open breaker
// costs a test well under a second, and long enough for a healthy sandbox
// answer on a busy two-core machine.
var relDefaultKnobs = relProviderKnobs{timeout: "2s", retries: 2, failures: 3, openFor: "300ms"}

// yaml renders the configuration file.
func (c relConfig) yaml() string {
	if c.defaults == (relProviderKnobs{}) {
		c.defaults = relDefaultKnobs
	}
	if len(c.keys) == 0 {
		c.keys = []relTestKey{relKey}
	}
	if c.requestTimeout == "" {
		c.requestTimeout = "10s"
	}
	if c.bodyLimit == 0 {
		c.bodyLimit = 65536
	}
	urls := sandbox.BaseURLs(c.root)
	var b strings.Builder
	fmt.Fprintf(&b, "listen: \"127.0.0.1:0\"\ndatabase: %q\nrequest_timeout: %q\nshutdown_timeout: \"15s\"\n", c.db, c.requestTimeout)
	fmt.Fprintf(&b, "body_limit_bytes: %d\nbatch_concurrency: 8\n", c.bodyLimit)
	fmt.Fprintf(&b, "cache: {max_mb: %d, record_ttl: \"1h\", miss_ttl: \"1h\"}\nkeys:\n", c.cacheMB)
	for _, k := range c.keys {
		fmt.Fprintf(&b, "  - {name: %q, sha256: %q, rate: %g, burst: %d}\n", k.name, relHashKey(k.key), k.rate, k.burst)
	}
	if c.redis != "" {
		fmt.Fprintf(&b, "redis: {url: %q, prefix: %q}\n", c.redis, c.redisPrefix)
	}
	b.WriteString("providers:\n")
	role := func(role, module string, options map[string]string) {
		k := c.defaults
		if o, ok := c.knobs[role]; ok {
			k = o
		}
		fmt.Fprintf(&b, "  %s:\n    module: %s\n", role, module)
		if module != "osm-walk" {
			fmt.Fprintf(&b, "    base_url: %q\n", urls[role])
		}
		fmt.Fprintf(&b, "    timeout: %q\n    retries: %d\n    breaker: {failures: %d, open_for: %q}\n", k.timeout, k.retries, k.failures, k.openFor)
		if k.ttl != "" {
			fmt.Fprintf(&b, "    ttl: %q\n", k.ttl)
		}
		if k.refresh != "" && role != "geocoder" && role != "reverse_geocoder" {
			fmt.Fprintf(&b, "    refresh: %q\n", k.refresh)
		}
		if len(options) > 0 {
			names := make([]string, 0, len(options))
			for n := range options {
				names = append(names, n)
			}
			sort.Strings(names)
			b.WriteString("    options:\n")
			for _, n := range names {
				fmt.Fprintf(&b, "      %s: %q\n", n, options[n])
			}
		}
	}
	role("geocoder", "census", nil)
	role("reverse_geocoder", "census", nil)
	role("flood", "fema-nfhl", nil)
	var acs map[string]string
	if c.acsKey != "" {
		acs = map[string]string{"api_key": c.acsKey}
	}
	role("demographics", "census-acs", acs)
	role("amenities", "overpass", nil)
	if c.walkScoreAPI {
		role("walkscore", "walkscore-api", map[string]string{"api_key": "sandbox-walkscore-key"})
	} else {
		role("walkscore", "osm-walk", nil)
	}
	role("housing", "census-acs-housing", acs)
	if c.hud {
		role("fair_market_rent", "hud-fmr", map[string]string{"token": sandbox.HUDToken})
	}
	return b.String()
}

func relHashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// relRig is one sandbox and one propertyd in this process talking to it.
type relRig struct {
	t    *testing.T
	sb   *sandbox.Server
	root string // sandbox root URL
	cfg  relConfig
	m    *Main
	base string // propertyd root URL
}

// relNewRig starts a sandbox serving the default places and a propertyd
// configured by cfg (root and db are filled in) against it. Both stop when
// the test ends.
func relNewRig(t *testing.T, cfg relConfig) *relRig {
	t.Helper()
	sb := sandbox.New(sandbox.DefaultPlaces(), sandbox.Options{Seed: 7})
	root, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting the sandbox: %v", err)
	}
	t.Cleanup(sb.Close)
	cfg.root = root
	if cfg.db == "" {
		cfg.db = filepath.Join(t.TempDir(), "propertyd.db")
	}
	r := &relRig{t: t, sb: sb, root: root, cfg: cfg}
	r.start()
	return r
}

// start runs propertyd with the rig's configuration.
func (r *relRig) start() {
	r.t.Helper()
	c, err := ParseConfig([]byte(r.cfg.yaml()))
	if err != nil {
		r.t.Fatalf("the test configuration does not parse: %v\n%s", err, r.cfg.yaml())
	}
	m := NewMain(c)
	m.Logger = discardLogger()
	if err := m.Run(context.Background()); err != nil {
		r.t.Fatalf("starting propertyd: %v", err)
	}
	r.m, r.base = m, "http://"+m.Addr()
	r.t.Cleanup(func() {
		// A pooled connection that never carried a request holds a
		// graceful shutdown for 5s; drop them first.
		relClient.CloseIdleConnections()
		m.Close()
	})
}

// place returns the default sandbox place with id.
func (r *relRig) place(id string) sandbox.Place {
	r.t.Helper()
	for _, p := range r.sb.Places() {
		if p.ID == id {
			return p
		}
	}
	r.t.Fatalf("the sandbox has no place %q", id)
	return sandbox.Place{}
}

// relReply is one HTTP answer as a client sees it.
type relReply struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
	elapsed      time.Duration
}

// json decodes the body as an object; nil when it is not one.
func (rp relReply) json() map[string]any {
	var m map[string]any
	if json.Unmarshal(rp.body, &m) != nil {
		return nil
	}
	return m
}

func (rp relReply) String() string {
	b := rp.body
	if len(b) > 600 {
		b = append(b[:600:600], "..."...)
	}
	return fmt.Sprintf("%s %s -> %d %s", rp.method, relShorten(rp.path), rp.status, b)
}

func relShorten(s string) string {
	if len(s) > 160 {
		return s[:160] + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return s
}

// relClient is shared by the reliability tests: keep-alive connections to
// every server, enough of them for the load test.
var relClient = &http.Client{
	Timeout: 60 * time.Second,
	Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 128,
		IdleConnTimeout:     30 * time.Second,
	},
}

// relCall sends one request to base with key (none when empty) and reads the
// whole answer.
func relCall(t testing.TB, base, key, method, path string, body []byte, header map[string]string) relReply {
	t.Helper()
	rp, err := relTryCall(base, key, method, path, body, header)
	if err != nil {
		t.Fatalf("%s %s: %v", method, relShorten(path), err)
	}
	return rp
}

// relTryCall is relCall returning transport errors instead of failing the test.
func relTryCall(base, key, method, path string, body []byte, header map[string]string) (relReply, error) {
	if len(body) > relRawBodyOver {
		return relOversizedCall(base, key, method, path, body)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return relReply{}, err
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := relClient.Do(req)
	if err != nil {
		return relReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return relReply{}, err
	}
	return relReply{method: method, path: path, status: resp.StatusCode, header: resp.Header, body: b, elapsed: time.Since(start)}, nil
}

func (r *relRig) get(path string) relReply {
	r.t.Helper()
	return relCall(r.t, r.base, relKey.key, http.MethodGet, path, nil, nil)
}

func (r *relRig) post(path string, body []byte) relReply {
	r.t.Helper()
	return relCall(r.t, r.base, relKey.key, http.MethodPost, path, body, nil)
}

// relLookupPath is the lookup URL of a place, with a unit (none when empty)
// and include= (none when empty).
func relLookupPath(p sandbox.Place, unit, include string) string {
	street := p.Street
	if unit != "" {
		street += " " + unit
	}
	q := url.Values{"street": {street}, "city": {p.City}, "state": {p.State}, "zip": {p.Zip}}
	if include != "" {
		q.Set("include", include)
	}
	return "/v1/properties/lookup?" + q.Encode()
}

// relWantStatus fails unless rp has status.
func relWantStatus(t testing.TB, rp relReply, status int) {
	t.Helper()
	if rp.status != status {
		t.Fatalf("want HTTP %d, got %s", status, rp)
	}
}

// relWantProblem fails unless rp is an RFC 9457 problem of status and code
// (any code when empty) with every member of propertyd's envelope, and
// returns the decoded body.
func relWantProblem(t testing.TB, rp relReply, status int, code string) map[string]any {
	t.Helper()
	if rp.status != status {
		t.Fatalf("want problem %d %s, got %s", status, code, rp)
	}
	if ct := rp.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("problem Content-Type = %q, want application/problem+json: %s", ct, rp)
	}
	relCheckProblemEnvelope(t, rp)
	m := rp.json()
	if code != "" && m["code"] != code {
		t.Fatalf("want problem code %q, got %s", code, rp)
	}
	return m
}

// relCheckProblemEnvelope fails unless rp's body is a problem details
// object: type (ending in the code), title, status (equal to the HTTP
// status), detail, code and request_id (equal to X-Request-ID).
func relCheckProblemEnvelope(t testing.TB, rp relReply) {
	t.Helper()
	m := rp.json()
	if m == nil {
		t.Fatalf("the problem body is not a JSON object: %s", rp)
	}
	for _, f := range []string{"type", "title", "detail", "code", "request_id"} {
		if s, ok := m[f].(string); !ok || s == "" {
			t.Fatalf("problem member %q missing or empty: %s", f, rp)
		}
	}
	if st, _ := m["status"].(float64); int(st) != rp.status {
		t.Fatalf("problem status %v differs from HTTP %d: %s", m["status"], rp.status, rp)
	}
	if !strings.HasSuffix(m["type"].(string), "/"+m["code"].(string)) {
		t.Fatalf("problem type %q does not name code %q", m["type"], m["code"])
	}
	if id := rp.header.Get("X-Request-ID"); id == "" || m["request_id"] != id {
		t.Fatalf("problem request_id %v differs from X-Request-ID %q", m["request_id"], id)
	}
}

// relData returns the data object of a success reply.
func relData(t testing.TB, rp relReply) map[string]any {
	t.Helper()
	d, ok := rp.json()["data"].(map[string]any)
	if !ok {
		t.Fatalf("no relData object in %s", rp)
	}
	return d
}

// relSectionMeta returns meta.sections.<name> of a record reply.
func relSectionMeta(t testing.TB, rp relReply, name string) map[string]any {
	t.Helper()
	meta, _ := rp.json()["meta"].(map[string]any)
	secs, _ := meta["sections"].(map[string]any)
	m, ok := secs[name].(map[string]any)
	if !ok {
		t.Fatalf("no meta.sections.%s in %s", name, rp)
	}
	return m
}

// relDbCounts opens the database file read-only and counts the rows of the
// tables propertyd writes.
func relDbCounts(t testing.TB, path string) map[string]int {
	t.Helper()
	db := relOpenReadOnly(t, path)
	defer db.Close()
	out := map[string]int{}
	for _, table := range []string{"properties", "property_keys", "sections"} {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatalf("counting %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// relOpenReadOnly opens a SQLite file read-only with database/sql.
func relOpenReadOnly(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatalf("opening %s read-only: %v", path, err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// relEventually polls cond every 10 ms until it holds or d passes.
func relEventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// relRawBodyOver is the body size above which relTryCall talks raw TCP.
const relRawBodyOver = 256 << 10

// relOversizedCall sends a request whose body the server refuses by its
// announced length. The server answers 413 and closes the connection while
// the body is still arriving, so a net/http client may see its write reset
// before it reads the answer (a race, not a server fault). Here the body is
// written in the background, its write errors ignored, while the answer is
// read, as a client that reads early responses would.
func relOversizedCall(base, key, method, path string, body []byte) (relReply, error) {
	u, err := url.Parse(base)
	if err != nil {
		return relReply{}, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		return relReply{}, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		method, path, u.Host, key, len(body))
	if _, err := io.WriteString(conn, head); err != nil {
		return relReply{}, err
	}
	go func() { _, _ = conn.Write(body) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return relReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return relReply{}, err
	}
	return relReply{method: method, path: path, status: resp.StatusCode, header: resp.Header, body: b, elapsed: time.Since(start)}, nil
}
