package main

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killMidLoad runs bin with args, kills it with SIGKILL once committed
// reports that part of the load is committed, then runs the same command
// again to its end and returns what that second run printed, failing the
// test unless it exits with code. It skips the
// test when the first run printed finished (the load ended before the
// kill), and fails it when nothing was committed within a minute.
func killMidLoad(t *testing.T, bin string, args []string, committed func() bool, finished string, code int) string {
	t.Helper()
	first := exec.Command(bin, args...)
	var out1 strings.Builder
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !committed() {
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the load committed nothing in 60 s:\n%s", out1.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if strings.Contains(out1.String(), finished) {
		t.Skipf("the load finished before the kill:\n%s", out1.String())
	}
	second := exec.Command(bin, args...)
	out2, err := second.CombinedOutput()
	if got := second.ProcessState.ExitCode(); (err != nil && got < 0) || got != code {
		t.Fatalf("the second run: %v, want exit %d\n%s", err, code, out2)
	}
	return string(out2)
}
