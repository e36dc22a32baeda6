package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestEmptySearchFiltersAreRefused(t *testing.T) {
	s := newStack(t, stackOptions{})
	s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	for _, name := range []string{"zip", "city", "state", "property_type"} {
		for _, q := range []string{name + "=", name + "=%20%20", name} {
			r := s.get("/v1/properties/search?" + q)
			wantProblem(t, r, 400, "invalid_parameter")
			if !paramNamed(r, name) {
				t.Errorf("search?%s: errors do not name %s: %s", q, name, r.body)
			}
		}
	}
}

func TestMethodNotAllowedSaysWhatIsAllowed(t *testing.T) {
	s := newStack(t, stackOptions{})
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/v1/properties/batch", "POST"},
		{"GET", "/v1/properties/batch?include=flood", "POST"},
		{"DELETE", "/v1/properties/batch", "POST"},
		{"PUT", "/v1/properties/batch", "POST"},
		{"DELETE", "/v1/properties/search", "GET, HEAD"},
		{"POST", "/v1/properties/1", "GET, HEAD"},
	} {
		r := s.do(c.method, c.path, "")
		wantProblem(t, r, 405, "method_not_allowed")
		if got := r.header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow = %q, want %q", c.method, c.path, got, c.allow)
		}
	}
}

func TestNumbersArePlainDecimal(t *testing.T) {
	s := newStack(t, stackOptions{})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	if created.status != 200 {
		t.Fatalf("lookup: %d %s", created.status, created.body)
	}
	for target, param := range map[string]string{
		"/v1/properties/reverse?lat=3_0.27&lng=0":  "lat",
		"/v1/properties/reverse?lat=0x1p-2&lng=0":  "lat",
		"/v1/properties/reverse?lat=1e1&lng=0":     "lat",
		"/v1/properties/reverse?lat=%2B10&lng=0":   "lat",
		"/v1/properties/reverse?lat=%2010&lng=0":   "lat",
		"/v1/properties/reverse?lat=10.&lng=0":     "lat",
		"/v1/properties/reverse?lat=.5&lng=0":      "lat",
		"/v1/properties/reverse?lat=Inf&lng=0":     "lat",
		"/v1/properties/reverse?lat=0&lng=-0x1":    "lng",
		"/v1/properties/%2B1":                      "id",
		"/v1/properties/01":                        "id",
		"/v1/properties/1_0":                       "id",
		"/v1/properties/0x1":                       "id",
		"/v1/properties/search?page=01":            "page",
		"/v1/properties/search?per_page=%2B5":      "per_page",
		"/v1/properties/search?min_bedrooms=1_0":   "min_bedrooms",
		"/v1/properties/search?max_bedrooms=-1":    "max_bedrooms",
		"/v1/properties/search?page=%201":          "page",
		"/v1/properties/1/amenities?radius=0x7d0":  "radius",
		"/v1/properties/1/amenities?radius=2000.0": "radius",
	} {
		r := s.get(target)
		if r.status != 400 {
			t.Errorf("%s: status %d, want 400: %s", target, r.status, r.body)
			continue
		}
		if !paramNamed(r, param) {
			t.Errorf("%s: errors do not name %s: %s", target, param, r.body)
		}
	}
	if s.geo.revs.Load() != 0 {
		t.Fatal("a malformed coordinate reached the reverse geocoder")
	}
	// Plain decimal still works.
	for _, target := range []string{"/v1/properties/1", "/v1/properties/search?page=1&per_page=10&min_bedrooms=0",
		"/v1/properties/reverse?lat=39.80188&lng=-89.6437", "/v1/properties/reverse?lat=39&lng=-89.6437"} {
		if r := s.get(target); r.status != 200 {
			t.Errorf("%s: status %d: %s", target, r.status, r.body)
		}
	}
}

// A batch item is read as strictly as lookup reads its query, and a member
// that is missing, unknown or not a valid string is the same
// invalid_parameter naming it; invalid bytes and escapes of lone UTF-16
// surrogates (which encoding/json would turn into U+FFFD) alike. None of
// them is charged or reaches the geocoder.
func TestBatchValidatesItemsAsLookupDoes(t *testing.T) {
	s := newStack(t, stackOptions{})
	body := "{\"addresses\":[" +
		"{\"id\":\"bad-utf8\",\"street\":\"123 N Main St\xff\",\"state\":\"IL\"}," +
		`{"id":"extra","street":"123 N Main St","state":"IL","country":"US"},` +
		`{"id":"number","street":123,"state":"IL"},` +
		`{"id":"control","street":"123 N Main St\u0000","state":"IL"},` +
		`{"id":"lone high","street":"123 N Main St\ud800","state":"IL"},` +
		`{"id":"lone low","street":"\udc00123 N Main St","state":"IL"},` +
		`{"id":"high then letter","street":"123 N \ud83dMain St","state":"IL"},` +
		`{"id":"missing","state":"IL"},` +
		`{"id":"null street","street":null,"state":"IL"},` +
		`5,` +
		`{"id":"pair","street":"123 N Main St \ud83c\udfe0","state":"IL"}` +
		"]}"
	r := s.do("POST", "/v1/properties/batch", body)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if !json.Valid(r.body) {
		t.Fatalf("response is not valid JSON: %q", r.body)
	}
	errs, _ := r.data()["errors"].([]any)
	want := []struct{ code, param string }{
		{"invalid_parameter", "street"}, {"invalid_parameter", "country"}, {"invalid_parameter", "street"},
		{"invalid_parameter", "street"}, {"invalid_parameter", "street"}, {"invalid_parameter", "street"},
		{"invalid_parameter", "street"}, {"invalid_parameter", "street"}, {"invalid_parameter", "street"},
		{"invalid_address", ""},
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %d, want %d (every item but the surrogate pair): %s", len(errs), len(want), r.body)
	}
	for i, w := range want {
		e := errs[i].(map[string]any)
		if e["code"] != w.code {
			t.Errorf("item %d: code %v, want %s (%v)", i, e["code"], w.code, e)
		}
		if w.param != "" && !strings.Contains(string(mustJSON(e["errors"])), `"parameter":"`+w.param+`"`) {
			t.Errorf("item %d: errors do not name %s: %v", i, w.param, e)
		}
	}
	if got := r.header.Get("X-Request-Cost"); got != "1" {
		t.Errorf("X-Request-Cost = %s, want 1: only the one valid item is charged", got)
	}
	if results, _ := r.data()["results"].([]any); s.countProperties() != len(results) {
		t.Fatalf("records = %d for %d results: invalid items reached the database", s.countProperties(), len(results))
	}

	// A member named twice inside an item is refused with the whole body,
	// as one named twice in the body is: which street was meant?
	dup := s.do("POST", "/v1/properties/batch", `{"addresses":[{"street":"123 N Main St","state":"IL"},`+
		`{"id":"dup","street":"123 N Main St","street":"500 Elm Ave","state":"IL"}]}`)
	wantProblem(t, dup, 400, "invalid_body")
	if !paramNamed(dup, "addresses[1].street") || dup.header.Get("X-Request-Cost") != "0" {
		t.Errorf("a member named twice in item 1: %s at cost %s; want errors naming addresses[1].street at cost 0", dup.body, dup.header.Get("X-Request-Cost"))
	}
	if s.geo.calls.Load() != 1 {
		t.Fatalf("geocoder calls = %d, want 1 (the pair of surrogates is a valid street)", s.geo.calls.Load())
	}
}

func TestBatchBodyMustBeJSONOneObject(t *testing.T) {
	s := newStack(t, stackOptions{})
	good := `{"addresses":[{"street":"123 N Main St","state":"IL"}]}`
	for _, ct := range []string{"text/plain", "", "application/x-www-form-urlencoded", "application/json; charset=latin1"} {
		r := s.do("POST", "/v1/properties/batch", good, "Content-Type", ct)
		wantProblem(t, r, 415, "unsupported_media_type")
		if got := r.header.Get("X-Request-Cost"); got != "0" {
			t.Errorf("Content-Type %q: X-Request-Cost = %s, want 0", ct, got)
		}
	}
	if r := s.do("POST", "/v1/properties/batch", good, "Content-Type", "application/json; charset=UTF-8"); r.status != 200 {
		t.Fatalf("application/json; charset=UTF-8: status %d: %s", r.status, r.body)
	}
	dup := s.do("POST", "/v1/properties/batch", `{"addresses":[{"street":"1 Oak St","state":"IL"}],"addresses":[]}`)
	wantProblem(t, dup, 400, "invalid_body")
	if !strings.Contains(dup.json["detail"].(string)+string(dup.body), "more than once") {
		t.Errorf("a repeated member is not named: %s", dup.body)
	}
	extra := s.do("POST", "/v1/properties/batch", `{"addresses":[{"street":"1 Oak St","state":"IL"}],"priority":"high"}`)
	wantProblem(t, extra, 400, "invalid_parameter")
	if !paramNamed(extra, "priority") {
		t.Errorf("an unknown member is not named: %s", extra.body)
	}
	if s.geo.calls.Load() != 1 {
		t.Fatalf("geocoder calls = %d, want 1 (the one good batch)", s.geo.calls.Load())
	}
}

// A Go client writes its whole body before it reads the answer; a server
// that refuses by the announced length and closes at once resets the
// connection under it, so it never sees the 413 that curl sees.
func TestOversizedBatchGetsA413EvenFromAGoClient(t *testing.T) {
	s := newStack(t, stackOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.gw.App().Listener(ln) }()
	defer func() { _ = s.gw.App().Shutdown() }()
	item := `{"street":"123 N Main St","state":"IL"},`
	body := `{"addresses":[` + strings.Repeat(item, (2<<20)/len(item)) + `{"street":"1 Oak St","state":"IL"}]}`
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/v1/properties/batch", bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", testKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("posting a 2 MB batch: %v (want a 413 problem)", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(b), `"body_too_large"`) {
			t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
}

// Routes are case-sensitive and strict about the trailing slash: another
// spelling of an endpoint's path names no endpoint, a 404 that costs
// nothing, rather than a second URL of the same resource.
func TestRoutesAreOnePathEach(t *testing.T) {
	s := newStack(t, stackOptions{burst: 20, rate: 0.001})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	before := created.header.Get("X-RateLimit-Remaining")
	for _, target := range []string{
		fmt.Sprintf("/V1/properties/%d", id),
		fmt.Sprintf("/v1/Properties/%d", id),
		fmt.Sprintf("/v1/properties/%d/", id),
		"/v1/properties/search/?state=IL",
		"/v1/properties/lookup/?street=123+N+Main+St&state=IL",
		"/v1/PROPERTIES/lookup?street=123+N+Main+St&state=IL",
		"/v1/properties/batch/",
	} {
		for range 3 {
			r := s.get(target)
			wantProblem(t, r, 404, "not_found")
		}
	}
	r := s.get(fmt.Sprintf("/v1/properties/%d", id))
	if r.status != 200 || r.header.Get("X-Request-Cost") != "1" {
		t.Fatalf("the canonical path: %d at cost %s", r.status, r.header.Get("X-Request-Cost"))
	}
	if got, want := r.header.Get("X-RateLimit-Remaining"), strconv.Itoa(mustAtoi(t, before)-1); got != want {
		t.Fatalf("after 21 requests to paths that name no endpoint and one GET, X-RateLimit-Remaining = %s, want %s: the 404s were charged", got, want)
	}
	if post := s.do("POST", "/v1/properties/batch/", `{"addresses":[{"street":"123 N Main St","state":"IL"}]}`); post.status != 404 {
		t.Fatalf("POST /v1/properties/batch/: %d %s, want 404", post.status, post.body)
	}
}

// A percent sign not followed by two hex digits is a 400 naming its
// parameter, before anything is charged or sent upstream: fasthttp would
// pass "1%zzMain" on as the street.
func TestAMalformedPercentEscapeIsRefusedBeforeAnyCharge(t *testing.T) {
	s := newStack(t, stackOptions{burst: 5, rate: 0.001})
	for _, c := range []struct{ target, param string }{
		{"/v1/properties/lookup?street=1%zzMain+St&state=IL", "street"},
		{"/v1/properties/lookup?street=123+N+Main+St&state=IL%", "state"},
		{"/v1/properties/lookup?street=123+N+Main+St&state=IL&zip=6270%2", "zip"},
		{"/v1/properties/lookup?street=123+N+Main+St&state=IL&include=flood%g1", "include"},
		{"/v1/properties/search?city=Spring%field", "city"},
		{"/v1/properties/reverse?lat=39.8%&lng=-89.6", "lat"},
		{"/v1/properties/1?include=%", "include"},
	} {
		for range 3 {
			r := s.get(c.target)
			wantProblem(t, r, 400, "invalid_parameter")
			if !paramNamed(r, c.param) || r.header.Get("X-Request-Cost") != "" && r.header.Get("X-Request-Cost") != "0" {
				t.Fatalf("%s: %s, X-Request-Cost %q; want errors naming %s at no cost", c.target, r.body, r.header.Get("X-Request-Cost"), c.param)
			}
		}
	}
	if n := s.geo.calls.Load() + s.geo.revs.Load(); n != 0 {
		t.Fatalf("%d geocoder calls for malformed queries", n)
	}
	// A literal % written as %25 is fine.
	if r := s.get("/v1/properties/lookup?street=123+N+Main+St%25&state=IL"); r.status == 400 {
		t.Fatalf("%%25: %d %s", r.status, r.body)
	}
}

// Every invalid_parameter reads one way, whichever layer found it: the
// gateway's query checks and the address rules alike.
func TestInvalidParameterDetailsReadOneWay(t *testing.T) {
	s := newStack(t, stackOptions{})
	for target, detail := range map[string]string{
		"/v1/properties/lookup?street=1+Main+St":                        "invalid parameter state: is required",
		"/v1/properties/lookup?street=1+Main+St&state=IL&include=bogus": `invalid parameter include: unknown section "bogus"`,
		"/v1/properties/reverse?lat=91&lng=x":                           "invalid parameters: lat: must be between -90 and 90; lng: must be a decimal number",
		"/v1/properties/search?page=0":                                  "invalid parameter page: must be between 1 and 1000000",
	} {
		r := s.get(target)
		wantProblem(t, r, 400, "invalid_parameter")
		if got, _ := r.json["detail"].(string); !strings.HasPrefix(got, detail) {
			t.Errorf("%s: detail %q, want it to start %q", target, got, detail)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
