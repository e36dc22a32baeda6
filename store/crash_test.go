package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
)

const crashChildEnv = "PROPERTYD_STORE_CRASH_CHILD_DB"

// TestCrashChild is the child process of TestSavedRecordSurvivesKill: it
// saves a record, reports its id and waits to be killed without closing the
// database. It does nothing in a normal test run.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("only runs as the child of TestSavedRecordSurvivesKill")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p, _, err := db.Save(ctx, providers.NewProperty{Property: whiteHouse(), Canonical: "WH", Keys: []string{"wh"}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	if err := db.PutSection(ctx, providers.SectionRecord{Section: "flood", Key: "k", Data: []byte(`{}`)}); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Printf("saved %d\n", p.ID)
	time.Sleep(time.Minute) // killed long before
	os.Exit(2)
}

func TestSavedRecordSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	var id int64
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "saved "); ok {
			id, _ = strconv.ParseInt(rest, 10, 64)
			break
		}
		if strings.HasPrefix(sc.Text(), "error") {
			t.Fatalf("child: %s", sc.Text())
		}
	}
	if id == 0 {
		t.Fatalf("child never reported a saved record (scan error %v)", sc.Err())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred code, no Close, no checkpoint
		t.Fatal(err)
	}
	cmd.Wait()
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no write-ahead log left by the killed process (%v); the test would not exercise recovery", err)
	}

	db := openAt(t, path)
	ctx := context.Background()
	got, err := db.Property(ctx, id)
	if err != nil {
		t.Fatalf("record %d returned to a client before kill -9 is gone after restart: %v", id, err)
	}
	if got.StreetAddress != whiteHouse().StreetAddress {
		t.Fatalf("record after restart = %+v", got)
	}
	if k, err := db.PropertyByKey(ctx, "wh"); err != nil || k.ID != id {
		t.Fatalf("key after restart: %+v, %v", k, err)
	}
	if _, err := db.Section(ctx, "flood", "k"); err != nil {
		t.Fatalf("section after restart: %v", err)
	}
}
