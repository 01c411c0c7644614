package parsed

import (
	"bytes"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer or interface
// return an error.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, "../testdata/basic.trace")
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{"NewReader": NewReader, "NewValidator": NewValidator},
		Types: []any{
			new(ClockSnapshot), new(Event), new(Experimental), new(ExperimentalBatch), new(FormatError),
			new(Frame), new(GoID), new(GoState), new(Kind), new(Label), new(Log), new(Metric),
			new(ProcID), new(ProcState), new(Range), new(RangeAttribute), new(Reader), new(Region),
			new(ResourceID), new(ResourceKind), new(Stack), new(StateTransition), new(Sync), new(Task),
			new(TaskID), new(ThreadID), new(Time), new(Validator),
		},
		Open:     []any{r, NewValidator(gotraceraw.Go126)},
		AllowNil: []string{"FormatError.Unwrap", "Validator.Generation"},
	})
}
