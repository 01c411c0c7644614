package apitrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// seedStreams returns the decompressed streams of the small committed
// traces, cut to at most 1 KiB (the fuzzer minimises every new input, which
// takes long on big ones), as fuzz seeds.
func seedStreams(f *testing.F) [][]byte {
	files, _ := filepath.Glob("testdata/*.trace")
	var out [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		s, _ := stream(f, data)
		out = append(out, s[:min(len(s), 1024)])
	}
	return out
}

// container wraps a raw stream in a snappy file.
func container(s []byte) []byte {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	// Replace the header the Writer wrote by the raw stream.
	w.buf = append(w.buf[:0], s...)
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// checkEnd asserts the error contract: io.EOF, or a *FormatError.
func checkEnd(t *testing.T, err error) {
	var fe *FormatError
	if err != io.EOF && !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is neither io.EOF nor a *FormatError", err, err)
	}
}

func readCalls(t *testing.T, data []byte) {
	var cr CallReader
	cr.Reader().MaxDataLen = 1 << 20
	if err := cr.Reset(bytes.NewReader(data)); err != nil {
		checkEnd(t, err)
		return
	}
	var fast strings.Builder
	for {
		c, err := cr.Read()
		if err != nil {
			checkEnd(t, err)
			if _, again := cr.Read(); again != err {
				t.Fatalf("error not sticky: %v then %v", err, again)
			}
			fmt.Fprintf(&fast, "%v\n", err)
			break
		}
		renderCall(&fast, c)
	}
	if slow := renderCalls(data, true); slow != fast.String() {
		t.Fatalf("calls read the fast way:\n%s\nthe general way:\n%s", fast.String(), slow)
	}
}

// renderCalls reads every call of a trace and spells them out, then the
// error that ended the trace; general makes every call go the general
// way, not the fast path's.
func renderCalls(data []byte, general bool) string {
	var sb strings.Builder
	cr := CallReader{noFast: general}
	cr.Reader().MaxDataLen = 1 << 20
	if err := cr.Reset(bytes.NewReader(data)); err != nil {
		return err.Error()
	}
	for {
		c, err := cr.Read()
		if err != nil {
			fmt.Fprintf(&sb, "%v\n", err)
			return sb.String()
		}
		renderCall(&sb, c)
	}
}

func renderCall(sb *strings.Builder, c *Call) {
	fmt.Fprintf(sb, "%d %d %d %v", c.No, c.Thread, c.Flags, c.Incomplete)
	if c.Sig != nil {
		fmt.Fprintf(sb, " %d %q %q", c.Sig.ID, c.Sig.Name, c.Sig.ArgNames)
	}
	fmt.Fprintf(sb, " bt%v", c.Backtrace != nil)
	for _, fr := range c.Backtrace {
		fmt.Fprintf(sb, " %d %d %q %q %q %d %d", fr.ID, fr.Has, fr.Module, fr.Function, fr.File, fr.Line, fr.Offset)
	}
	for i := range c.Args {
		fmt.Fprintf(sb, " %d=", i)
		valueText(sb, &c.Args[i], byID)
	}
	sb.WriteString(" ret=")
	valueText(sb, &c.Ret, byID)
	sb.WriteByte('\n')
}

// FuzzReader feeds whole files (container and all) to the CallReader.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"incomplete-call.trace", "zlib-no-eof.trace"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range seedStreams(f) {
		f.Add(container(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readCalls(t, data)
	})
}

// FuzzStream feeds raw streams, wrapped in a valid snappy container, so
// that the fuzzer works on the event grammar rather than on compression.
func FuzzStream(f *testing.F) {
	for _, s := range seedStreams(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		readCalls(t, container(s))
	})
}

// renderEvents reads every event and spells them out, signatures and
// frames as how says; it returns the text and the error that ended the
// stream.
func renderEvents(data []byte, how sigSpelling) (string, error) {
	return renderFirstEvents(data, -1, how)
}

// renderFirstEvents is renderEvents of the first n events the Reader
// returns (all of them when n is negative).
func renderFirstEvents(data []byte, n int, how sigSpelling) (string, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	h := r.Header()
	fmt.Fprintf(&sb, "%d %d %q\n", h.Version, h.SemanticVersion, h.Properties)
	// A leave whose call is not pending is one apitrace drops, and so
	// does the Writer: leave it out.
	pending := make(map[uint64]bool)
	for ; n != 0; n-- {
		ev, err := r.Read()
		if err != nil {
			return sb.String(), err
		}
		if ev.Kind == Enter {
			pending[ev.Call] = true
		} else if !pending[ev.Call] {
			continue
		} else {
			delete(pending, ev.Call)
		}
		fmt.Fprintf(&sb, "%v %d %d %d", ev.Kind, ev.Call, ev.Thread, ev.Flags)
		if ev.Sig != nil {
			if how&byID != 0 {
				fmt.Fprintf(&sb, " %d", ev.Sig.ID)
			}
			fmt.Fprintf(&sb, " %q %q", ev.Sig.Name, ev.Sig.ArgNames)
		}
		fmt.Fprintf(&sb, " bt%v", ev.Backtrace != nil)
		for _, fr := range ev.Backtrace {
			if how&byID != 0 {
				fmt.Fprintf(&sb, " %d", fr.ID)
			}
			fmt.Fprintf(&sb, " %d %q %q %q %d %d", fr.Has, fr.Module, fr.Function, fr.File, fr.Line, fr.Offset)
		}
		for _, a := range ev.Args {
			fmt.Fprintf(&sb, " %d=", a.Index)
			valueText(&sb, &a.Value, how)
		}
		sb.WriteString(" ret=")
		valueText(&sb, &ev.Ret, how)
		sb.WriteByte('\n')
	}
	return sb.String(), io.EOF
}

// renumbered reports whether the stream in data names a signature or
// frame by an id above MaxWriteID, which a Writer gives a new one.
func renumbered(data []byte) bool {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return false
	}
	var big func(v *Value) bool
	big = func(v *Value) bool {
		if s := v.Enum(); s != nil && s.ID > MaxWriteID {
			return true
		}
		if s := v.Bitmask(); s != nil && s.ID > MaxWriteID {
			return true
		}
		if s := v.Struct(); s != nil && s.ID > MaxWriteID {
			return true
		}
		for _, e := range v.Elems() {
			if big(&e) {
				return true
			}
		}
		return false
	}
	for {
		ev, err := r.Read()
		if err != nil {
			return false
		}
		if (ev.Sig != nil && ev.Sig.ID > MaxWriteID) || big(&ev.Ret) {
			return true
		}
		for _, fr := range ev.Backtrace {
			if fr.ID > MaxWriteID {
				return true
			}
		}
		for _, a := range ev.Args {
			if big(&a.Value) {
				return true
			}
		}
	}
}

// FuzzRoundTrip reads a stream, writes its events back and checks that
// reading the copy gives the same events, but for leaves of calls not
// pending, which apitrace and the Writer drop. (Bytes may differ for input no
// apitrace writes: non-minimal integers, "negative zero" in signatures,
// details out of apitrace's order.)
func FuzzRoundTrip(f *testing.F) {
	for _, s := range seedStreams(f) {
		f.Add(s)
	}
	f.Fuzz(roundTripBody)
}

func roundTripBody(t *testing.T, s []byte) {
	{
		data := container(s)
		// Ids are kept, but for those a Writer renumbers.
		how := byID | byContent
		if renumbered(data) {
			how = byContent
		}
		want, err := renderEvents(data, how)
		if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
			return // damaged: nothing to compare
		}
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, r.Header())
		if err != nil {
			// A name given twice (apitrace keeps its last value) or
			// holding a NUL is read but refused by the Writer; nothing
			// else in a header is.
			if errors.Is(err, ErrInvalid) && refusedProperties(r.Header()) {
				return
			}
			t.Fatalf("header read but not written: %v", err)
		}
		for n := 0; ; n++ {
			ev, err := r.Read()
			if err != nil {
				break
			}
			if err := w.Write(ev); err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("writing a read event: %v", err)
				}
				// The Writer refuses what apitrace would misread or
				// crash on although our Reader reads it (an argument
				// index past the signature's names, …): what it
				// accepted before must come out whole.
				if want, err = renderFirstEvents(data, n, how); err != nil && err != io.EOF {
					t.Fatalf("reading the input again: %v", err)
				}
				break
			}
		}
		if err := w.Close(); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
		got, err := renderEvents(buf.Bytes(), how)
		if err != nil && err != io.EOF {
			t.Fatalf("reading our copy: %v", err)
		}
		if got != want {
			t.Fatalf("events differ:\n%s\n---\n%s", want, got)
		}
	}
}

// FuzzFilter reads a stream's calls, keeps every other one and writes them
// with the CallWriter, and drops the enter events of every other call with
// the event Writer: reading either copy gives exactly the calls kept,
// numbered from 0, and the Writers refuse nothing the Reader read.
func FuzzFilter(f *testing.F) {
	for _, s := range seedStreams(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		data := container(s)
		d := NewDumper(io.Discard, DumpOptions{NoCallNos: true, NoMultiline: true})
		cr, err := NewCallReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		cw, err := NewCallWriter(&buf, cr.Header())
		if err != nil {
			if errors.Is(err, ErrInvalid) && refusedProperties(cr.Header()) {
				return // read, as apitrace reads it, but refused
			}
			t.Fatalf("header read but not written: %v", err)
		}
		var want []string
		k := 0
		for c, err := range cr.All() {
			if err != nil {
				break
			}
			k++
			if k%2 == 0 {
				continue
			}
			if err := cw.Write(c); err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("writing a read call: %v", err)
				}
				// Refused by a rule of the Writer (an argument index
				// past the signature's names, …): the calls written
				// before come out whole.
				break
			}
			line := string(d.AppendCall(nil, c))
			if c.Incomplete {
				line += " incomplete"
			}
			want = append(want, line)
		}
		if err := cw.Close(); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
		got, err := callLines(d, buf.Bytes())
		if err != nil {
			t.Fatalf("reading the CallWriter's copy: %v", err)
		}
		if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
			t.Fatalf("CallWriter copy differs:\n%s\n---\n%s", w, g)
		}

		// The event Writer, dropping the enters of odd calls.
		r, _ := NewReader(bytes.NewReader(data))
		buf.Reset()
		w, err := NewWriter(&buf, r.Header())
		if err != nil {
			t.Fatal(err)
		}
		for ev, err := range r.All() {
			if err != nil {
				break
			}
			if ev.Kind == Enter && ev.Call%2 == 1 {
				continue
			}
			if err := w.Write(ev); err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("writing a read event: %v", err)
				}
				break
			}
		}
		if err := w.Close(); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
		got, err = callLines(nil, buf.Bytes())
		if err != nil {
			t.Fatalf("reading the Writer's copy: %v", err)
		}
		if uint64(len(got)) != w.Calls() {
			t.Fatalf("the copy holds %d calls, %d were written", len(got), w.Calls())
		}
	})
}

// callLines reads every call of data and returns each as d prints it
// (numbered by position when d is nil), checking that the calls are
// numbered 0 to n-1.
func callLines(d *Dumper, data []byte) ([]string, error) {
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []string
	seen := make(map[uint64]bool)
	for c, err := range cr.All() {
		if err != nil {
			return out, err
		}
		if c.No >= uint64(1<<32) || seen[c.No] {
			return out, fmt.Errorf("call number %d twice or out of range", c.No)
		}
		seen[c.No] = true
		line := fmt.Sprint(c.No)
		if d != nil {
			line = string(d.AppendCall(nil, c))
		}
		if c.Incomplete {
			line += " incomplete"
		}
		out = append(out, line)
	}
	for no := range seen {
		if no >= uint64(len(out)) {
			return out, fmt.Errorf("call number %d among %d calls", no, len(out))
		}
	}
	return out, nil
}

// TestCallFastPath reads the real traces' calls the fast way and the
// general way and finds them the same.
func TestCallFastPath(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.trace")
	more, _ := filepath.Glob("testdata/*/*.trace")
	for _, name := range more {
		// The hostile traces are for the limits' tests.
		if filepath.Base(filepath.Dir(name)) != "hostile" {
			files = append(files, name)
		}
	}
	check := func(t *testing.T, name string) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fast, general := renderCalls(data, false), renderCalls(data, true)
		if fast != general {
			t.Errorf("%s: calls differ read the fast and the general way", name)
		}
		if strings.Count(fast, "\n") < 2 {
			t.Errorf("%s: no calls read", name)
		}
	}
	for _, name := range files {
		check(t, name)
	}
	t.Run("glxgears-20s", func(t *testing.T) {
		if testing.Short() {
			t.Skip("778,015 calls")
		}
		check(t, testutil.SharedFixture(t, "apitrace/glxgears-20s.trace"))
	})
}

// refusedProperties reports whether h has properties the Writer refuses
// although a Reader reads them: two with one name as apitrace sees it (up
// to a NUL), or one holding a NUL, which apitrace would cut there.
func refusedProperties(h Header) bool {
	seen := map[string]bool{}
	for _, p := range h.Properties {
		if strings.IndexByte(p.Name+p.Value, 0) >= 0 {
			return true
		}
		if seen[cstr(p.Name)] {
			return true
		}
		seen[cstr(p.Name)] = true
	}
	return false
}
