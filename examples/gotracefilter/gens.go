package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// splitter tells generations apart as the validating Writer does: one
// ends at a batch of another generation number and after an
// EndOfGeneration.
type splitter struct {
	index   int // of the generation the last event is in, from 0
	num     uint64
	started bool // an event of generation index came
	ended   bool // by an EndOfGeneration
}

// next returns the index of the generation e belongs to, counting from 0.
func (s *splitter) next(e *gotraceraw.Event) int {
	num, isBatch := batchGen(e)
	switch {
	case !s.started:
		s.started = true
	case s.ended, isBatch && num != s.num:
		s.index++
	}
	s.ended = e.Type == gotraceraw.EvEndOfGeneration
	if isBatch {
		s.num = num
	}
	return s.index
}

// batchGen returns the generation number of a batch header.
func batchGen(e *gotraceraw.Event) (uint64, bool) {
	switch e.Type {
	case gotraceraw.EvEventBatch:
		return e.Args[0], true
	case gotraceraw.EvExperimentalBatch:
		return e.Args[1], true
	}
	return 0, false
}

// generation is what -from and -to need of one: when it starts and ends,
// in the clock's ticks.
type generation struct {
	num        uint64 // Go's number for it
	start, end uint64 // ticks: its earliest batch (Go's time for its Sync), its latest event
	freq       uint64 // ticks per second, 0 when it has no Frequency
}

// nanos converts ticks to nanoseconds as Go's parser does.
func (g *generation) nanos(ticks uint64) int64 {
	return int64(float64(ticks) * (1.0 / (float64(g.freq) / 1e9)))
}

// scanFile reads the generations of the trace in file.
func scanFile(file string) ([]generation, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gotraceraw.NewReader(f)
	if err != nil {
		return nil, err
	}
	var (
		gens  []generation
		split splitter
		now   uint64 // the open batch's clock
		timed bool   // the open batch's events are timed (not a table)
		first bool   // the next event is the open batch's first
	)
	for e, err := range r.All() {
		if err != nil {
			return gens, err
		}
		i := split.next(e)
		if i == len(gens) {
			gens = append(gens, generation{})
		}
		g := &gens[i]
		switch e.Type {
		case gotraceraw.EvEventBatch, gotraceraw.EvExperimentalBatch:
			num, _ := batchGen(e)
			t := e.Args[2] // gen m time size
			if e.Type == gotraceraw.EvExperimentalBatch {
				t = e.Args[3] // exp gen m time
			}
			if g.start == 0 || t < g.start {
				g.start = t
			}
			g.num, now, timed, first = num, t, e.Type == gotraceraw.EvEventBatch, true
			continue
		case gotraceraw.EvFrequency:
			g.freq = e.Args[0]
		case gotraceraw.EvCPUSample:
			g.end = max(g.end, e.Args[0])
		}
		if first {
			// The tables and the sync batch hold no events Go times.
			switch e.Type {
			case gotraceraw.EvStrings, gotraceraw.EvStacks, gotraceraw.EvCPUSamples, gotraceraw.EvSync, gotraceraw.EvFrequency:
				timed = false
			}
			first = false
		}
		if s, ok := e.Spec(); ok && s.Timed && timed {
			now += e.Args[0]
			g.end = max(g.end, now)
		}
	}
	return gens, nil
}

// span is a -gens range, from 1; last 0 means to the end.
type span struct{ first, last int }

func parseSpan(s string) (span, error) {
	bad := fmt.Errorf("%q is not N, N-M, N- or -M with 1 <= N <= M", s)
	lo, hi, isRange := strings.Cut(s, "-")
	var sp span
	var err error
	if lo == "" {
		sp.first = 1
	} else if sp.first, err = strconv.Atoi(lo); err != nil || sp.first < 1 {
		return sp, bad
	}
	switch {
	case !isRange:
		sp.last = sp.first
	case hi == "" && lo != "":
		sp.last = 0
	default:
		if sp.last, err = strconv.Atoi(hi); err != nil || sp.last < sp.first {
			return sp, bad
		}
	}
	return sp, nil
}

func (s span) String() string {
	if s.first == s.last {
		return strconv.Itoa(s.first)
	}
	if s.last == 0 {
		return fmt.Sprintf("%d-", s.first)
	}
	return fmt.Sprintf("%d-%d", s.first, s.last)
}

// select_ returns, per generation, whether o keeps it.
func (o *options) select_(gens []generation) []bool {
	keep := make([]bool, len(gens))
	var origin int64
	if len(gens) > 0 && gens[0].freq != 0 {
		origin = gens[0].nanos(gens[0].start)
	}
	for i := range gens {
		keep[i] = true
		if s := o.gens; s != nil && (i+1 < s.first || s.last != 0 && i+1 > s.last) {
			keep[i] = false
		}
		if w := o.window; w != nil && keep[i] {
			g := &gens[i]
			if g.freq == 0 {
				continue // no clock: the validator will say why
			}
			start, end := time.Duration(g.nanos(g.start)-origin), time.Duration(g.nanos(g.end)-origin)
			keep[i] = end >= w.from && (w.to < 0 || start <= w.to)
		}
	}
	// Generations overlap a little in time: one that does not meet the
	// window between two that do is kept too, as Go's parser wants the
	// generations it reads consecutive.
	if first := slices.Index(keep, true); first >= 0 {
		last := len(keep) - 1
		for !keep[last] {
			last--
		}
		for i := first; i <= last; i++ {
			keep[i] = true
		}
	}
	return keep
}

// selection says what -gens, -from and -to ask for.
func (o *options) selection() string {
	var parts []string
	if o.gens != nil {
		parts = append(parts, "-gens "+o.gens.String())
	}
	if w := o.window; w != nil {
		to := "the end"
		if w.to >= 0 {
			to = w.to.String()
		}
		parts = append(parts, fmt.Sprintf("the window %v to %s", w.from, to))
	}
	return strings.Join(parts, " and ")
}
