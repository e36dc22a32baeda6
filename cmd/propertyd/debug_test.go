package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// debug_listen serves the runtime's profiles on a listener of its own; the
// API's listener never answers them, and without debug_listen nothing
// serves them at all.
func TestProfilesAreServedOnTheDebugListenerOnly(t *testing.T) {
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	cfg := testConfig(t, filepath.Join(t.TempDir(), "p.db"))
	cfg.DebugListen = "127.0.0.1:0" // as listen: each picks a free port of its own
	if err := cfg.Validate(); err != nil {
		t.Fatalf("debug_listen on port 0 beside listen on port 0: %v", err)
	}
	m := startMain(t, cfg, upstreams())
	if m.DebugAddr() == "" || m.DebugAddr() == m.Addr() {
		t.Fatalf("debug address %q beside the API's %q", m.DebugAddr(), m.Addr())
	}
	if code, body := get("http://" + m.DebugAddr() + "/debug/pprof/"); code != 200 || !strings.Contains(body, "goroutine") {
		t.Fatalf("profile index: %d %.200s", code, body)
	}
	if code, body := get("http://" + m.DebugAddr() + "/debug/pprof/heap?debug=1"); code != 200 || !strings.Contains(body, "heap profile") {
		t.Fatalf("heap profile: %d %.200s", code, body)
	}
	if code, _ := get("http://" + m.Addr() + "/debug/pprof/"); code != 404 {
		t.Fatalf("the API's listener answered the profile index with %d, want 404", code)
	}

	plain := startMain(t, testConfig(t, filepath.Join(t.TempDir(), "q.db")), upstreams())
	if plain.DebugAddr() != "" {
		t.Fatalf("profiles served on %s without debug_listen", plain.DebugAddr())
	}
}
