package main

import (
	"bytes"
	"os"
	"runtime/pprof"
	"testing"
)

func TestZZProfLoad(t *testing.T) {
	f, _ := os.Create("/tmp/load.prof")
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb}}
	pprof.StartCPUProfile(f)
	code := c.run([]string{"load", "osm", "-config", "/work/main/config.yaml", "/tmp/gen1m.osm.pbf"})
	pprof.StopCPUProfile()
	f.Close()
	t.Logf("exit %d\n%s\n%s", code, out.String(), errb.String())
}
