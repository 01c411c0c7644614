package parsed

import (
	"errors"
	"io"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// Validator judges a trace one generation at a time, as the Reader would
// read it: it implements gotraceraw.Validator for the writers, so that
// they refuse a generation Go's parser would reject before writing it.
// It carries the state of goroutines, Ps, threads, GC and tasks from one
// generation to the next, as the Reader does.
//
// It applies the Reader's Strict rules too: an ExperimentalBatch of an
// experiment Go does not know, which Go's parser takes but `go tool trace`
// crashes printing, or one in a Go1.22 trace, is refused.
//
// Its errors are *FormatError, with offsets counted from the start of the
// generation's bytes. After an error every call returns it. A zero Validator,
// which has no version to judge by, returns ErrNotOpen.
type Validator struct {
	v       gotraceraw.Version
	s       stream
	raw     gotraceraw.Reader
	in      genInput
	ev      Event
	prevGen uint64
	err     error
}

// NewValidator returns a Validator for traces of version v.
func NewValidator(v gotraceraw.Version) *Validator {
	val := &Validator{v: v}
	val.s.reset(v, true, DefaultMaxGenerationSize)
	if !v.Valid() {
		val.err = &FormatError{Offset: -1, M: NoThread, Err: gotraceraw.ErrVersion}
	}
	return val
}

// Generation checks the wire bytes of one complete generation: its
// batches in the order written, without the trace header. For Go1.26
// they end with the generation's EndOfGeneration, as Go's parser wants;
// before Go1.26 every batch is of one generation, numbered one more than
// the last generation's. A nil error means Go's parser reads the
// generation, after those given before, without error.
func (val *Validator) Generation(wire []byte) error {
	if val == nil {
		return gotraceraw.ErrNotOpen
	}
	if val.err != nil {
		return val.err
	}
	if val.v == 0 {
		return ErrNotOpen // a zero Validator: no version to judge by
	}
	if len(wire) == 0 {
		return nil // nothing to read: Go's parser sees no generation
	}
	if err := val.generation(wire); err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Offset >= gotraceraw.HeaderLen {
			fe.Offset -= gotraceraw.HeaderLen
		}
		val.err = err
		return err
	}
	return nil
}

func (val *Validator) generation(wire []byte) error {
	val.in = genInput{hdr: header(val.v), wire: wire}
	if err := val.raw.Reset(&val.in); err != nil {
		return fromRaw(err, 0)
	}
	s := &val.s
	var ok bool
	var err error
	if val.v >= gotraceraw.Go126 {
		ok, err = s.readGeneration(&val.raw)
		if err == nil && ok {
			if b, err2 := val.raw.ReadBatch(); err2 != io.EOF {
				off := int64(-1)
				if err2 == nil {
					off = b.Offset
				}
				return &FormatError{Offset: off, Gen: s.gen.gen, M: NoThread, Err: wrapf(ErrGeneration, "bytes after the generation's end")}
			}
		}
	} else {
		s.spill = spilled{data: s.spill.data[:0]}
		ok, err = s.readGenerationWithSpill(&val.raw)
		switch {
		case err != nil:
		case s.spill.ok:
			err = &FormatError{Offset: s.spill.b.Offset, Gen: s.gen.gen, M: ThreadID(s.spill.b.M),
				Err: wrapf(ErrGeneration, "batch of generation %d in generation %d", s.spill.b.Gen, s.gen.gen)}
		case ok && val.prevGen != 0 && s.gen.gen != val.prevGen+1:
			// Go's parser finds the next generation by its number.
			err = &FormatError{Offset: s.gen.first, Gen: s.gen.gen, M: NoThread,
				Err: wrapf(ErrGeneration, "generations out of order")}
		}
	}
	if err != nil || !ok {
		return err
	}
	val.prevGen = s.gen.gen
	if err := s.install(true, &val.ev); err != nil {
		return err
	}
	for s.o.q.size > 0 || len(s.frontier) > 0 || len(s.samples) > 0 {
		if _, err := s.next(&val.raw, &val.ev); err != nil {
			return err
		}
	}
	return nil
}

// header returns the binary header of version v.
func header(v gotraceraw.Version) [gotraceraw.HeaderLen]byte {
	var h [gotraceraw.HeaderLen]byte
	copy(h[:], "go 1."+string(rune('0'+v/10))+string(rune('0'+v%10))+" trace")
	return h
}

// genInput reads a header, then one generation's bytes.
type genInput struct {
	hdr  [gotraceraw.HeaderLen]byte
	n    int
	wire []byte
}

func (g *genInput) Read(p []byte) (int, error) {
	if g.n < len(g.hdr) {
		n := copy(p, g.hdr[g.n:])
		g.n += n
		return n, nil
	}
	if len(g.wire) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.wire)
	g.wire = g.wire[n:]
	return n, nil
}
