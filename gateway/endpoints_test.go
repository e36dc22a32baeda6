package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/decorators/guard"
)

func TestReverseReturnsNearestExistingRecordWithoutCall(t *testing.T) {
	s := newStack(t, stackOptions{})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	// About 20 m north of the record.
	r := s.get("/v1/properties/reverse?lat=39.80188&lng=-89.6437")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if r.data()["id"] != created.data()["id"] {
		t.Fatalf("reverse near a record returned id %v, want %v", r.data()["id"], created.data()["id"])
	}
	if s.geo.revs.Load() != 0 {
		t.Fatal("reverse geocoder called although a record was within the radius")
	}
}

func TestReverseCreatesPartialRecord(t *testing.T) {
	s := newStack(t, stackOptions{})
	r := s.get("/v1/properties/reverse?lat=40.1&lng=-89.2")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	d := r.data()
	if d["county"] != "Sangamon County" || d["fips_code"] != "17167" || d["census_tract"] != "000600" {
		t.Fatalf("geographies = %v %v %v", d["county"], d["fips_code"], d["census_tract"])
	}
	if d["latitude"] != 40.1 || d["longitude"] != -89.2 {
		t.Fatalf("coordinates = %v,%v", d["latitude"], d["longitude"])
	}
	if d["street_address"] != nil || d["zip_code"] != nil {
		t.Fatalf("reverse record invented an address: %v %v", d["street_address"], d["zip_code"])
	}
	if r.meta()["source"] != "census" {
		t.Fatalf("meta.source = %v", r.meta()["source"])
	}
	again := s.get("/v1/properties/reverse?lat=40.1&lng=-89.2")
	if again.data()["id"] != d["id"] || s.geo.revs.Load() != 1 {
		t.Fatalf("second reverse at the same point: id %v, calls %d", again.data()["id"], s.geo.revs.Load())
	}
	wantProblem(t, s.get("/v1/properties/reverse?lat=-10&lng=20"), 404, "location_not_found")
}

func TestReverseRejectsBadCoordinates(t *testing.T) {
	s := newStack(t, stackOptions{})
	cases := map[string]string{
		"lat=91&lng=0":        "lat",
		"lat=-90.5&lng=0":     "lat",
		"lat=0&lng=180.1":     "lng",
		"lat=abc&lng=0":       "lat",
		"lat=NaN&lng=0":       "lat",
		"lat=1e400&lng=0":     "lat",
		"lng=0":               "lat",
		"lat=0":               "lng",
		"lat=&lng=0":          "lat",
		"lat=0&lng=0&lat=1":   "lat",
		"lat=0&lng=0x10":      "lng",
		"lat=0&lng=%27%20OR1": "lng",
	}
	for q, param := range cases {
		r := s.get("/v1/properties/reverse?" + q)
		wantProblem(t, r, 400, "invalid_parameter")
		if !paramNamed(r, param) {
			t.Errorf("%s: errors do not name %s: %s", q, param, r.body)
		}
	}
	if s.geo.revs.Load() != 0 || s.countProperties() != 0 {
		t.Fatal("bad coordinates reached the geocoder or the database")
	}
}

func TestGetByID(t *testing.T) {
	s := newStack(t, stackOptions{})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	r := s.get(fmt.Sprintf("/v1/properties/%d", id))
	if r.status != 200 || r.data()["street_address"] != "123 N MAIN ST" {
		t.Fatalf("GET by id: %d %s", r.status, r.body)
	}
	if r.meta()["source"] != "census" {
		t.Fatalf("meta.source = %v", r.meta()["source"])
	}
	wantProblem(t, s.get("/v1/properties/999999"), 404, "property_not_found")
	for _, bad := range []string{"abc", "0", "-3", "1.5", "99999999999999999999999", "1%27%20OR%201=1"} {
		r := s.get("/v1/properties/" + bad)
		wantProblem(t, r, 400, "invalid_parameter")
		if !paramNamed(r, "id") {
			t.Errorf("%s: errors do not name id", bad)
		}
		if !strings.Contains(string(r.body), "at most 9223372036854775807") {
			t.Errorf("%s: %s; want the largest id said (a number past it is no id either)", bad, r.body)
		}
	}
}

func TestNotModifiedOnAStoredRecordCostsOne(t *testing.T) {
	s := newStack(t, stackOptions{burst: 10, rate: 0.001})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	first := s.get(fmt.Sprintf("/v1/properties/%d", id))
	etag := first.header.Get("ETag")
	if etag == "" {
		t.Fatal("GET response has no ETag")
	}
	remaining, _ := strconv.Atoi(first.header.Get("X-RateLimit-Remaining"))
	nm := s.get(fmt.Sprintf("/v1/properties/%d", id), "If-None-Match", etag)
	if nm.status != 304 {
		t.Fatalf("If-None-Match with the current ETag: status %d, want 304", nm.status)
	}
	if len(nm.body) != 0 {
		t.Fatalf("304 has a body: %s", nm.body)
	}
	if got := nm.header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining-1) {
		t.Fatalf("remaining after 304 = %s, before = %d: a 304 costs 1", got, remaining)
	}
	if got := nm.header.Get("X-Request-Cost"); got != "1" {
		t.Fatalf("X-Request-Cost of a 304 = %s, want 1", got)
	}
	if stale := s.get(fmt.Sprintf("/v1/properties/%d", id), "If-None-Match", `"other"`); stale.status != 200 {
		t.Fatalf("non-matching If-None-Match: status %d", stale.status)
	}
}

func TestSearchFiltersAndPages(t *testing.T) {
	s := newStack(t, stackOptions{})
	ctx := context.Background()
	var props []providers.Property
	for i := 0; i < 30; i++ {
		beds := i % 5
		pt := "single_family"
		if i%2 == 1 {
			pt = "condo"
		}
		zip := "62701"
		if i >= 20 {
			zip = "62702"
		}
		props = append(props, providers.Property{
			StreetAddress: fmt.Sprintf("%d OAK ST", i+1), City: "SPRINGFIELD", State: "IL", ZipCode: zip,
			Latitude: 39.8 + float64(i)*0.001, Longitude: -89.6, PropertyType: &pt, Bedrooms: &beds,
			Source: "import", CreatedAt: time.Now(), UpdatedAt: time.Now(),
		})
	}
	if err := s.db.SeedProperties(ctx, props); err != nil {
		t.Fatal(err)
	}
	r := s.get("/v1/properties/search?zip=62701&min_bedrooms=2&max_bedrooms=3&per_page=3&page=2")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var body struct {
		Data []map[string]any `json:"data"`
		Meta map[string]any   `json:"meta"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	// zip 62701 is i < 20; bedrooms 2 or 3 is i%5 in {2,3}: 8 records.
	if body.Meta["total"] != 8.0 || body.Meta["total_pages"] != 3.0 || body.Meta["page"] != 2.0 || body.Meta["per_page"] != 3.0 {
		t.Fatalf("meta = %v, want total 8, 3 pages, page 2, per_page 3", body.Meta)
	}
	if len(body.Data) != 3 {
		t.Fatalf("page 2 has %d records, want 3", len(body.Data))
	}
	prev := 0.0
	for _, d := range body.Data {
		b := d["bedrooms"].(float64)
		if d["zip_code"] != "62701" || b < 2 || b > 3 {
			t.Fatalf("record outside the filter: %v", d)
		}
		if id := d["id"].(float64); id <= prev {
			t.Fatal("results not ordered by id")
		} else {
			prev = id
		}
	}
	condos := s.get("/v1/properties/search?property_type=condo&city=springfield&state=il")
	if condos.meta()["total"] != 15.0 {
		t.Fatalf("condos total = %v, want 15", condos.meta()["total"])
	}
	if empty := s.get("/v1/properties/search?zip=99999"); empty.status != 200 || !strings.Contains(string(empty.body), `"data":[]`) {
		t.Fatalf("empty search: %d %s", empty.status, empty.body)
	}
	for q, param := range map[string]string{
		"per_page=0": "per_page", "per_page=101": "per_page", "page=0": "page", "page=x": "page",
		"zip=123": "zip", "state=XX": "state", "property_type=castle": "property_type",
		"min_bedrooms=-1": "min_bedrooms", "min_bedrooms=4&max_bedrooms=2": "min_bedrooms",
		"max_bedrooms=two": "max_bedrooms", "sort=id": "sort",
	} {
		r := s.get("/v1/properties/search?" + q)
		wantProblem(t, r, 400, "invalid_parameter")
		if !paramNamed(r, param) {
			t.Errorf("%s: errors do not name %s: %s", q, param, r.body)
		}
	}
}

func TestAuthentication(t *testing.T) {
	s := newStack(t, stackOptions{})
	wantProblem(t, s.get("/v1/properties/1", "X-API-Key", ""), 401, "unauthorized")
	wantProblem(t, s.get("/v1/properties/1", "X-API-Key", "wrong"), 401, "unauthorized")
	r := s.get("/v1/properties/search", "X-API-Key", otherKey)
	if r.status != 200 {
		t.Fatalf("second key refused: %d", r.status)
	}
	if id := r.header.Get("X-Request-ID"); id == "" {
		t.Fatal("no X-Request-ID on the response")
	}
	echo := s.get("/v1/properties/search", "X-Request-ID", "abc-123")
	if echo.header.Get("X-Request-ID") != "abc-123" {
		t.Fatalf("incoming X-Request-ID not echoed: %q", echo.header.Get("X-Request-ID"))
	}
}

func TestRoutingErrors(t *testing.T) {
	s := newStack(t, stackOptions{})
	wantProblem(t, s.get("/v1/nothing"), 404, "not_found")
	wantProblem(t, s.do("DELETE", "/v1/properties/search", ""), 405, "method_not_allowed")
	wantProblem(t, s.do("POST", "/v1/properties/lookup", "{}"), 405, "method_not_allowed")
	wantProblem(t, s.get("/v1/properties/1/weather"), 404, "not_found")
}

// wantBudget asserts the budget's headers a client reads, in both forms:
// the X-RateLimit-* headers and the IETF draft's RateLimit-Policy and
// RateLimit fields.
func wantBudget(t *testing.T, what string, r response, limit, remaining, reset, cost, window string) {
	t.Helper()
	got := []string{r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"), r.header.Get("X-RateLimit-Reset"),
		r.header.Get("X-Request-Cost"), r.header.Get("RateLimit-Policy"), r.header.Get("RateLimit")}
	want := []string{limit, remaining, reset, cost, `"default";q=` + limit + ";w=" + window, `"default";r=` + remaining + ";t=" + reset}
	names := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Cost", "RateLimit-Policy", "RateLimit"}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s (status %d): %s: %q, want %q", what, r.status, names[i], got[i], want[i])
		}
	}
}

// A client that backs off by the budget's headers waits as long as it
// must and no longer: X-RateLimit-Reset (and the RateLimit field's t) is
// when the bucket holds one token more than it says remain, so, with none
// left, when a request of cost 1 fits, which is what Retry-After says of
// one refused; a dearer request's Retry-After is later. A 429 charged
// nothing, and says so: X-Request-Cost 0.
func TestRateLimitHeadersSayWhenToComeBack(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 30, rate: 1, now: func() time.Time { return now }})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	wantBudget(t, "the first lookup", created, "30", "29", "1", "1", "30")
	record := fmt.Sprintf("/v1/properties/%d", int(created.data()["id"].(float64)))
	for i := range 28 {
		if r := s.get(record); r.status != 200 {
			t.Fatalf("GET %d: %d", i, r.status)
		}
	}
	last := s.get("/v1/properties/search?state=IL")
	wantBudget(t, "the last token", last, "30", "0", "1", "1", "30")

	refused := s.get("/v1/properties/search?state=IL")
	wantProblem(t, refused, 429, "rate_limited")
	wantBudget(t, "a refused search", refused, "30", "0", "1", "0", "30")
	if ra := refused.header.Get("Retry-After"); ra != "1" {
		t.Fatalf("a refused search of cost 1: Retry-After %q, want 1, as X-RateLimit-Reset says", ra)
	}
	get := s.get(record)
	wantProblem(t, get, 429, "rate_limited")
	wantBudget(t, "a refused GET by id", get, "30", "0", "1", "0", "30")
	items := strings.Repeat(`{"street":"123 N Main St","state":"IL"},`, 5) + `{"street":"123 N Main St","state":"IL"}`
	batch := s.do("POST", "/v1/properties/batch", `{"addresses":[`+items+`]}`)
	wantProblem(t, batch, 429, "rate_limited")
	wantBudget(t, "a refused batch of 6", batch, "30", "0", "1", "0", "30")
	if ra := batch.header.Get("Retry-After"); ra != "6" {
		t.Fatalf("a refused batch of cost 6: Retry-After %q, want 6", ra)
	}

	now = now.Add(time.Second) // as X-RateLimit-Reset said
	again := s.get(record)
	if again.status != 200 {
		t.Fatalf("back after X-RateLimit-Reset's second: %d %s", again.status, again.body)
	}
	wantBudget(t, "back after the reset", again, "30", "0", "1", "1", "30")
}

// Every answer to a /v1 endpoint for a valid key carries the budget's
// headers, a 405 and input refused before the charge (a malformed escape,
// an unknown section) included, at a cost of 0; an answer without a valid
// key has no budget to show.
func TestAnswersRefusedBeforeTheChargeShowTheBudget(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 30, rate: 1, now: func() time.Time { return now }})
	s.get("/v1/properties/search?state=IL")
	for _, c := range []struct {
		method, target string
		status         int
		code           string
	}{
		{"DELETE", "/v1/properties/search", 405, "method_not_allowed"},
		{"POST", "/v1/properties/lookup", 405, "method_not_allowed"},
		{"GET", "/v1/properties/batch", 405, "method_not_allowed"},
		{"PUT", "/v1/properties/1/flood", 405, "method_not_allowed"},
		{"FETCH", "/v1/properties/1", 405, "method_not_allowed"},
		{"GET", "/v1/properties/search?state=I%zzL", 400, "invalid_parameter"},
		{"GET", "/v1/properties/1?include=bogus", 400, "invalid_parameter"},
	} {
		r := s.do(c.method, c.target, "")
		wantProblem(t, r, c.status, c.code)
		wantBudget(t, c.method+" "+c.target, r, "30", "29", "1", "0", "30")
	}
	for _, r := range []response{
		s.do("FETCH", "/v1/properties/1", "", "X-API-Key", ""),
		s.get("/v1/properties/search?state=IL", "X-API-Key", "not-a-key"),
	} {
		if h := r.header.Get("RateLimit"); h != "" || r.header.Get("X-RateLimit-Remaining") != "" {
			t.Errorf("an answer without a valid key (status %d) shows a budget: %q", r.status, h)
		}
	}
}

func TestRateLimitHeadersAndRefusal(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 3, rate: 1, now: func() time.Time { return now }})
	for i := 0; i < 3; i++ {
		r := s.get("/v1/properties/search")
		if r.status != 200 {
			t.Fatalf("request %d: %d", i, r.status)
		}
		if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-Request-Cost") != "1" ||
			r.header.Get("X-RateLimit-Remaining") != fmt.Sprint(2-i) {
			t.Fatalf("request %d headers: limit %s cost %s remaining %s", i, r.header.Get("X-RateLimit-Limit"),
				r.header.Get("X-Request-Cost"), r.header.Get("X-RateLimit-Remaining"))
		}
		if r.header.Get("X-RateLimit-Reset") == "" {
			t.Fatal("no X-RateLimit-Reset")
		}
	}
	r := s.get("/v1/properties/search")
	wantProblem(t, r, 429, "rate_limited")
	if r.header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After = %q, want 1", r.header.Get("Retry-After"))
	}
	if other := s.get("/v1/properties/search", "X-API-Key", otherKey); other.status != 200 {
		t.Fatalf("another key was slowed by this one: %d", other.status)
	}
	now = now.Add(time.Second)
	if r := s.get("/v1/properties/search"); r.status != 200 {
		t.Fatalf("after the refill: %d (a 429 must not consume tokens)", r.status)
	}
}

func TestBreakerOpenAnswers503AtOnce(t *testing.T) {
	b := guard.NewBreaker("census", guard.Policy{FailureThreshold: 2, OpenFor: time.Minute})
	s := newStack(t, stackOptions{breaker: b})
	s.geo.geocode = func(context.Context, providers.Address) (providers.Location, error) {
		return providers.Location{}, providers.Errorf(providers.KindUpstream, "upstream_error", "census answered 500")
	}
	for i := 0; i < 2; i++ {
		wantProblem(t, s.get(lookupURL(fmt.Sprintf("%d Main St", i+1), "", "IL", "")), 502, "upstream_error")
	}
	start := time.Now()
	r := s.get(lookupURL("77 Main St", "", "IL", ""))
	wantProblem(t, r, 503, "upstream_unavailable")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if time.Since(start) > 50*time.Millisecond {
		t.Fatalf("open breaker took %v", time.Since(start))
	}
	if s.geo.calls.Load() != 2 {
		t.Fatalf("geocoder calls = %d, want 2 (the open breaker must not call)", s.geo.calls.Load())
	}
	if strings.Contains(string(r.body), "500") {
		t.Fatalf("internal cause leaked: %s", r.body)
	}
}

func TestUpstreamTimeoutIs504(t *testing.T) {
	b := guard.NewBreaker("census", guard.Policy{Timeout: 20 * time.Millisecond})
	s := newStack(t, stackOptions{breaker: b})
	s.geo.geocode = func(ctx context.Context, _ providers.Address) (providers.Location, error) {
		<-ctx.Done()
		return providers.Location{}, ctx.Err()
	}
	wantProblem(t, s.get(lookupURL("1 Main St", "", "IL", "")), 504, "upstream_timeout")
}

func TestARepeatedGetIsTheSameAnswer(t *testing.T) {
	s := newStack(t, stackOptions{})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	url := fmt.Sprintf("/v1/properties/%d", int(created.data()["id"].(float64)))
	first := s.get(url)               // rendered, and kept ready
	again := s.get(url)               // answered from the ready bytes
	empty := s.get(url + "?include=") // no section: the same answer
	for _, r := range []response{again, empty} {
		if r.status != 200 || string(r.body) != string(first.body) || r.header.Get("ETag") != first.header.Get("ETag") ||
			r.header.Get("Content-Type") != first.header.Get("Content-Type") {
			t.Fatalf("repeated GET: %d %s %q %q; first: %s %q %q", r.status, r.body, r.header.Get("ETag"), r.header.Get("Content-Type"),
				first.body, first.header.Get("ETag"), first.header.Get("Content-Type"))
		}
	}
	// A section makes another answer.
	if withFlood := s.get(url + "?include=flood"); withFlood.status == 200 && string(withFlood.body) == string(first.body) {
		t.Fatal("include=flood answered the plain record")
	}
}

// HEAD is GET without a body: the same status and headers (ETag,
// Cache-Control, the budget's headers, the request's cost), the same
// conditional answer to If-None-Match, at the same price, on every read
// endpoint, the plain warm GET answered in front of the app included.
func TestHeadIsGetWithoutABody(t *testing.T) {
	f := newFakeSections()
	s := newStack(t, stackOptions{burst: 1000, rate: 0.001, sections: f.sections(time.Hour, nil)})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	record := fmt.Sprintf("/v1/properties/%d", id)
	perRequest := map[string]bool{"X-Request-Id": true, "Date": true, "X-Ratelimit-Remaining": true, "X-Ratelimit-Reset": true, "Ratelimit": true}
	for _, target := range []string{
		record, // rendered by the app, then kept ready
		record, // the ready body, in front of the app
		record + "?include=flood,demographics",
		record + "/flood",
		lookupURL("123 N Main St", "Springfield", "IL", "") + "&include=flood",
		"/v1/properties/search?state=IL",
		"/v1/properties/reverse?lat=39.8017&lng=-89.6437",
	} {
		s.get(target) // a first answer may say that its sections were fetched ("cache": "miss")
		s.cache.Wait()
		get := s.get(target)
		head := s.do("HEAD", target, "")
		if get.status != 200 || head.status != 200 || len(head.body) != 0 {
			t.Fatalf("%s: GET %d, HEAD %d with a body of %d bytes; want 200 and 200 without a body", target, get.status, head.status, len(head.body))
		}
		if get.header.Get("ETag") == "" {
			t.Fatalf("%s: GET without an ETag", target)
		}
		for name := range get.header {
			if !perRequest[name] && get.header.Get(name) != head.header.Get(name) {
				t.Errorf("%s: header %s: GET %q, HEAD %q", target, name, get.header.Get(name), head.header.Get(name))
			}
		}
		for name := range head.header {
			if _, ok := get.header[name]; !ok && !perRequest[name] {
				t.Errorf("%s: HEAD has header %s that GET has not", target, name)
			}
		}
		getNM := s.get(target, "If-None-Match", get.header.Get("ETag"))
		headNM := s.do("HEAD", target, "", "If-None-Match", get.header.Get("ETag"))
		if getNM.status != 304 || headNM.status != 304 {
			t.Errorf("%s with If-None-Match of the current ETag: GET %d, HEAD %d; want 304 for both", target, getNM.status, headNM.status)
		}
		if g, h := getNM.header.Get("X-Request-Cost"), headNM.header.Get("X-Request-Cost"); g != h {
			t.Errorf("%s: a conditional GET cost %s, a conditional HEAD %s", target, g, h)
		}
	}
}

// A warm GET answered in front of the app (the plain path) and one the app
// answers from the same ready body (with an empty include=, which the plain
// path leaves to the app) send the same answer: status, body and
// every header but the ones that differ per request.
// A GET refused by its key's budget is the same 429, byte for byte and
// header for header, whether it is answered in front of the app (the
// plain GET of a ready record) or through it.
func TestARefusedGetIsTheSameAnswerInFrontOfTheAppAndThroughIt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStack(t, stackOptions{burst: 6, rate: 0.01, now: func() time.Time { return now }})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	path := fmt.Sprintf("/v1/properties/%d", int(created.data()["id"].(float64)))
	for s.get(path).status == 200 { // the first renders the ready body; the rest spend the budget
		s.cache.Wait()
	}
	for _, id := range []string{"client-id", "<&>"} {
		front := s.get(path, "X-Request-ID", id)
		app := s.get(path+"?include=", "X-Request-ID", id)
		wantProblem(t, front, 429, "rate_limited")
		if string(front.body) != string(app.body) || front.json["request_id"] != id {
			t.Fatalf("in front %s, through the app %s", front.body, app.body)
		}
		for _, h := range []http.Header{front.header, app.header} {
			for name := range h {
				if name != "Date" && front.header.Get(name) != app.header.Get(name) {
					t.Errorf("%s in front %q, through the app %q", name, front.header.Get(name), app.header.Get(name))
				}
			}
		}
	}
}

func TestAWarmGetIsTheSameAnswerInFrontOfTheAppAndThroughIt(t *testing.T) {
	s := newStack(t, stackOptions{})
	created := s.get(lookupURL("123 N Main St", "Springfield", "IL", ""))
	id := int(created.data()["id"].(float64))
	path := fmt.Sprintf("/v1/properties/%d", id)
	if r := s.get(path); r.status != 200 { // renders the ready body
		t.Fatalf("first GET: %d %s", r.status, r.body)
	}
	s.cache.Wait()
	perRequest := map[string]bool{"X-Request-Id": true, "Date": true, "X-Ratelimit-Remaining": true, "X-Ratelimit-Reset": true, "Ratelimit": true}
	for _, extra := range [][]string{nil, {"If-None-Match", "*"}} {
		front := s.get(path, extra...)
		app := s.get(path+"?include=", extra...)
		if front.status != app.status || string(front.body) != string(app.body) {
			t.Fatalf("%v: in front %d %s, through the app %d %s", extra, front.status, front.body, app.status, app.body)
		}
		for _, h := range []http.Header{front.header, app.header} {
			if h.Get("X-Request-ID") == "" || h.Get("X-RateLimit-Remaining") == "" {
				t.Fatalf("%v: an answer without its request id or budget: %v", extra, h)
			}
		}
		for _, h := range []http.Header{front.header, app.header} {
			for name := range h {
				if !perRequest[name] && front.header.Get(name) != app.header.Get(name) {
					t.Errorf("%v: %s in front %q, through the app %q", extra, name, front.header.Get(name), app.header.Get(name))
				}
			}
		}
	}
}
