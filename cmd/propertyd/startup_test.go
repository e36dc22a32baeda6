package main

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// serveShipped runs "propertyd serve" on the shipped config.yaml, edited by
// the replacements (pairs of old and new text), with database and listen
// set through the environment as an operator would. Each case here fails
// before serving, so serve returns.
func serveShipped(t *testing.T, database, listen string, edits ...string) (int, string, string) {
	t.Helper()
	t.Setenv("PROPERTYD_DATABASE", database)
	t.Setenv("PROPERTYD_LISTEN", listen)
	t.Setenv("PROPERTYD_REDIS_URL", "")
	raw, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for i := 0; i+1 < len(edits); i += 2 {
		edited := strings.Replace(text, edits[i], edits[i+1], 1)
		if edited == text {
			t.Fatalf("test edit %q not applied", edits[i])
		}
		text = edited
	}
	return runCLI("serve", "-config", writeConfig(t, text))
}

// closedPort returns a local address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestServeReportsAStartThatFails starts serve in each way a start can fail
// part way: the user must see the cause and the documented exit code, never
// a Go panic (exit 2, read as "usage" by scripts) with the cause lost.
func TestServeReportsAStartThatFails(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sqlite := filepath.Join(t.TempDir(), "p.db")
	cases := []struct {
		name, database, listen string
		edits                  []string
		code                   int
		want                   []string
		never                  string
	}{
		{
			name:     "postgres server not answering",
			database: "postgres://propertyd:s3cret-pw@" + closedPort(t) + "/propertyd?sslmode=disable&connect_timeout=5",
			listen:   "127.0.0.1:0",
			code:     exitError,
			want:     []string{"opening database postgres://propertyd:xxxxx@", "database_unavailable", "connection refused"},
			never:    "s3cret-pw",
		},
		{
			name:     "sqlite folder that cannot be made",
			database: filepath.Join(notADir, "sub", "p.db"),
			listen:   "127.0.0.1:0",
			code:     exitError,
			want:     []string{"opening database " + filepath.Join(notADir, "sub", "p.db"), "not a directory"},
		},
		{
			name:     "redis url that does not parse",
			database: sqlite,
			listen:   "127.0.0.1:0",
			edits:    []string{"# redis:\n#   url: \"redis://127.0.0.1:6379/0\"", "redis:\n  url: \"mysql://127.0.0.1:6379/0\""},
			code:     exitConfig,
			want:     []string{"redis.url"},
		},
		{
			name:     "module options that do not validate",
			database: sqlite,
			listen:   "127.0.0.1:0",
			edits:    []string{"module: overpass", "module: overpass\n    options: {timeout_seconds: \"500\"}"},
			code:     exitConfig,
			want:     []string{"providers.amenities", "timeout_seconds"},
		},
		{
			name:     "listen address that is not host:port",
			database: sqlite,
			listen:   "localhost",
			code:     exitConfig,
			want:     []string{"listen: must be host:port"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := serveShipped(t, c.database, c.listen, c.edits...)
			checkStartFailure(t, code, out, errs, c.code, c.want, c.never)
		})
	}
}

// TestServeReportsAnAddressInUse fails after the database and the modules
// are open: they are closed, the cause is printed, exit 1.
func TestServeReportsAnAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	db := filepath.Join(t.TempDir(), "p.db")
	code, out, errs := serveShipped(t, db, ln.Addr().String())
	checkStartFailure(t, code, out, errs, exitError, []string{"listen " + ln.Addr().String(), "address already in use"}, "")
	// The store was closed cleanly: its write-ahead log was checkpointed
	// and removed.
	if _, err := os.Stat(db + "-wal"); !os.IsNotExist(err) {
		t.Errorf("the database was left open after the failed start: %s-wal is still there (%v)", db, err)
	}
}

// TestServeReportsAPostgresDatabaseThatDoesNotExist needs a server that
// answers, and asks it for a database it does not have.
func TestServeReportsAPostgresDatabaseThatDoesNotExist(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/propertyd_no_such_database"
	code, out, errs := serveShipped(t, u.String(), "127.0.0.1:0")
	checkStartFailure(t, code, out, errs, exitError,
		[]string{"database_unavailable", `database "propertyd_no_such_database" does not exist`}, "")
}

func checkStartFailure(t *testing.T, code int, out, errs string, wantCode int, want []string, never string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, wantCode, errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr does not say %q:\n%s", w, errs)
		}
	}
	if never != "" && strings.Contains(errs+out, never) {
		t.Errorf("the output shows the password %q:\n%s", never, errs)
	}
	if strings.Contains(errs, "panic") || strings.Contains(out, "listening on") {
		t.Errorf("a failed start panicked or claimed to listen:\nstdout: %s\nstderr: %s", out, errs)
	}
}
