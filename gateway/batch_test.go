package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
)

type batchBody struct {
	Data struct {
		Results        []map[string]any `json:"results"`
		Errors         []map[string]any `json:"errors"`
		TotalRequested int              `json:"total_requested"`
		TotalFound     int              `json:"total_found"`
		TotalErrors    int              `json:"total_errors"`
	} `json:"data"`
}

func decodeBatch(t *testing.T, r response) batchBody {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("batch status %d: %s", r.status, r.body)
	}
	var b batchBody
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBatchReportsEveryIndexOnce(t *testing.T) {
	s := newStack(t, stackOptions{})
	s.get(lookupURL("500 Elm Ave", "Richmond", "VA", "")) // exists before the batch
	calls := s.geo.calls.Load()
	body := `{"addresses":[
		{"id":"a","street":"123 N Main St","city":"Springfield","state":"IL"},
		{"id":"b","street":"999 Nowhere Rd","state":"IL"},
		{"id":"c","street":"123 north main street","city":"springfield","state":"il"},
		{"street":"500 Elm Ave","city":"Richmond","state":"VA"},
		{"id":"e","street":"PO Box 9","state":"IL"},
		{"id":"f","street":"1 Main St","state":"QQ"},
		"not an object",
		{"id":"h","street":42,"state":"IL"}
	]}`
	b := decodeBatch(t, s.do("POST", "/v1/properties/batch", body))
	d := b.Data
	if d.TotalRequested != 8 || d.TotalFound != 3 || d.TotalErrors != 5 {
		t.Fatalf("totals requested %d found %d errors %d, want 8/3/5", d.TotalRequested, d.TotalFound, d.TotalErrors)
	}
	seen := map[int]bool{}
	for _, r := range d.Results {
		seen[int(r["index"].(float64))] = true
	}
	for _, e := range d.Errors {
		i := int(e["index"].(float64))
		if seen[i] {
			t.Fatalf("index %d appears twice", i)
		}
		seen[i] = true
		if e["code"] == "" || e["message"] == "" {
			t.Fatalf("error entry lacks code/message: %v", e)
		}
		// input is the address object as sent, and absent for an item
		// that is no object: always of one type for a client to decode.
		if in, isObject := e["input"].(map[string]any); (e["code"] == "invalid_address") != (in == nil) || e["input"] != nil && !isObject {
			t.Fatalf("error entry %d: input %#v; want the object sent, or none for an item that is no object", i, e["input"])
		}
	}
	for i := 0; i < 8; i++ {
		if !seen[i] {
			t.Fatalf("index %d was dropped", i)
		}
	}
	byIndex := map[int]map[string]any{}
	for _, r := range d.Results {
		byIndex[int(r["index"].(float64))] = r
	}
	if byIndex[0]["client_id"] != "a" || byIndex[2]["client_id"] != "c" {
		t.Fatalf("client ids not echoed: %v %v", byIndex[0]["client_id"], byIndex[2]["client_id"])
	}
	if byIndex[0]["id"] != byIndex[2]["id"] {
		t.Fatal("two spellings of one address in a batch made two records")
	}
	if byIndex[0]["source"] != "census" || byIndex[3]["source"] != "database" {
		t.Fatalf("sources = %v, %v; want census for new, database for existing", byIndex[0]["source"], byIndex[3]["source"])
	}
	if byIndex[0]["street_address"] != "123 N MAIN ST" {
		t.Fatalf("result is not a full record: %v", byIndex[0])
	}
	codes := map[int]string{}
	for _, e := range d.Errors {
		codes[int(e["index"].(float64))] = e["code"].(string)
	}
	want := map[int]string{1: "address_not_found", 4: "not_a_property", 5: "invalid_parameter", 6: "invalid_address", 7: "invalid_parameter"}
	for i, c := range want {
		if codes[i] != c {
			t.Errorf("error code at %d = %q, want %q", i, codes[i], c)
		}
	}
	if got := s.geo.calls.Load() - calls; got != 2 {
		t.Fatalf("geocoder calls for the batch = %d, want 2 (one per distinct new address)", got)
	}
}

func TestBatchCostAndSizeLimits(t *testing.T) {
	s := newStack(t, stackOptions{burst: 30, rate: 0.001})
	one := `{"street":"123 N Main St","state":"IL"}`
	r := s.do("POST", "/v1/properties/batch", `{"addresses":[`+one+`,`+one+`]}`)
	if r.status != 200 || r.header.Get("X-Request-Cost") != "2" {
		t.Fatalf("batch of 2: status %d cost %s", r.status, r.header.Get("X-Request-Cost"))
	}
	items := make([]string, 26)
	for i := range items {
		items[i] = one
	}
	wantProblem(t, s.do("POST", "/v1/properties/batch", `{"addresses":[`+strings.Join(items, ",")+`]}`), 422, "invalid_batch_size")
	wantProblem(t, s.do("POST", "/v1/properties/batch", `{"addresses":[]}`), 422, "invalid_batch_size")
	// 25 addresses cost 25 and the burst left is 28: allowed; then 25 more
	// is refused with 429, not 422.
	r = s.do("POST", "/v1/properties/batch", `{"addresses":[`+strings.Join(items[:25], ",")+`]}`)
	if r.status != 200 || r.header.Get("X-Request-Cost") != "25" {
		t.Fatalf("batch of 25: %d cost %s", r.status, r.header.Get("X-Request-Cost"))
	}
	wantProblem(t, s.do("POST", "/v1/properties/batch", `{"addresses":[`+strings.Join(items[:25], ",")+`]}`), 429, "rate_limited")
}

func TestBatchCostExceedingBurstIs422(t *testing.T) {
	s := newStack(t, stackOptions{burst: 10})
	one := `{"street":"123 N Main St","state":"IL"}`
	items := make([]string, 11)
	for i := range items {
		items[i] = one
	}
	r := s.do("POST", "/v1/properties/batch", `{"addresses":[`+strings.Join(items, ",")+`]}`)
	wantProblem(t, r, 422, "cost_exceeds_limit")
	if r.header.Get("X-Request-Cost") != "11" {
		t.Fatalf("X-Request-Cost = %s", r.header.Get("X-Request-Cost"))
	}
}

func TestBatchRejectsBadBodies(t *testing.T) {
	s := newStack(t, stackOptions{})
	// A body that is not one JSON object is invalid_body; one whose members
	// are wrong is invalid_parameter, naming the member.
	for name, c := range map[string]struct{ body, code string }{
		"empty":          {"", "invalid_body"},
		"not json":       {"street=1", "invalid_body"},
		"array":          {`[{"street":"1 Main St"}]`, "invalid_body"},
		"trailing data":  {`{"addresses":[{"street":"1 Main St","state":"IL"}]} {}`, "invalid_body"},
		"trailing brace": {`{"addresses":[{"street":"1 Main St","state":"IL"}]}}`, "invalid_body"},
		"trailing ]":     {`{"addresses":[{"street":"1 Main St","state":"IL"}]}]`, "invalid_body"},
		"trailing text":  {`{"addresses":[{"street":"1 Main St","state":"IL"}]}x`, "invalid_body"},
		"no addresses":   {`{"items":[]}`, "invalid_parameter"},
		"wrong type":     {`{"addresses":"1 Main St"}`, "invalid_parameter"},
		"null addresses": {`{"addresses":null}`, "invalid_parameter"},
		"unknown member": {`{"addresses":[{"street":"1 Main St","state":"IL"}],"priority":"high"}`, "invalid_parameter"},
	} {
		r := s.do("POST", "/v1/properties/batch", c.body)
		if r.status != 400 {
			t.Errorf("%s: status %d, want 400: %s", name, r.status, r.body)
			continue
		}
		if r.json["code"] != c.code || r.header.Get("X-Request-Cost") != "0" {
			t.Errorf("%s: code %v at cost %s, want %s at cost 0: %s", name, r.json["code"], r.header.Get("X-Request-Cost"), c.code, r.body)
		}
	}
	wantProblem(t, s.declaringHugeBody("POST", "/v1/properties/batch", 2<<20), 413, "body_too_large")
	if s.countProperties() != 0 || s.geo.calls.Load() != 0 {
		t.Fatal("bad batch bodies changed something")
	}
}

// A batch item takes a unit apart from its street, read as lookup's unit=
// and the import's unit column are: the same record as the unit written on
// the street, and another record than the building.
func TestBatchItemsTakeAUnit(t *testing.T) {
	s := newStack(t, stackOptions{})
	building := s.get(lookupURL("500 Elm Ave", "Richmond", "VA", "")).data()["id"]
	hash := s.get(lookupURL("500 Elm Ave #4B", "Richmond", "VA", "")).data()["id"]
	b := decodeBatch(t, s.do("POST", "/v1/properties/batch", `{"addresses":[
		{"id":"a","street":"500 Elm Ave","unit":"4B","city":"Richmond","state":"VA"},
		{"id":"b","street":"500 Elm Ave","unit":"Apt 7","city":"Richmond","state":"VA"},
		{"id":"c","street":"500 Elm Ave Apt 7","city":"Richmond","state":"VA"},
		{"id":"d","street":"500 Elm Ave Apt 4","unit":"Apt 5","city":"Richmond","state":"VA"},
		{"id":"e","street":"500 Elm Ave","unit":4,"city":"Richmond","state":"VA"}
	]}`))
	got := map[string]any{}
	for _, r := range b.Data.Results {
		got[r["client_id"].(string)] = r["id"]
	}
	if got["a"] != hash || got["b"] == building || got["b"] != got["c"] || got["b"] == nil {
		t.Fatalf("ids by client id %v: want a = #4B's %v, b = c and neither the building's %v", got, hash, building)
	}
	if len(b.Data.Errors) != 2 {
		t.Fatalf("errors %v, want the unit that contradicts the street (d) and the unit that is no string (e)", b.Data.Errors)
	}
	for _, e := range b.Data.Errors {
		if e["code"] != "invalid_parameter" || !strings.Contains(string(mustJSON(e["errors"])), `"parameter":"unit"`) {
			t.Errorf("error entry %v: want invalid_parameter naming unit", e)
		}
	}
}

// An item refused for one of its members still names the client's id in
// its error entry, as the input beside it does; an id that is itself
// refused (not a string) is no client_id.
func TestBatchItemRefusedForAMemberKeepsItsClientID(t *testing.T) {
	s := newStack(t, stackOptions{})
	body := `{"addresses":[
		{"id":"wrong-type","street":42,"state":"IL"},
		{"id":"unknown","street":"123 N Main St","state":"IL","county":"Sangamon"},
		{"id":"bad-q","q":"123 N Main St, Springfield, IL","street":"123 N Main St"},
		{"id":7,"street":"123 N Main St","state":"IL"},
		[1,2]
	]}`
	d := decodeBatch(t, s.do("POST", "/v1/properties/batch", body)).Data
	want := map[int]any{0: "wrong-type", 1: "unknown", 2: "bad-q", 3: nil, 4: nil}
	if len(d.Errors) != len(want) {
		t.Fatalf("errors %v, want one per item", d.Errors)
	}
	for _, e := range d.Errors {
		i := int(e["index"].(float64))
		if got, ok := e["client_id"]; !ok || got != want[i] {
			t.Errorf("item %d (%s): client_id %#v, want %#v; entry %v", i, e["code"], got, want[i], e)
		}
	}
}
