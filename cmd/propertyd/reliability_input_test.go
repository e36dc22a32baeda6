package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
)

// relBadInput is one request that propertyd must refuse with a problem.
type relBadInput struct {
	name   string
	method string // GET when empty
	path   string
	body   []byte
	key    *string // relKey when nil
	status int
	code   string
	param  string // a parameter errors[] must name ("" for none)
}

// relQ joins raw (already escaped) query parts.
func relQ(parts ...string) string { return strings.Join(parts, "&") }

// relBadInputs lists, per endpoint, missing, empty, oversized, wrong-typed,
// out-of-range, unicode, NUL, SQL-metacharacter, duplicate and unknown
// parameters; id is an existing record.
func relBadInputs(id int) []relBadInput {
	const lookup, reverse, search, batch = "/v1/properties/lookup?", "/v1/properties/reverse?", "/v1/properties/search?", "/v1/properties/batch"
	long := strings.Repeat("a", 201) // over the 200-byte bound on any query value
	street := "street=1+Main+St"
	state := "state=TX"
	rec := "/v1/properties/" + strconv.Itoa(id)
	invalid := func(name, path, param string) relBadInput {
		return relBadInput{name: name, path: path, status: 400, code: "invalid_parameter", param: param}
	}
	batchBody := func(name, body string, status int, code, param string) relBadInput {
		return relBadInput{name: name, method: http.MethodPost, path: batch, body: []byte(body), status: status, code: code, param: param}
	}
	addresses := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`{"street":"%d MAIN ST","state":"TX"}`, i+1)
		}
		return `{"addresses":[` + strings.Join(items, ",") + `]}`
	}
	none := ""
	wrong := "not-a-configured-key"
	return []relBadInput{
		// lookup: street
		invalid("lookup street missing", lookup+relQ(state), "street"),
		invalid("lookup street empty", lookup+relQ("street=", state), "street"),
		invalid("lookup street blank", lookup+relQ("street=+++", state), "street"),
		invalid("lookup street over 100 characters", lookup+relQ("street=1+"+strings.Repeat("B", 100), state), "street"),
		invalid("lookup street over 200 bytes", lookup+relQ("street="+long, state), "street"),
		invalid("lookup street NUL", lookup+relQ("street=1+Main%00St", state), "street"),
		invalid("lookup street invalid UTF-8", lookup+relQ("street=1+Main%FFSt", state), "street"),
		invalid("lookup street emoji only", lookup+relQ("street=%F0%9F%8F%A0%F0%9F%8F%A0", state), "street"),
		invalid("lookup street SQL punctuation only", lookup+relQ("street=%27%3B--", state), "street"),
		invalid("lookup street newline", lookup+relQ("street=1+Main+St%0AApt+2", state), "street"),
		invalid("lookup street twice", lookup+relQ(street, "street=2+Main+St", state), "street"),
		{name: "lookup street PO box", path: lookup + relQ("street=PO+Box+123", state), status: 422, code: "not_a_property", param: "street"},
		// lookup: state
		invalid("lookup state missing", lookup+relQ(street), "state"),
		invalid("lookup state empty", lookup+relQ(street, "state="), "state"),
		invalid("lookup state one letter", lookup+relQ(street, "state=T"), "state"),
		invalid("lookup state unknown code", lookup+relQ(street, "state=ZZ"), "state"),
		invalid("lookup state number", lookup+relQ(street, "state=42"), "state"),
		invalid("lookup state Cyrillic look-alike", lookup+relQ(street, "state=%D0%A2%D0%A5"), "state"),
		invalid("lookup state SQL", lookup+relQ(street, "state=TX%27+OR+%271%27%3D%271"), "state"),
		invalid("lookup state NUL", lookup+relQ(street, "state=T%00X"), "state"),
		invalid("lookup state over 200 bytes", lookup+relQ(street, "state="+long), "state"),
		// lookup: zip, city
		invalid("lookup zip four digits", lookup+relQ(street, state, "zip=1234"), "zip"),
		invalid("lookup zip six digits", lookup+relQ(street, state, "zip=123456"), "zip"),
		invalid("lookup zip letters", lookup+relQ(street, state, "zip=abcde"), "zip"),
		invalid("lookup zip negative", lookup+relQ(street, state, "zip=-1234"), "zip"),
		invalid("lookup zip fullwidth digits", lookup+relQ(street, state, "zip=%EF%BC%91%EF%BC%92%EF%BC%93%EF%BC%94%EF%BC%95"), "zip"),
		invalid("lookup zip SQL", lookup+relQ(street, state, "zip=78701%27--"), "zip"),
		invalid("lookup zip NUL", lookup+relQ(street, state, "zip=78701%00"), "zip"),
		invalid("lookup zip twice", lookup+relQ(street, state, "zip=78701", "zip=78702"), "zip"),
		invalid("lookup city over 100 characters", lookup+relQ(street, state, "city="+strings.Repeat("C", 101)), "city"),
		invalid("lookup city NUL", lookup+relQ(street, state, "city=Aus%00tin"), "city"),
		invalid("lookup city invalid UTF-8", lookup+relQ(street, state, "city=Aus%C3tin"), "city"),
		// lookup: include and unknown parameters
		invalid("lookup include unknown section", lookup+relQ(street, state, "include=bogus"), "include"),
		invalid("lookup include one unknown", lookup+relQ(street, state, "include=flood,bogus"), "include"),
		invalid("lookup include unicode", lookup+relQ(street, state, "include=fl%C3%B6od"), "include"),
		invalid("lookup include SQL", lookup+relQ(street, state, "include=flood%27--"), "include"),
		invalid("lookup include NUL", lookup+relQ(street, state, "include=flood%00"), "include"),
		invalid("lookup include over 200 bytes", lookup+relQ(street, state, "include="+long), "include"),
		invalid("lookup include twice", lookup+relQ(street, state, "include=flood", "include=flood"), "include"),
		invalid("lookup unknown parameter", lookup+relQ(street, state, "stret=1"), "stret"),
		invalid("lookup unknown parameter NUL name", lookup+relQ(street, state, "%00=1"), `"\x00"`),
		// reverse
		invalid("reverse lat missing", reverse+relQ("lng=-97.7"), "lat"),
		invalid("reverse lat empty", reverse+relQ("lat=", "lng=-97.7"), "lat"),
		invalid("reverse lat word", reverse+relQ("lat=north", "lng=-97.7"), "lat"),
		invalid("reverse lat above 90", reverse+relQ("lat=90.0001", "lng=-97.7"), "lat"),
		invalid("reverse lat below -90", reverse+relQ("lat=-91", "lng=-97.7"), "lat"),
		invalid("reverse lat NaN", reverse+relQ("lat=NaN", "lng=-97.7"), "lat"),
		invalid("reverse lat infinite", reverse+relQ("lat=Infinity", "lng=-97.7"), "lat"),
		invalid("reverse lat overflow", reverse+relQ("lat=1e999", "lng=-97.7"), "lat"),
		invalid("reverse lat fullwidth", reverse+relQ("lat=%EF%BC%93%EF%BC%90", "lng=-97.7"), "lat"),
		invalid("reverse lat NUL", reverse+relQ("lat=30%00", "lng=-97.7"), "lat"),
		invalid("reverse lat SQL", reverse+relQ("lat=30%27+OR+1%3D1", "lng=-97.7"), "lat"),
		invalid("reverse lat twice", reverse+relQ("lat=30", "lat=31", "lng=-97.7"), "lat"),
		invalid("reverse lat over 200 bytes", reverse+relQ("lat=3"+strings.Repeat("0", 200), "lng=-97.7"), "lat"),
		invalid("reverse lng above 180", reverse+relQ("lat=30", "lng=180.5"), "lng"),
		invalid("reverse lng below -180", reverse+relQ("lat=30", "lng=-181"), "lng"),
		invalid("reverse lng missing", reverse+relQ("lat=30"), "lng"),
		invalid("reverse include unknown", reverse+relQ("lat=30", "lng=-97.7", "include=bogus"), "include"),
		invalid("reverse unknown parameter", reverse+relQ("lat=30", "lng=-97.7", "lon=1"), "lon"),
		// batch
		{name: "batch no body", method: http.MethodPost, path: batch, status: 400, code: "invalid_body", param: "body"},
		batchBody("batch blank body", "   ", 400, "invalid_body", "body"),
		batchBody("batch null", "null", 400, "invalid_body", "body"),
		batchBody("batch array", `[{"street":"1 Main St","state":"TX"}]`, 400, "invalid_body", "body"),
		batchBody("batch empty object", `{}`, 400, "invalid_parameter", "addresses"),
		batchBody("batch addresses null", `{"addresses":null}`, 400, "invalid_parameter", "addresses"),
		batchBody("batch addresses object", `{"addresses":{}}`, 400, "invalid_parameter", "addresses"),
		batchBody("batch addresses string", `{"addresses":"1 Main St"}`, 400, "invalid_parameter", "addresses"),
		batchBody("batch addresses number", `{"addresses":1}`, 400, "invalid_parameter", "addresses"),
		batchBody("batch truncated", `{"addresses":[{"street":"1 Main`, 400, "invalid_body", "body"),
		batchBody("batch relData after the object", addresses(1)+` {}`, 400, "invalid_body", "body"),
		batchBody("batch NUL byte", "\x00", 400, "invalid_body", "body"),
		batchBody("batch NUL inside JSON", `{"addresses":[`+"\x00"+`]}`, 400, "invalid_body", "body"),
		batchBody("batch byte order mark", "\xEF\xBB\xBF"+addresses(1), 400, "invalid_body", "body"),
		batchBody("batch SQL instead of JSON", `'); DROP TABLE properties;--`, 400, "invalid_body", "body"),
		batchBody("batch member twice in an address", `{"addresses":[{"street":"1 Main St","street":"2 Main St","state":"TX"}]}`, 400, "invalid_body", "addresses[0].street"),
		batchBody("batch no addresses", `{"addresses":[]}`, 422, "invalid_batch_size", "addresses"),
		batchBody("batch 26 addresses", addresses(26), 422, "invalid_batch_size", "addresses"),
		batchBody("batch body over 1 MB", `{"addresses":[`+strings.Repeat(" ", 1<<20)+`]}`, 413, "body_too_large", ""),
		{name: "batch include unknown", method: http.MethodPost, path: batch + "?include=bogus", body: []byte(addresses(1)), status: 400, code: "invalid_parameter", param: "include"},
		{name: "batch include twice", method: http.MethodPost, path: batch + "?include=flood&include=flood", body: []byte(addresses(1)), status: 400, code: "invalid_parameter", param: "include"},
		{name: "batch unknown parameter", method: http.MethodPost, path: batch + "?dry_run=1", body: []byte(addresses(1)), status: 400, code: "invalid_parameter", param: "dry_run"},
		// search
		invalid("search zip four digits", search+"zip=1234", "zip"),
		invalid("search zip letters", search+"zip=abcde", "zip"),
		invalid("search zip SQL", search+"zip=1%27+OR+1%3D1", "zip"),
		invalid("search zip NUL", search+"zip=%00", "zip"),
		invalid("search state unknown", search+"state=XX", "state"),
		invalid("search state SQL", search+"state=TX%27--", "state"),
		invalid("search state unicode", search+"state=%C3%9CX", "state"),
		invalid("search property_type unknown", search+"property_type=house", "property_type"),
		invalid("search property_type SQL", search+"property_type=condo%27%3B--", "property_type"),
		invalid("search min_bedrooms negative", search+"min_bedrooms=-1", "min_bedrooms"),
		invalid("search min_bedrooms above 100", search+"min_bedrooms=101", "min_bedrooms"),
		invalid("search min_bedrooms word", search+"min_bedrooms=two", "min_bedrooms"),
		invalid("search min_bedrooms fraction", search+"min_bedrooms=1.5", "min_bedrooms"),
		invalid("search min_bedrooms empty", search+"min_bedrooms=", "min_bedrooms"),
		invalid("search max_bedrooms word", search+"max_bedrooms=many", "max_bedrooms"),
		invalid("search min above max", search+"min_bedrooms=3&max_bedrooms=2", "min_bedrooms"),
		invalid("search page zero", search+"page=0", "page"),
		invalid("search page negative", search+"page=-1", "page"),
		invalid("search page too far", search+"page=1000001", "page"),
		invalid("search page overflow", search+"page=99999999999999999999999", "page"),
		invalid("search page word", search+"page=next", "page"),
		invalid("search page twice", search+"page=1&page=2", "page"),
		invalid("search per_page zero", search+"per_page=0", "per_page"),
		invalid("search per_page above 100", search+"per_page=101", "per_page"),
		invalid("search per_page fullwidth", search+"per_page=%EF%BC%91%EF%BC%90", "per_page"),
		invalid("search city NUL", search+"city=%00", "city"),
		invalid("search city invalid UTF-8", search+"city=%FF", "city"),
		invalid("search city over 200 bytes", search+"city="+long, "city"),
		invalid("search unknown parameter", search+"sort=id", "sort"),
		invalid("search include is not a search parameter", search+"include=flood", "include"),
		// get by id
		invalid("get id zero", "/v1/properties/0", "id"),
		invalid("get id negative", "/v1/properties/-1", "id"),
		invalid("get id word", "/v1/properties/abc", "id"),
		invalid("get id fraction", "/v1/properties/1.5", "id"),
		invalid("get id overflow", "/v1/properties/9223372036854775808", "id"),
		invalid("get id NUL", "/v1/properties/1%00", "id"),
		invalid("get id fullwidth", "/v1/properties/%EF%BC%91", "id"),
		invalid("get id SQL", "/v1/properties/1%20OR%201=1", "id"),
		invalid("get include unknown", rec+"?include=bogus", "include"),
		invalid("get include twice", rec+"?include=flood&include=flood", "include"),
		invalid("get unknown parameter", rec+"?fields=id", "fields"),
		{name: "get id unknown", path: "/v1/properties/999999", status: 404, code: "property_not_found"},
		// standalone sections
		invalid("amenities radius below 500", rec+"/amenities?radius=499", "radius"),
		invalid("amenities radius above 5000", rec+"/amenities?radius=5001", "radius"),
		invalid("amenities radius word", rec+"/amenities?radius=far", "radius"),
		invalid("amenities radius empty", rec+"/amenities?radius=", "radius"),
		invalid("amenities radius exponent", rec+"/amenities?radius=1e3", "radius"),
		invalid("amenities radius NUL", rec+"/amenities?radius=1000%00", "radius"),
		invalid("amenities radius twice", rec+"/amenities?radius=1000&radius=2000", "radius"),
		invalid("flood takes no radius", rec+"/flood?radius=1000", "radius"),
		invalid("demographics unknown parameter", rec+"/demographics?year=2020", "year"),
		invalid("section id word", "/v1/properties/abc/flood", "id"),
		{name: "section unknown", path: rec + "/bogus", status: 404, code: "not_found"},
		{name: "section id unknown", path: "/v1/properties/999999/flood", status: 404, code: "property_not_found"},
		// keys, methods, routes, transport limits
		{name: "no key", path: rec, key: &none, status: 401, code: "unauthorized"},
		{name: "unknown key", path: rec, key: &wrong, status: 401, code: "unauthorized"},
		{name: "DELETE a record", method: http.MethodDelete, path: rec, status: 405, code: "method_not_allowed"},
		{name: "POST a lookup", method: http.MethodPost, path: lookup + relQ(street, state), body: []byte(`{}`), status: 405, code: "method_not_allowed"},
		{name: "PUT a batch", method: http.MethodPut, path: batch, body: []byte(addresses(1)), status: 405, code: "method_not_allowed"},
		{name: "unknown method", method: "FETCH", path: rec, status: 405, code: "method_not_allowed"},
		{name: "unknown route", path: "/v1/houses", status: 404, code: "not_found"},
		// A request line over the server's read buffer is refused before
		// routing, still as a problem.
		{name: "query of 8 KB", path: search + "city=" + strings.Repeat("a", 8<<10), status: 400, code: "bad_request"},
	}
}

// TestBadInputIsRefusedAsProblemAndWritesNothing sends every bad input
// over real HTTP: each gets its 4xx as problem details naming the
// parameter, no record or section is written, and no upstream is called.
func TestBadInputIsRefusedAsProblemAndWritesNothing(t *testing.T) {
	r := relNewRig(t, relConfig{})
	id := r.seed("austin-tx")
	relWantStatus(t, r.get(fmt.Sprintf("/v1/properties/%d?include=%s", id, relAllSections)), 200)
	counts := relDbCounts(t, r.cfg.db)
	calls := r.sb.Calls(sandbox.All)
	for _, c := range relBadInputs(id) {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = http.MethodGet
			}
			key := relKey.key
			if c.key != nil {
				key = *c.key
			}
			rp := relCall(t, r.base, key, method, c.path, c.body, nil)
			p := relWantProblem(t, rp, c.status, c.code)
			if c.param != "" && !relNamesParam(p, c.param) {
				t.Fatalf("the problem does not name parameter %q in errors: %s", c.param, rp)
			}
			if got := r.sb.Calls(sandbox.All); got != calls {
				t.Fatalf("bad input made %d upstream calls", got-calls)
			}
			if got := relDbCounts(t, r.cfg.db); fmt.Sprint(got) != fmt.Sprint(counts) {
				t.Fatalf("bad input changed the database: %v -> %v", counts, got)
			}
		})
	}
}

func relNamesParam(problem map[string]any, param string) bool {
	errs, _ := problem["errors"].([]any)
	for _, e := range errs {
		if m, _ := e.(map[string]any); m["parameter"] == param {
			return true
		}
	}
	return false
}

// TestBatchItemsThatAreBadBecomeErrorEntries: a well-formed batch whose
// addresses are all bad answers 200 with one error entry per address
// (every index exactly once), writes nothing and calls nobody.
func TestBatchItemsThatAreBadBecomeErrorEntries(t *testing.T) {
	r := relNewRig(t, relConfig{})
	r.seed("austin-tx")
	counts := relDbCounts(t, r.cfg.db)
	calls := r.sb.Calls(sandbox.All)
	items := []string{
		`{"street":1,"state":"TX"}`,
		`"1 Main St, Austin, TX"`,
		`null`,
		`[]`,
		`{"street":"","state":"TX"}`,
		`{"street":"1 Main St","state":"ZZ"}`,
		`{"street":"1 Main St","state":"TX","zip":"7870"}`,
		`{"street":"1 Main St\u0000","state":"TX"}`,
		`{"street":"1 Main St","state":"T\u0000X"}`,
		`{"street":"\u0001\u0002","state":"TX"}`,
		`{"street":"PO Box 12","state":"TX"}`,
		`{"street":"1 Main St","state":"TX","country":"US"}`,
		`{"id":7,"street":"1 Main St","state":"TX"}`,
		`{"street":"` + strings.Repeat("9", 101) + `","state":"TX"}`,
		`{"street":"'); DROP TABLE properties;--","state":"TX' OR '1'='1"}`,
		`{"street":"🏠","state":"TX"}`,
		`{"street":"1 Main St\ud800","state":"TX"}`,
		`{"street":"\udc00","state":"TX"}`,
		`{"state":"TX"}`,
	}
	body := []byte(`{"addresses":[` + strings.Join(items, ",") + `]}`)
	rp := r.post("/v1/properties/batch", body)
	relWantStatus(t, rp, 200)
	d := relData(t, rp)
	if n, _ := d["total_errors"].(float64); int(n) != len(items) || len(d["results"].([]any)) != 0 {
		t.Fatalf("want all %d addresses as errors, got %s", len(items), rp)
	}
	seen := map[int]bool{}
	for _, e := range d["errors"].([]any) {
		m := e.(map[string]any)
		seen[int(m["index"].(float64))] = true
		switch m["code"] {
		case "invalid_address", "invalid_parameter", "not_a_property":
		default:
			t.Errorf("item %v: code %v", m["index"], m["code"])
		}
	}
	if len(seen) != len(items) {
		t.Fatalf("error entries cover %d of %d indexes: %s", len(seen), len(items), rp)
	}
	if got := r.sb.Calls(sandbox.All); got != calls {
		t.Fatalf("a batch of bad addresses made %d upstream calls", got-calls)
	}
	if got := relDbCounts(t, r.cfg.db); fmt.Sprint(got) != fmt.Sprint(counts) {
		t.Fatalf("a batch of bad addresses changed the database: %v -> %v", counts, got)
	}
}

// TestOddButWellFormedInputIsHarmless: input that is valid but hostile
// (SQL in a street or a city filter, non-Latin scripts) is treated as
// data: the geocoder may be asked and says no match, a filter matches
// nothing, and the tables are intact.
func TestOddButWellFormedInputIsHarmless(t *testing.T) {
	r := relNewRig(t, relConfig{})
	r.seed("austin-tx")
	r.seed("denver-co")
	counts := relDbCounts(t, r.cfg.db)
	for _, street := range []string{
		"1 Main St'); DROP TABLE properties;--",
		`1 Main St" OR 1=1 --`,
		"12 Calle Ñandú",
		"12 улица Ленина",
		"12 中山路",
	} {
		rp := r.get("/v1/properties/lookup?" + url.Values{"street": {street}, "state": {"TX"}}.Encode())
		relWantProblem(t, rp, 404, "address_not_found")
	}
	for _, city := range []string{"' OR 1=1 --", `AUSTIN' OR 'a'='a`, "%", "_", "AUST%", "*"} {
		rp := r.get("/v1/properties/search?" + url.Values{"city": {city}}.Encode())
		relWantStatus(t, rp, 200)
		if total := rp.json()["meta"].(map[string]any)["total"]; total != 0.0 {
			t.Fatalf("search city=%q matched %v records; a filter value must be matched as text", city, total)
		}
	}
	// What the five streets may add is the geocoder's no-match for each,
	// remembered (as Missing section records) for the miss TTL.
	counts["sections"] += 5
	if got := relDbCounts(t, r.cfg.db); fmt.Sprint(got) != fmt.Sprint(counts) {
		t.Fatalf("odd input changed the database beyond remembering five misses: want %v, got %v", counts, got)
	}
	db := relOpenReadOnly(t, r.cfg.db)
	defer db.Close()
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	rp := r.get("/v1/properties/search?state=TX")
	relWantStatus(t, rp, 200)
	if !bytes.Contains(rp.body, []byte(`"1100 CONGRESS AVE"`)) {
		t.Fatalf("the seeded record is gone: %s", rp)
	}
}

// TestUnusedConnectionIsClosedWithoutAnAnswer: a client may open a
// connection and not use it yet (HTTP clients keep spare connections).
// When the server's read timeout passes, it must close that connection
// without writing anything: an unsolicited "400 request_timeout" could be
// read by the client as the answer to the request it sends at that moment.
func TestUnusedConnectionIsClosedWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	// The read timeout is the request timeout plus 5s.
	r := relNewRig(t, relConfig{requestTimeout: "100ms"})
	conn, err := net.Dial("tcp", strings.TrimPrefix(r.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	b, err := io.ReadAll(conn)
	if len(b) > 0 {
		t.Fatalf("the server wrote to a connection that sent no request: %q", b)
	}
	if err != nil {
		t.Fatalf("the server did not close an unused connection: %v", err)
	}
}
