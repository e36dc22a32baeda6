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
//	[##########----------]  50%  5,000/10,000 rows  geocoding 4,200 addresses
//
// Redraws are throttled, so calling update for every row costs little. The
// zero value is not usable; a nil *progressBar draws nothing. Not safe for
// concurrent use.
type progressBar struct {
	w     io.Writer
	total int
	unit  string // what is counted; "rows" unless set
	every time.Duration
	now   func() time.Time
	last  time.Time
	drawn bool
}

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
	if !force && p.drawn && now.Sub(p.last) < p.every {
		return
	}
	p.last, p.drawn = now, true
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r\033[K%s %s  %s", service.Thousands(done), p.unit, phase)
		return
	}
	const width = 20
	done = min(done, p.total)
	filled := done * width / p.total
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %3d%%  %s/%s %s  %s",
		strings.Repeat("#", filled), strings.Repeat("-", width-filled), done*100/p.total,
		service.Thousands(done), service.Thousands(p.total), p.unit, phase)
}

// finish clears the bar's line, so the summary starts on a clean one.
func (p *progressBar) finish() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
