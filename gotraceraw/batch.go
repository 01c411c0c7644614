package gotraceraw

import (
	"fmt"
	"io"

	"github.com/tracefmt/tracefmt/varint"
)

// Batch is one batch of a binary trace, framed as Go's trace parser frames
// it: the header decoded, the events after it left as bytes.
//
// Reader.ReadBatch returns a pointer to a Batch the Reader owns; it and
// Data are valid until the next call to Read, ReadBatch or Reset.
type Batch struct {
	// Offset is the stream offset of the batch's first byte.
	Offset int64
	// Type is EvEventBatch, EvExperimentalBatch or EvEndOfGeneration; an
	// EndOfGeneration has no other field set.
	Type EventType
	// Exp is the experiment of an ExperimentalBatch, which Go's parser
	// reads as one byte.
	Exp uint8
	// Gen, M and Time are the batch's generation, thread and base
	// timestamp.
	Gen, M, Time uint64
	// Data holds the bytes after the header: the batch's events, or an
	// ExperimentalBatch's data.
	Data []byte
}

// batchHeaderMax is the longest batch header: type, experiment and four
// ten-byte varints.
const batchHeaderMax = 2 + 4*varint.MaxLen

// ReadBatch reads the next batch whole, as Go's trace parser does: the
// batch type, the header, then as many bytes as the header's size says,
// undecoded. It and Read may be mixed at batch boundaries. At the end of
// the trace it returns io.EOF; a cut inside the batch is an error wrapping
// io.ErrUnexpectedEOF. A byte that starts no batch is ErrEventType, a size
// over MaxBatchSize ErrTooLarge. Errors are sticky, as Read's.
//
// Unlike Read, ReadBatch takes the three batch types under every version,
// as Go's parser does, and leaves judging the version to the caller.
func (r *Reader) ReadBatch() (*Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.tab == nil {
		return nil, r.setErr(ErrNotOpen)
	}
	if r.end-r.pos < batchHeaderMax && !r.eof {
		if err := r.fill(batchHeaderMax); err != nil {
			return nil, r.setErr(err)
		}
	}
	b := r.buf[r.pos:r.end]
	off := r.Offset()
	fail := func(format string, args ...any) (*Batch, error) {
		return nil, r.setErr(&FormatError{Offset: off, Err: fmt.Errorf(format, args...)})
	}
	if len(b) == 0 {
		return nil, r.setErr(io.EOF)
	}
	r.batch = Batch{Offset: off, Type: EventType(b[0])}
	p := 1
	switch r.batch.Type {
	case EvEndOfGeneration:
		r.pos++
		return &r.batch, nil
	case EvExperimentalBatch:
		if len(b) < 2 {
			return fail("reading the experiment of a batch: %w", io.ErrUnexpectedEOF)
		}
		r.batch.Exp = b[1]
		p = 2
	case EvEventBatch:
	default:
		return fail("%w: expected batch event, got event %d", ErrEventType, b[0])
	}
	var size uint64
	for i, dst := range [...]*uint64{&r.batch.Gen, &r.batch.M, &r.batch.Time, &size} {
		v, n := varint.Consume(b[p:])
		if n <= 0 {
			what := [...]string{"gen", "M ID", "timestamp", "size"}[i]
			if n == 0 {
				return fail("error reading batch %s: %w", what, io.ErrUnexpectedEOF)
			}
			return fail("error reading batch %s: %w", what, ErrOverflow)
		}
		*dst = v
		p += n
	}
	if size > MaxBatchSize {
		return fail("%w: invalid batch size %d, maximum is %d", ErrTooLarge, size, MaxBatchSize)
	}
	if need := p + int(size); r.end-r.pos < need && !r.eof {
		if err := r.fill(need - (r.end - r.pos)); err != nil {
			return nil, r.setErr(err)
		}
	}
	b = r.buf[r.pos:r.end]
	if have := len(b) - p; have < int(size) {
		return fail("failed to read full batch: read %d but wanted %d: %w", have, size, io.ErrUnexpectedEOF)
	}
	r.batch.Data = b[p : p+int(size) : p+int(size)]
	r.pos += p + int(size)
	return &r.batch, nil
}
