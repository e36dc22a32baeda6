package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/census"
	"github.com/propertyd/propertyd/providers/service"
	"github.com/propertyd/propertyd/store/engine"
)

// The places the fake Census geocoder knows in the import tests.
var (
	cedarSprings = providertest.CensusPlace{
		Street: "4100 CEDAR SPRINGS RD", City: "DALLAS", State: "TX", Zip: "75219",
		Lat: 32.81234, Lng: -96.81377, CountyName: "Dallas County", StateFIPS: "48", CountyFIPS: "113",
		Tract: "000501", Block: "2001",
	}
	commerceSt = providertest.CensusPlace{
		Street: "2710 COMMERCE ST", City: "DALLAS", State: "TX", Zip: "75226",
		Lat: 32.78290, Lng: -96.78154, CountyName: "Dallas County", StateFIPS: "48", CountyFIPS: "113",
		Tract: "002100", Block: "1012",
	}
	southCongress = providertest.CensusPlace{
		Street: "815 S CONGRESS AVE", City: "AUSTIN", State: "TX", Zip: "78704",
		Lat: 30.25641, Lng: -97.74689, CountyName: "Travis County", StateFIPS: "48", CountyFIPS: "453",
		Tract: "001304", Block: "3006",
	}
)

const batchRoute = "POST " + census.DefaultBaseURL + "/geographies/addressbatch"

// importEnv is one database and one fake geocoder shared by several runs.
type importEnv struct {
	t      *testing.T
	dir    string
	db     string
	config string
	mt     *httpmock.MockTransport
	sent   []int    // addresses sent by each batch call
	files  []string // the address file of each batch call
}

// newImportEnv returns an env whose fake geocoder knows the import tests'
// places and extra.
func newImportEnv(t *testing.T, extra ...providertest.CensusPlace) *importEnv {
	t.Helper()
	return newImportEnvOn(t, "", extra...)
}

// newImportEnvOn is newImportEnv on database (a SQLite file in the test's
// folder when empty).
func newImportEnvOn(t *testing.T, database string, extra ...providertest.CensusPlace) *importEnv {
	t.Helper()
	dir := t.TempDir()
	if database == "" {
		database = filepath.Join(dir, "p.db")
	}
	e := &importEnv{t: t, dir: dir, db: database, config: filepath.Join("..", "..", "config.yaml"),
		mt: httpmock.NewMockTransport()}
	t.Setenv("PROPERTYD_DATABASE", e.db)
	places := append([]providertest.CensusPlace{cedarSprings, commerceSt, southCongress}, extra...)
	providertest.RegisterCensusGeocoder(e.mt, census.DefaultBaseURL, places...)
	// Batch calls go through a second fake that also records how many
	// addresses each call sent.
	inner := httpmock.NewMockTransport()
	providertest.RegisterCensusGeocoder(inner, census.DefaultBaseURL, places...)
	e.mt.RegisterResponder(http.MethodPost, census.DefaultBaseURL+"/geographies/addressbatch", func(req *http.Request) (*http.Response, error) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		peek := req.Clone(req.Context())
		peek.Body = io.NopCloser(bytes.NewReader(body))
		if err := peek.ParseMultipartForm(32 << 20); err != nil {
			return nil, err
		}
		f, _, err := peek.FormFile("addressFile")
		if err != nil {
			return nil, err
		}
		file, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
		if err != nil {
			return nil, err
		}
		e.sent = append(e.sent, len(rows))
		e.files = append(e.files, string(file))
		req.Body = io.NopCloser(bytes.NewReader(body))
		return inner.RoundTrip(req)
	})
	return e
}

// file writes content as name in the test's folder and returns its path.
func (e *importEnv) file(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

type importRun struct {
	code           int
	stdout, stderr string
	batchCalls     int
	sent           []int // addresses sent by each batch call
}

// run imports with args (after -config) and reports what a user would see
// and how many batch calls it made.
func (e *importEnv) run(args ...string) importRun {
	e.t.Helper()
	before, sent := e.mt.GetCallCountInfo()[batchRoute], len(e.sent)
	var out, errb bytes.Buffer
	c := &importCommand{console{stdout: &out, stderr: &errb, transport: e.mt}}
	code := c.run(append([]string{"-config", e.config}, args...))
	return importRun{code, out.String(), errb.String(), e.mt.GetCallCountInfo()[batchRoute] - before, e.sent[sent:]}
}

// records returns every record in the database, by id.
func (e *importEnv) records() []providers.Property {
	e.t.Helper()
	db, err := engine.Open(context.Background(), e.db, engine.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	props, total, err := db.Search(context.Background(), providers.SearchFilter{Page: 1, PerPage: 100})
	if err != nil || total != len(props) {
		e.t.Fatalf("search: %d of %d, %v", len(props), total, err)
	}
	return props
}

// importer returns an importer over the env's database (closed with the
// test) that geocodes through the fake Census module, with chunk rows per
// chunk, and fails the test on any failed row.
func (e *importEnv) importer(chunk int) *service.Importer {
	e.t.Helper()
	db, err := engine.Open(context.Background(), e.db, engine.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	c, err := census.New(providers.Settings{Client: &http.Client{Transport: e.mt}})
	if err != nil {
		e.t.Fatal(err)
	}
	return &service.Importer{Store: db, Geocoder: c, Source: "census", ChunkRows: chunk,
		Fail: func(f []string, reason string) error { return fmt.Errorf("row %v failed: %s", f, reason) }}
}

func summaryOf(counts ...int) string {
	return fmt.Sprintf("rows read:   %d\nmatched:     %d\n  created:   %d\n  updated:   %d\n  unchanged: %d\nfailed:      %d\n",
		counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("failures file: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("failures file is not CSV: %v", err)
	}
	return recs
}

func TestImportIsIdempotentAndUpdatesAttributes(t *testing.T) {
	eachEngine(t, func(t *testing.T, database string) {
		testImportIsIdempotentAndUpdatesAttributes(t, newImportEnvOn(t, database))
	})
}

func testImportIsIdempotentAndUpdatesAttributes(t *testing.T, e *importEnv) {
	homes, err := os.ReadFile(filepath.Join("testdata", "homes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	file := e.file("homes.csv", string(homes))

	// First run: 9 rows, 4 bad ones, one address given in two spellings.
	r := e.run(file)
	if r.code != exitRowsFailed {
		t.Fatalf("first run: exit %d, want %d (rows failed)\n%s%s", r.code, exitRowsFailed, r.stdout, r.stderr)
	}
	failuresPath := filepath.Join(e.dir, "homes.failures.csv")
	if want := summaryOf(9, 5, 4, 0, 1, 4) + "failures:    " + failuresPath + "\nmatches:     5 exact\n"; r.stdout != want {
		t.Fatalf("first run summary:\n%s\nwant:\n%s", r.stdout, want)
	}
	// The PO box, the bad state and the bad bedrooms are not sent; rows 1
	// and 2 share a building but spell it differently, and the geocoder
	// gets each spelling as written: 6 addresses in one call.
	if r.batchCalls != 1 || !slices.Equal(r.sent, []int{6}) {
		t.Fatalf("first run made %d batch calls sending %v addresses, want 1 call with 6", r.batchCalls, r.sent)
	}
	first := e.records()
	type attrs struct {
		street, unit, ptype string
		bedrooms            int
	}
	show := func(ps []providers.Property) []attrs {
		var out []attrs
		for _, p := range ps {
			a := attrs{street: p.StreetAddress, unit: p.Unit, bedrooms: -1}
			if p.PropertyType != nil {
				a.ptype = *p.PropertyType
			}
			if p.Bedrooms != nil {
				a.bedrooms = *p.Bedrooms
			}
			out = append(out, a)
		}
		return out
	}
	want := []attrs{
		{"4100 CEDAR SPRINGS RD", "", "single_family", 3},
		{"4100 CEDAR SPRINGS RD", "APT 12", "condo", 1},
		{"2710 COMMERCE ST", "", "townhouse", 2},
		{"815 S CONGRESS AVE", "# 3", "mobile_home", -1},
	}
	if got := show(first); !slices.Equal(got, want) {
		t.Fatalf("records after the first run:\n%+v\nwant\n%+v", got, want)
	}
	if p := first[0]; p.FIPSCode != "48113" || p.CensusTract != "000501" || p.Latitude != 32.81234 || p.Source != "census" {
		t.Fatalf("imported record = %+v, want the geocoder's geographies", p)
	}

	// The failures file holds each bad row as it was, with its reason.
	failures := readCSV(t, failuresPath)
	wantFailures := []struct {
		row    string
		reason string
	}{
		{"PO Box 4410,,Dallas,TX,75201,,", "street: is a post office box"},
		{"2710 Commerce St,,Dallas,ZZ,75226,2,", "state: must be a US state"},
		{"99 Nowhere Trl,,Dallas,TX,75201,,", "could not be matched"},
		{"815 S Congress Ave,,Austin,TX,78704,lots,other", `bedrooms: "lots" is not a number`},
	}
	if got := strings.Join(failures[0], ","); got != "street,unit,city,state,zip,bedrooms,property_type,reason" {
		t.Fatalf("failures header = %q", got)
	}
	if len(failures) != len(wantFailures)+1 {
		t.Fatalf("failures file has %d rows, want %d:\n%v", len(failures)-1, len(wantFailures), failures)
	}
	for i, w := range wantFailures {
		rec := failures[i+1]
		if got := strings.Join(rec[:len(rec)-1], ","); got != w.row || !strings.Contains(rec[len(rec)-1], w.reason) {
			t.Errorf("failure %d = %q, reason %q; want %q with a reason containing %q", i+1, got, rec[len(rec)-1], w.row, w.reason)
		}
	}

	// Second run, one bedroom count changed: nothing is created, nothing
	// that resolves is geocoded again, only the unmatched address is asked.
	file = e.file("homes.csv", strings.Replace(string(homes), "Road,,Dallas,TX,75219,3,", "Road,,Dallas,TX,75219,4,", 1))
	r = e.run(file)
	if r.code != exitRowsFailed {
		t.Fatalf("second run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, summaryOf(9, 5, 0, 1, 4, 4)) {
		t.Fatalf("second run summary:\n%s\nwant:\n%s", r.stdout, summaryOf(9, 5, 0, 1, 4, 4))
	}
	if r.batchCalls != 1 || !slices.Equal(r.sent, []int{1}) {
		t.Fatalf("second run made %d batch calls sending %v addresses, want 1 call for the unmatched address only", r.batchCalls, r.sent)
	}
	second := e.records()
	want[0].bedrooms = 4
	if got := show(second); !slices.Equal(got, want) {
		t.Fatalf("records after the second run:\n%+v\nwant\n%+v", got, want)
	}
	for i := range first {
		if first[i].ID != second[i].ID {
			t.Fatalf("record ids changed between runs: %d became %d", first[i].ID, second[i].ID)
		}
	}
	if !second[0].UpdatedAt.After(first[0].UpdatedAt) || !second[2].UpdatedAt.Equal(first[2].UpdatedAt) {
		t.Fatalf("updated_at: changed record %v -> %v, unchanged record %v -> %v",
			first[0].UpdatedAt, second[0].UpdatedAt, first[2].UpdatedAt, second[2].UpdatedAt)
	}
	if len(readCSV(t, failuresPath)) != len(wantFailures)+1 {
		t.Fatal("the failures file was not rewritten with the same failures")
	}

	// Third run, only rows that resolve: no geocoding at all, exit 0.
	var good []string
	for _, line := range strings.Split(strings.TrimSpace(string(homes)), "\n") {
		if !strings.Contains(line, "PO Box") && !strings.Contains(line, "ZZ") && !strings.Contains(line, "Nowhere") && !strings.Contains(line, "lots") {
			good = append(good, line)
		}
	}
	r = e.run(e.file("good.csv", strings.Join(good, "\n")+"\n"))
	if r.code != exitOK || r.batchCalls != 0 || !strings.HasPrefix(r.stdout, summaryOf(5, 5, 0, 1, 4, 0)) {
		t.Fatalf("third run: exit %d, %d batch calls, summary:\n%s%s\nwant exit 0, no call, bedrooms 4 set back to 3",
			r.code, r.batchCalls, r.stdout, r.stderr)
	}
	if got := readCSV(t, filepath.Join(e.dir, "good.failures.csv")); len(got) != 1 {
		t.Fatalf("failures file of a clean run = %v, want the header only", got)
	}

	// The service finds imported records by any spelling without a call.
	calls := e.mt.GetTotalCallCount()
	m := startMain(t, testConfig(t, e.db), e.mt)
	q := url.Values{"street": {"4100 Cedar Springs Rd"}, "city": {"Dallas"}, "state": {"TX"}, "zip": {"75219"}}
	status, body, _ := getJSON(t, m, "/v1/properties/lookup?"+q.Encode())
	if status != 200 || body["data"].(map[string]any)["id"] != float64(first[0].ID) {
		t.Fatalf("lookup of an imported address: %d %v, want record %d", status, body, first[0].ID)
	}
	if e.mt.GetTotalCallCount() != calls {
		t.Fatalf("lookup of an imported address called the geocoder: %v", e.mt.GetCallCountInfo())
	}
}

func TestImportLaterRowsWinWithinAndAcrossChunks(t *testing.T) {
	csvText := `Street,State,Bedrooms
4100 Cedar Springs Rd,TX,2
4100 Cedar Springs Road,Texas,5
4100 CEDAR SPRINGS RD,TX,3
`
	for _, chunk := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("chunk %d", chunk), func(t *testing.T) {
			e := newImportEnv(t)
			h, err := service.ParseImportHeader([]string{"Street", "State", "Bedrooms"})
			if err != nil {
				t.Fatal(err)
			}
			im := e.importer(chunk)
			for run := 1; run <= 2; run++ {
				r := csv.NewReader(strings.NewReader(csvText))
				r.Read()
				sum, err := im.Run(context.Background(), h, r)
				if err != nil {
					t.Fatal(err)
				}
				// All three spellings are one key once normalized; each row
				// changes the bedrooms the row before it set, also when
				// both rows are in one chunk.
				// A row is exact when the chunk geocoded it, and a
				// database match when an earlier chunk or run stored its
				// key (a chunk of 0 is the whole file).
				exact := map[int]int{0: 3, 1: 1, 2: 2}[chunk]
				wantSum := service.ImportSummary{Read: 3, Matched: 3, Created: 1, Updated: 2, Exact: exact, Database: 3 - exact}
				if run == 2 {
					wantSum = service.ImportSummary{Read: 3, Matched: 3, Updated: 3, Database: 3}
				}
				if sum != wantSum {
					t.Fatalf("run %d: summary %+v, want %+v", run, sum, wantSum)
				}
				p, err := im.Store.PropertyByKey(context.Background(), "4100 CEDAR SPRINGS RD|||TX|")
				if err != nil || p.Bedrooms == nil || *p.Bedrooms != 3 {
					t.Fatalf("run %d: record %+v, %v; want the last row's 3 bedrooms", run, p, err)
				}
			}
			if calls := e.mt.GetCallCountInfo()[batchRoute]; calls != 1 {
				t.Fatalf("%d batch calls, want 1: the second run resolves every row", calls)
			}
		})
	}
}

// TestImportSendsTheGeocoderTheAddressAsWritten: the batch file carries
// each building as the import file writes it, so a street whose TIGER name
// keeps an apostrophe is matched, and rows spelling one address
// differently still end as one record, even when the geocoder cannot
// match one of the spellings.
func TestImportSendsTheGeocoderTheAddressAsWritten(t *testing.T) {
	e := newImportEnv(t, obrienCt, darcySt)
	csvText := "street,unit,city,state,bedrooms\n" +
		"42 OBrien Ct,,Boston,MA,3\n" + // not TIGER's spelling, but the key of the next row
		"42 O'Brien Court,,Boston,MA,\n" +
		"\"42 O'Brien Ct, Apt 4\",,Boston,MA,1\n" +
		"15 D\u2019Arcy St,4B,Boston,MA,\n"
	r := csv.NewReader(strings.NewReader(csvText))
	header, _ := r.Read()
	h, err := service.ParseImportHeader(header)
	if err != nil {
		t.Fatal(err)
	}
	im := e.importer(0)
	sum, err := im.Run(context.Background(), h, r)
	if err != nil {
		t.Fatalf("import: %v; the geocoder was sent %q", err, e.files)
	}
	if want := (service.ImportSummary{Read: 4, Matched: 4, Created: 3, Unchanged: 1, Exact: 4}); sum != want {
		t.Fatalf("summary %+v, want %+v", sum, want)
	}
	// One batch call; every building as written, without its unit, the
	// apostrophes as TIGER writes them.
	wantFile := "1,42 OBrien Ct,Boston,MA,\n2,42 O'Brien Court,Boston,MA,\n3,42 O'Brien Ct,Boston,MA,\n4,15 D'Arcy St,Boston,MA,\n"
	if len(e.files) != 1 || e.files[0] != wantFile {
		t.Fatalf("the geocoder was sent %q, want one file %q", e.files, wantFile)
	}
	type rec struct{ street, unit string }
	var got []rec
	for _, p := range e.records() {
		got = append(got, rec{p.StreetAddress, p.Unit})
	}
	want := []rec{{"42 O'BRIEN CT", ""}, {"42 O'BRIEN CT", "APT 4"}, {"15 D'ARCY ST", "# 4B"}}
	if !slices.Equal(got, want) {
		t.Fatalf("records %+v, want %+v", got, want)
	}
	p, err := im.Store.PropertyByKey(context.Background(), "42 OBRIEN CT||BOSTON|MA|")
	if err != nil || p.Bedrooms == nil || *p.Bedrooms != 3 {
		t.Fatalf("record by key: %+v, %v; want the first row's 3 bedrooms", p, err)
	}
}

func TestImportChunksMakeOneBatchCallEach(t *testing.T) {
	e := newImportEnv(t)
	h, _ := service.ParseImportHeader([]string{"street", "city", "state"})
	rows := "4100 Cedar Springs Rd,Dallas,TX\n2710 Commerce St,Dallas,TX\n815 S Congress Ave,Austin,TX\n"
	sum, err := e.importer(2).Run(context.Background(), h, csv.NewReader(strings.NewReader(rows)))
	if err != nil || sum.Created != 3 {
		t.Fatalf("summary %+v, %v; want 3 created", sum, err)
	}
	if calls := e.mt.GetCallCountInfo()[batchRoute]; calls != 2 {
		t.Fatalf("%d batch calls for 3 rows in chunks of 2, want 2", calls)
	}
}

func TestImportRefusesBadInputBeforeTouchingAnything(t *testing.T) {
	cases := []struct {
		name, content string
		args          []string
		code          int
		want          []string
	}{
		{"unknown columns are named", "street,state,beds,Owner\n1 Main St,TX,2,me\n", nil, exitUsage,
			[]string{`unknown column(s) "beds", "Owner"`, "known: street, state, city"}},
		{"missing required column", "street,city\n1 Main St,Dallas\n", nil, exitUsage, []string{"missing required column(s) state"}},
		{"duplicate column", "street,state,STATE\n1 Main St,TX,TX\n", nil, exitUsage, []string{"column(s) state given twice"}},
		{"empty file", "", nil, exitUsage, []string{"the file is empty"}},
		{"no file", "", []string{}, exitUsage, []string{"missing the CSV file"}},
		{"two files", "", []string{"a.csv", "b.csv"}, exitUsage, []string{"one file at a time"}},
		{"missing file", "", []string{"nope.csv"}, exitUsage, []string{"nope.csv"}},
		{"unknown flag", "", []string{"-fast", "x.csv"}, exitUsage, []string{"flag provided but not defined: -fast", "usage: propertyd import"}},
		{"invalid config", "", []string{"-config", "testdata/homes.csv", "testdata/homes.csv"}, exitConfig, []string{"config testdata/homes.csv"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newImportEnv(t)
			args := c.args
			if args == nil {
				args = []string{e.file("in.csv", c.content)}
			} else {
				for i, a := range args {
					if strings.HasSuffix(a, ".csv") && !strings.HasPrefix(a, "testdata") {
						args[i] = filepath.Join(e.dir, a)
					}
				}
			}
			var out, errb bytes.Buffer
			code := (&importCommand{console{stdout: &out, stderr: &errb, transport: e.mt}}).run(append([]string{"-config", e.config}, args...))
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, errb.String())
			}
			for _, w := range c.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr does not say %q:\n%s", w, errb.String())
				}
			}
			if _, err := os.Stat(e.db); err == nil {
				t.Error("a refused import created the database")
			}
			if e.mt.GetTotalCallCount() != 0 {
				t.Error("a refused import called the geocoder")
			}
		})
	}
}

func TestImportStopsWithExit1WhenTheGeocoderFails(t *testing.T) {
	e := newImportEnv(t)
	providertest.CensusFailWith(e.mt, census.DefaultBaseURL, http.StatusBadRequest,
		`{"errors":["The addressFile could not be read"],"status":"400"}`)
	r := e.run(e.file("in.csv", "street,state\n4100 Cedar Springs Rd,TX\n"))
	if r.code != exitError || !strings.Contains(r.stderr, "stopped after reading 1 row:") || !strings.Contains(r.stderr, "geocoding 1 address:") {
		t.Fatalf("exit %d, stderr %q; want exit 1 explaining the geocoder failed", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "rows read:   1\n") {
		t.Fatalf("no summary on failure: %q", r.stdout)
	}
}

func TestImportDrawsProgressOnlyOnATerminal(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		e := newImportEnv(t)
		file := e.file("in.csv", "street,state\n4100 Cedar Springs Rd,TX\n2710 Commerce St,TX\n")
		var out, errb bytes.Buffer
		c := &importCommand{console{stdout: &out, stderr: &errb, transport: e.mt,
			terminal: func(w io.Writer) bool { return terminal && w == &errb }}}
		if code := c.run([]string{"-config", e.config, file}); code != exitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		drawn := strings.Contains(errb.String(), "\r")
		if drawn != terminal {
			t.Fatalf("terminal=%v: stderr %q", terminal, errb.String())
		}
		if terminal && !strings.Contains(errb.String(), "0/2 rows  geocoding 2 addresses") {
			t.Fatalf("progress bar %q does not show the geocoding step", errb.String())
		}
		if strings.Contains(out.String(), "\r") {
			t.Fatal("progress drawn on stdout, where the summary goes")
		}
	}
}

func TestImportRowWithTheWrongFieldCountIsAFailure(t *testing.T) {
	e := newImportEnv(t)
	file := e.file("in.csv", "street,state,bedrooms,reason\n4100 Cedar Springs Rd,TX\n2710 Commerce St,TX,2,\"fixed: was \"\"2 br\"\"\"\n")
	r := e.run("-failures", filepath.Join(e.dir, "bad.csv"), file)
	if r.code != exitRowsFailed || !strings.HasPrefix(r.stdout, summaryOf(2, 1, 1, 0, 0, 1)) {
		t.Fatalf("exit %d, summary:\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := readCSV(t, filepath.Join(e.dir, "bad.csv"))
	want := [][]string{
		{"street", "state", "bedrooms", "reason"}, // the input's reason column is reused
		{"4100 Cedar Springs Rd", "TX", "", "has 2 fields, the header has 4"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("failures file = %q, want %q", got, want)
	}
}

const reverseRoute = "GET " + census.DefaultBaseURL + "/geographies/coordinates"

func TestImportNamesCountiesOncePerCounty(t *testing.T) {
	e := newImportEnv(t)
	file := e.file("in.csv", "street,city,state\n4100 Cedar Springs Rd,Dallas,TX\n2710 Commerce St,Dallas,TX\n815 S Congress Ave,Austin,TX\n")
	if r := e.run(file); r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := e.mt.GetCallCountInfo()[reverseRoute]; n != 2 {
		t.Fatalf("%d reverse geocodes for 2 counties, want 2", n)
	}
	got := map[string]string{}
	for _, p := range e.records() {
		got[p.StreetAddress] = p.County
	}
	want := map[string]string{"4100 CEDAR SPRINGS RD": "Dallas County", "2710 COMMERCE ST": "Dallas County", "815 S CONGRESS AVE": "Travis County"}
	if !maps.Equal(got, want) {
		t.Fatalf("counties %v, want %v", got, want)
	}
	// A second run geocodes nothing, so it names nothing either.
	if r := e.run(file); r.code != exitOK || e.mt.GetCallCountInfo()[reverseRoute] != 2 {
		t.Fatalf("second run: exit %d, %d reverse geocodes in all", r.code, e.mt.GetCallCountInfo()[reverseRoute])
	}
}

func TestImportRemembersCountyNamesAcrossChunks(t *testing.T) {
	e := newImportEnv(t)
	h, _ := service.ParseImportHeader([]string{"street", "city", "state"})
	// Dallas and Travis in the first chunk, Dallas again in the second.
	rows := "4100 Cedar Springs Rd,Dallas,TX\n815 S Congress Ave,Austin,TX\n2710 Commerce St,Dallas,TX\n"
	im := e.importer(2)
	im.Counties = im.Geocoder.(providers.ReverseGeocoder)
	if sum, err := im.Run(context.Background(), h, csv.NewReader(strings.NewReader(rows))); err != nil || sum.Created != 3 {
		t.Fatalf("summary %+v, %v; want 3 created", sum, err)
	}
	if n := e.mt.GetCallCountInfo()[reverseRoute]; n != 2 {
		t.Fatalf("%d reverse geocodes, want 2 (Dallas remembered into the second chunk)", n)
	}
	for _, p := range e.records() {
		if p.County == "" {
			t.Fatalf("record %s has no county name", p.StreetAddress)
		}
	}
}

func TestImportWithAFailingReverseGeocoderLeavesCountiesUnnamed(t *testing.T) {
	e := newImportEnv(t)
	e.mt.RegisterResponder(http.MethodGet, census.DefaultBaseURL+"/geographies/coordinates",
		httpmock.NewStringResponder(http.StatusInternalServerError, "down"))
	r := e.run(e.file("in.csv", "street,city,state\n4100 Cedar Springs Rd,Dallas,TX\n2710 Commerce St,Dallas,TX\n"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range e.records() {
		if p.County != "" || p.FIPSCode != "48113" {
			t.Fatalf("record %+v: want FIPS 48113 and no county name", p)
		}
	}
}
