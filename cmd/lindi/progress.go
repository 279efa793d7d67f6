package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress draws a progress line on a terminal for reads that last more than
// a second.
type progress struct {
	w     io.Writer
	label string
	start time.Time

	mu    sync.Mutex
	last  time.Time
	drawn bool
}

// newProgress returns a progress line on w, or nil when w is not a terminal.
func newProgress(w io.Writer, label string) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progress{w: w, label: label, start: time.Now()}
}

// update redraws the line at most ten times a second, once the read has run for a second.
func (p *progress) update(done, total int) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last, p.drawn = now, true
	const width = 30
	filled := width * done / max(total, 1)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = ' '
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3d%% %d/%d chunks", p.label, bar, 100*done/max(total, 1), done, total)
}

// finish clears the line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
