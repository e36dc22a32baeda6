package main

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// lastDraw returns what the bar's last redraw shows.
func lastDraw(b *bytes.Buffer) string {
	s := b.String()
	return s[strings.LastIndex(s, "\r\033[K")+len("\r\033[K"):]
}

// TestProgressBarTellsTrueRatesAndTimeLeft drives a bar with a clock that
// moves as the test says: a step that starts at a count reached before (a
// resumed load, or a step after another that counted) shows no rate until
// it has run a second, then the rate over the time it ran; a bar that
// knows its total shows the percent and the time left.
func TestProgressBarTellsTrueRatesAndTimeLeft(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	bar := newProgressBar(&out, 0)
	bar.unit, bar.now = "elements", func() time.Time { return at }

	bar.update(0, "reading relations", true)
	at = at.Add(2 * time.Second)
	bar.update(100_000, "reading relations", true)
	if got, want := lastDraw(&out), "100,000 elements  reading relations  50,000 elements/s"; got != want {
		t.Errorf("after 2 s: %q, want %q", got, want)
	}
	// A resumed second pass starts at its checkpoint, 9 million: a
	// microsecond later it has no rate yet, not 9 million over a microsecond.
	at = at.Add(time.Microsecond)
	bar.update(9_000_000, "reading ways", true)
	if got, want := lastDraw(&out), "9,000,000 elements  reading ways"; got != want {
		t.Errorf("a step starting at its checkpoint: %q, want %q", got, want)
	}
	at = at.Add(4 * time.Second)
	bar.update(9_200_000, "reading ways", true)
	if got, want := lastDraw(&out), "9,200,000 elements  reading ways  50,000 elements/s"; got != want {
		t.Errorf("4 s into the step: %q, want %q", got, want)
	}
	// A step that counts nothing shows no rate however long it runs.
	bar.update(9_200_000, "the buildings' facts", true)
	at = at.Add(10 * time.Second)
	bar.update(9_200_000, "the buildings' facts", true)
	if got, want := lastDraw(&out), "9,200,000 elements  the buildings' facts"; got != want {
		t.Errorf("a step counting nothing: %q, want %q", got, want)
	}

	out.Reset()
	at = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bar = newProgressBar(&out, 10_000)
	bar.now = func() time.Time { return at }
	bar.update(0, "geocoding 10,000 addresses", true)
	if got, want := lastDraw(&out), "[--------------------]   0%  0/10,000 rows  geocoding 10,000 addresses"; got != want {
		t.Errorf("at the start: %q, want %q", got, want)
	}
	at = at.Add(20 * time.Second)
	bar.update(2_500, "saving", true)
	// 2,500 rows in 20 s: 7,500 more take a minute; "saving" began just now.
	if got, want := lastDraw(&out), "[#####---------------]  25%  2,500/10,000 rows  saving  1m left"; got != want {
		t.Errorf("a quarter done: %q, want %q", got, want)
	}
	at = at.Add(5 * time.Second)
	bar.update(5_000, "saving", true)
	if got, want := lastDraw(&out), "[##########----------]  50%  5,000/10,000 rows  saving  500 rows/s  25s left"; got != want {
		t.Errorf("half done: %q, want %q", got, want)
	}
}

// TestDataLoadOSMShowsNoRateOfAnInstant loads the small extract on a
// terminal: the whole load takes well under a second, so no step has run
// long enough to have a rate, and the bar shows none (it once divided a
// step's count, reached before it began, by the microseconds since).
func TestDataLoadOSMShowsNoRateOfAnInstant(t *testing.T) {
	path := factsConfigFile(t, filepath.Join(t.TempDir(), "p.db"))
	var out, errb bytes.Buffer
	c := &dataCommand{console{stdout: &out, stderr: &errb, terminal: func(w io.Writer) bool { return w == &errb }}}
	start := time.Now()
	if code := c.run([]string{"load", "osm", "-config", path, franklinPBF}); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, errb.String())
	}
	if time.Since(start) >= minRateSpan {
		t.Skip("the load took a second or more here: a rate may be true")
	}
	if !strings.Contains(errb.String(), "\r") {
		t.Fatalf("no progress drawn on the terminal: %q", errb.String())
	}
	if rate := regexp.MustCompile(`[0-9,]+ elements/s`).FindString(errb.String()); rate != "" {
		t.Fatalf("a load of %s shows %q on its bar:\n%q", time.Since(start).Round(time.Millisecond), rate, errb.String())
	}
}
