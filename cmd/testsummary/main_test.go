package main

import (
	"bytes"
	"strings"
	"testing"
)

// A run as go test -json reports it: a package whose tests skip for want
// of PostgreSQL, one with a skipped subtest, one failure, one build error.
const run = `{"ImportPath":"github.com/propertyd/propertyd/x [github.com/propertyd/propertyd/x.test]","Action":"build-output","Output":"x/x_test.go:3:29: declared and not used: v\n"}
{"Action":"start","Package":"github.com/propertyd/propertyd/x"}
{"Action":"output","Package":"github.com/propertyd/propertyd/x","Output":"FAIL\tgithub.com/propertyd/propertyd/x [build failed]\n"}
{"Action":"fail","Package":"github.com/propertyd/propertyd/x","Elapsed":0}
{"Action":"run","Package":"github.com/propertyd/propertyd/store/postgres","Test":"TestOpen"}
{"Action":"output","Package":"github.com/propertyd/propertyd/store/postgres","Test":"TestOpen","Output":"=== RUN   TestOpen\n"}
{"Action":"output","Package":"github.com/propertyd/propertyd/store/postgres","Test":"TestOpen","Output":"    pgtest.go:33: no PostgreSQL to test against: set PROPERTYD_TEST_POSTGRES\n"}
{"Action":"output","Package":"github.com/propertyd/propertyd/store/postgres","Test":"TestOpen","Output":"--- SKIP: TestOpen (0.00s)\n"}
{"Action":"skip","Package":"github.com/propertyd/propertyd/store/postgres","Test":"TestOpen","Elapsed":0}
{"Action":"output","Package":"github.com/propertyd/propertyd/store/postgres","Output":"PASS\n"}
{"Action":"output","Package":"github.com/propertyd/propertyd/store/postgres","Output":"ok  \tgithub.com/propertyd/propertyd/store/postgres\t0.038s\n"}
{"Action":"pass","Package":"github.com/propertyd/propertyd/store/postgres","Elapsed":0.038}
{"Action":"run","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestServe"}
{"Action":"run","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestServe/postgres"}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestServe/postgres","Output":"    pgtest.go:33: no PostgreSQL to test against: set PROPERTYD_TEST_POSTGRES\n"}
{"Action":"skip","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestServe/postgres","Elapsed":0}
{"Action":"pass","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestServe","Elapsed":0}
{"Action":"run","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestDocs"}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestDocs","Output":"    docs_test.go:20: chromium not installed\n"}
{"Action":"skip","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestDocs","Elapsed":0}
{"Action":"run","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestBroken"}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestBroken","Output":"    main_test.go:9: exit 2, want 1\n"}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.00s)\n"}
{"Action":"fail","Package":"github.com/propertyd/propertyd/cmd/propertyd","Test":"TestBroken","Elapsed":0}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Output":"FAIL\n"}
{"Action":"output","Package":"github.com/propertyd/propertyd/cmd/propertyd","Output":"FAIL\tgithub.com/propertyd/propertyd/cmd/propertyd\t1.2s\n"}
{"Action":"fail","Package":"github.com/propertyd/propertyd/cmd/propertyd","Elapsed":1.2}
`

func TestTheRunEndsWithWhatWasSkippedAndWhy(t *testing.T) {
	var s summary
	var out, errs bytes.Buffer
	s.read(strings.NewReader(run), &out, &errs)
	s.report(&out)
	want := "FAIL\tgithub.com/propertyd/propertyd/x [build failed]\n" +
		"ok  \tgithub.com/propertyd/propertyd/store/postgres\t0.038s\n" +
		"    main_test.go:9: exit 2, want 1\n" +
		"--- FAIL: TestBroken (0.00s)\n" +
		"FAIL\n" +
		"FAIL\tgithub.com/propertyd/propertyd/cmd/propertyd\t1.2s\n" +
		"skipped: 2 tests in cmd/propertyd, store/postgres: no PostgreSQL to test against: set PROPERTYD_TEST_POSTGRES; " +
		"1 test in cmd/propertyd: chromium not installed\n" +
		"1 passed, 1 failed\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if errs.String() != "x/x_test.go:3:29: declared and not used: v\n" {
		t.Errorf("stderr %q, want the build error", errs.String())
	}
}

func TestARunWithoutSkipsSaysNone(t *testing.T) {
	var s summary
	var out bytes.Buffer
	s.read(strings.NewReader(`{"Action":"pass","Package":"p","Test":"TestA"}`+"\n"), &out, &out)
	s.report(&out)
	if out.String() != "skipped: none\n1 passed, 0 failed\n" {
		t.Errorf("got %q", out.String())
	}
}
