package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/propertyd/propertyd/providers/service"
)

// isTerminal reports whether w is a terminal, where a progress bar that
// redraws itself belongs; in a pipe or a log file it would be noise.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// console is what a long-running command (import, copy, data load)
// reaches outside: tests give it buffers, an httpmock transport and say
// whether stderr is a terminal.
type console struct {
	stdout, stderr io.Writer
	// transport reaches the upstreams; nil means the real ones.
	transport http.RoundTripper
	// terminal reports whether a progress bar may be drawn on w; nil means
	// isTerminal.
	terminal func(w io.Writer) bool
}

// progress returns a bar counting up to total rows on stderr when stderr
// is a terminal, and nil (which draws nothing) when it is not.
func (c console) progress(total int) *progressBar {
	terminal := c.terminal
	if terminal == nil {
		terminal = isTerminal
	}
	if !terminal(c.stderr) {
		return nil
	}
	return newProgressBar(c.stderr, total)
}

// progressBar draws one line on a terminal, redrawn in place:
//
//	[##########----------]  50%  5,000/10,000 rows  saving  1,250 rows/s  4s left
//	1,200,000 elements  reading ways  410,000 elements/s
//
// The rate is the count's progress over the time that actually elapsed
// since its step began (a new step is a new phase, the digits in it aside,
// or a count that starts again lower), shown once the step has run a
// second and counted something: a step that starts at a count reached
// before (a resumed load, a step that counts nothing) shows none rather
// than one divided by a few microseconds. Where the total is known the bar
// shows the percent and the time left at the pace since the bar's first
// update. Redraws are throttled, so calling update for every row costs
// little. The zero value is not usable; a nil *progressBar draws nothing.
// Not safe for concurrent use.
type progressBar struct {
	w     io.Writer
	total int
	unit  string // what is counted; "rows" unless set
	every time.Duration
	now   func() time.Time
	last  time.Time
	drawn bool

	// first is the first update's count and time: the pace the time
	// left is told at. step is where the current step began, and
	// stepKey and prev what tell a new one.
	first, step progressMark
	started     bool
	stepKey     string
	prev        int
}

// progressMark is a count at an instant.
type progressMark struct {
	done int
	at   time.Time
}

// minRateSpan is how long a step runs before its rate is shown: over less,
// a rate says more about the clock than the work.
const minRateSpan = time.Second

// newProgressBar returns a bar counting up to total rows on w.
func newProgressBar(w io.Writer, total int) *progressBar {
	return &progressBar{w: w, total: total, unit: "rows", every: 100 * time.Millisecond, now: time.Now}
}

// update redraws the bar with done rows and what is happening now, unless
// it was drawn less than a tenth of a second ago. force skips the wait, for
// the start of a long step.
func (p *progressBar) update(done int, phase string, force bool) {
	if p == nil {
		return
	}
	now := p.now()
	key := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r == ',' || r == '/' {
			return -1
		}
		return r
	}, phase)
	switch {
	case !p.started:
		p.started, p.first, p.step, p.stepKey = true, progressMark{done, now}, progressMark{done, now}, key
	case key != p.stepKey || done < p.prev:
		p.step, p.stepKey = progressMark{done, now}, key
	}
	p.prev = done
	if !force && p.drawn && now.Sub(p.last) < p.every {
		return
	}
	p.last, p.drawn = now, true
	if span := now.Sub(p.step.at); span >= minRateSpan && done > p.step.done {
		phase += "  " + service.Thousands(int(float64(done-p.step.done)/span.Seconds())) + " " + p.unit + "/s"
	}
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r\033[K%s %s  %s", service.Thousands(done), p.unit, phase)
		return
	}
	const width = 20
	done = min(done, p.total)
	if span := now.Sub(p.first.at); span >= minRateSpan && done > p.first.done && done < p.total {
		left := time.Duration(float64(p.total-done) / float64(done-p.first.done) * float64(span))
		phase += "  " + roundLeft(left) + " left"
	}
	filled := done * width / p.total
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %3d%%  %s/%s %s  %s",
		strings.Repeat("#", filled), strings.Repeat("-", width-filled), done*100/p.total,
		service.Thousands(done), service.Thousands(p.total), p.unit, phase)
}

// roundLeft writes a time left as a person reads it: seconds under a
// minute ("45s"), then minutes ("12m"), then hours and minutes ("2h05m").
func roundLeft(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
	}
	m := int(d.Round(time.Minute) / time.Minute)
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}

// finish clears the bar's line, so the summary starts on a clean one.
func (p *progressBar) finish() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
