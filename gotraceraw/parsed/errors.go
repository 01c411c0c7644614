package parsed

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// The errors the Reader and Validator return, wrapped in a FormatError,
// besides the raw level's (gotraceraw.ErrHeader, ErrVersion, ErrV1,
// ErrEventType, ErrTooLarge, ErrOverflow) and io.ErrUnexpectedEOF.
var (
	// ErrGeneration means a generation that is not put together as Go's
	// parser wants: batches out of order or cut short, a bad string,
	// stack, CPU sample or sync batch, no frequency or clock snapshot.
	ErrGeneration = errors.New("parsed: malformed generation")
	// ErrEvent means an event in a batch that cannot be read: an unknown
	// or untimed type, a cut varint.
	ErrEvent = errors.New("parsed: malformed event")
	// ErrTable means a string or stack ID that the generation's tables
	// lack or hold twice.
	ErrTable = errors.New("parsed: bad string or stack ID")
	// ErrState means an event that contradicts the state of the
	// goroutines, Ps, threads, GC, ranges, tasks or regions so far.
	ErrState = errors.New("parsed: event contradicts the trace's state")
	// ErrOrder means that no thread's next event can come next: the
	// sequence numbers admit no order.
	ErrOrder = errors.New("parsed: no event can come next")
	// ErrTooLarge means a generation longer than the reader's
	// MaxGenerationSize.
	ErrTooLarge = errors.New("parsed: generation beyond the reader's limit")
	// ErrNotOpen means a Reader used before a successful Reset (or
	// NewReader), or a Validator not made by NewValidator.
	ErrNotOpen = errors.New("parsed: not open")
)

// FormatError reports a trace that Go's parser rejects, and where: the
// byte offset of the batch or event at fault (-1 when the trace ended
// before it), its generation and the thread of its batch.
type FormatError struct {
	Offset int64
	Gen    uint64   // 0 before the first generation
	M      ThreadID // NoThread when no one batch is at fault
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString("parsed: ")
	if e.Offset >= 0 {
		b.WriteString("offset ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
		b.WriteString(": ")
	}
	if e.Gen != 0 {
		b.WriteString("generation ")
		b.WriteString(strconv.FormatUint(e.Gen, 10))
		if e.M != NoThread {
			b.WriteString(", M ")
			b.WriteString(strconv.FormatInt(int64(e.M), 10))
		}
		b.WriteString(": ")
	}
	if e.Err == nil {
		b.WriteString("unknown error")
	} else {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "parsed: "))
	}
	return b.String()
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Reason returns the message Go's parser gives for the same trace, without
// the location and sentinel this package adds.
func (e *FormatError) Reason() string {
	if e == nil {
		return ""
	}
	var r *reason
	if errors.As(e.Err, &r) {
		return goMessage(r.err)
	}
	if e.Err == nil {
		return ""
	}
	return goMessage(e.Err)
}

// goMessage returns Go's message for err: the raw level's errors put their
// sentinel before it, and both levels name the cut of a batch or of a
// generation cut short, which Go's messages do not.
func goMessage(err error) string {
	msg := err.Error()
	for _, s := range [...]error{gotraceraw.ErrEventType, gotraceraw.ErrTooLarge, gotraceraw.ErrOverflow} {
		if errors.Is(err, s) {
			msg = strings.TrimPrefix(msg, s.Error()+": ")
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) && (strings.HasPrefix(msg, "failed to read full batch:") || strings.HasPrefix(msg, "incomplete generation found;")) {
		msg = strings.TrimSuffix(msg, ": "+io.ErrUnexpectedEOF.Error())
	}
	return msg
}

// reason is a sentinel with Go's message for one case of it.
type reason struct {
	sentinel error
	err      error
}

func (r *reason) Error() string   { return r.sentinel.Error() + ": " + r.err.Error() }
func (r *reason) Unwrap() []error { return []error{r.sentinel, r.err} }
