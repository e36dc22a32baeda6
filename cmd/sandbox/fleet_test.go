package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freePort returns a port of 127.0.0.1 nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestMakeFleetRunsBesideAnotherUser runs fleet.sh as make fleet does, on
// ports, a schema and a Redis database of its own (beside the demo's
// defaults, which another user may hold): every instance serves, one of
// them answers a lookup with the sample assessor's facts loaded as make
// demo loads them, and Ctrl-C drops the schema it made. It needs the test
// PostgreSQL and Redis, psql and curl, and builds the binaries (a minute).
func TestMakeFleetRunsBesideAnotherUser(t *testing.T) {
	pg, redis := os.Getenv("PROPERTYD_TEST_POSTGRES"), os.Getenv("PROPERTYD_TEST_REDIS")
	if pg == "" || redis == "" || testing.Short() {
		t.Skip("set PROPERTYD_TEST_POSTGRES and PROPERTYD_TEST_REDIS (and not -short) to run the fleet")
	}
	for _, tool := range []string{"bash", "psql", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	ports := []int{freePort(t), freePort(t)}
	schema := fmt.Sprintf("fleet_test_%d", os.Getpid())
	cmd := exec.Command("bash", filepath.Join("..", "sandbox", "fleet.sh"))
	cmd.Env = append(os.Environ(),
		"FLEET_POSTGRES="+pg, "FLEET_REDIS=", "FLEET_REDIS_DB=3",
		fmt.Sprintf("FLEET_PORTS=%d %d", ports[0], ports[1]), "FLEET_SCHEMA="+schema,
		fmt.Sprintf("SANDBOX_LISTEN=127.0.0.1:%d", freePort(t)))
	if !strings.HasPrefix(redis, "redis://127.0.0.1:6379/") {
		t.Skipf("the fleet's Redis is the local one on 6379; PROPERTYD_TEST_REDIS is %s", redis)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGINT)
			cmd.Wait()
		}
	}
	t.Cleanup(func() {
		stop()
		exec.Command("psql", "-q", pg, "-c", "DROP SCHEMA IF EXISTS "+schema+" CASCADE").Run()
	})
	ready := make(chan string, 1)
	go func() {
		var out strings.Builder
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Press Ctrl-C to stop them all") {
				ready <- out.String()
				break
			}
		}
		io.Copy(io.Discard, stdout)
		close(ready)
	}()
	var banner string
	select {
	case b, ok := <-ready:
		if !ok {
			t.Fatalf("fleet.sh stopped before serving:\n%s", stderr.String())
		}
		banner = b
	case <-time.After(5 * time.Minute):
		t.Fatalf("fleet.sh did not serve within 5 minutes:\n%s", stderr.String())
	}
	want := fmt.Sprintf("2 propertyd instances are serving on ports %d %d of 127.0.0.1", ports[0], ports[1])
	if !strings.Contains(banner, want) || !strings.Contains(banner, "schema "+schema) || !strings.Contains(banner, "redis://127.0.0.1:6379/3") {
		t.Errorf("the banner does not name its ports, schema and Redis database:\n%s", banner)
	}
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/v1/properties/lookup?street=1100+Congress+Avenue&city=Austin&state=TX", ports[1]), nil)
	req.Header.Set("X-API-Key", "propertyd-demo-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"year_built":2004`) || !strings.Contains(string(body), `"source":"sample-assessor"`) {
		t.Errorf("a lookup on the second instance: %d %s; want the sample assessor's facts", resp.StatusCode, body)
	}
	stop()
	out, err := exec.Command("psql", "-tA", pg, "-c", "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '"+schema+"'").Output()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("after Ctrl-C the schema %s is still there (%q, %v)", schema, out, err)
	}
}
