package shape

import (
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// A check is one row of the README's "API at a glance" table, as the
// exported API of a package shows it: each returns what the package lacks
// or gets wrong, "" when it follows the row.
type check struct {
	row string // the row's first cell in the README
	fn  func(p *pkg) []string
}

// pkg is a format package as the checks see it.
type pkg struct {
	name string
	tp   *types.Package
	// rec is the type a reader returns, "Event" where the format calls
	// its records events, else "Record".
	rec string
	// readers and writers are the package's stream types, each with the
	// record type it reads or writes.
	readers, writers map[string]string
	// header is false for a format without a file header (cbf).
	header bool
	// binary and text say which error types its inputs need.
	binary, text bool
}

// exceptions are the cells where a package differs from a row, by package
// and row; the README's row names each of these packages with its reason.
var exceptions = map[string]map[string]bool{
	"gotraceraw": {"records": true, "strictness": true},
	"cbf":        {"records": true, "the header": true, "limits": true},

	"leaktext": {"sentinels": true},
}

var pkgs = []*pkg{
	{name: "apitrace", rec: "Event", readers: map[string]string{"Reader": "Event", "CallReader": "Call"},
		writers: map[string]string{"Writer": "Event", "CallWriter": "Call"}, header: true, binary: true},
	{name: "xrayfdr", rec: "Record", readers: map[string]string{"Reader": "Record"},
		writers: map[string]string{"Writer": "Record"}, header: true, binary: true, text: true},
	{name: "leaktext", rec: "Record", readers: map[string]string{"Reader": "Record"},
		writers: map[string]string{"Writer": "Record"}, header: true, text: true},
	{name: "cbf", rec: "Record", readers: map[string]string{"Reader": "Record"},
		writers: map[string]string{"Writer": "Record"}, binary: true},
	{name: "gotraceraw", rec: "Event", readers: map[string]string{"Reader": "Event", "TextReader": "Event"},
		writers: map[string]string{"Writer": "Event", "TextWriter": "Event"}, header: true, binary: true, text: true},
}

// The shared limit defaults (the README's "limits" row).
var limits = map[string]int64{"MaxDataLen": 256 << 20, "MaxFrames": 1 << 16, "MaxLineLen": 1 << 20}

var checks = []check{
	{"reading", func(p *pkg) (bad []string) {
		for r := range p.readers {
			bad = append(bad, p.fn("New"+r, "func(io.Reader) (*"+p.path()+"."+r+", error)")...)
		}
		return bad
	}},
	{"reuse", func(p *pkg) (bad []string) {
		for r := range p.readers {
			bad = append(bad, p.method(r, "Reset", "func(io.Reader) error")...)
		}
		for w := range p.writers {
			sig := "func(io.Writer, " + p.path() + ".Header) error"
			if !p.header {
				sig = "func(io.Writer) error"
			}
			bad = append(bad, p.method(w, "Reset", sig)...)
		}
		return bad
	}},
	{"the header", func(p *pkg) (bad []string) {
		for r := range p.readers {
			bad = append(bad, p.method(r, "Header", "func() "+p.path()+".Header")...)
		}
		for w := range p.writers {
			bad = append(bad, p.fn("New"+w, "func(io.Writer, "+p.path()+".Header) (*"+p.path()+"."+w+", error)")...)
		}
		return bad
	}},
	{"records", func(p *pkg) (bad []string) {
		for r, rec := range p.readers {
			bad = append(bad, p.method(r, "Read", "func() (*"+p.path()+"."+rec+", error)")...)
		}
		bad = append(bad, p.method(p.rec, "Clone", "func() *"+p.path()+"."+p.rec)...)
		bad = append(bad, p.field(p.rec, "Kind", p.path()+".Kind")...)
		return bad
	}},
	{"iteration", func(p *pkg) (bad []string) {
		for r, rec := range p.readers {
			bad = append(bad, p.method(r, "All", "func() iter.Seq2[*"+p.path()+"."+rec+", error]")...)
		}
		return bad
	}},
	{"writing", func(p *pkg) (bad []string) {
		for w, rec := range p.writers {
			bad = append(bad, p.method(w, "Write", "func(*"+p.path()+"."+rec+") error")...)
			bad = append(bad, p.method(w, "Flush", "func() error")...)
			bad = append(bad, p.method(w, "Close", "func() error")...)
		}
		return bad
	}},
	{"errors", func(p *pkg) (bad []string) {
		if p.binary {
			bad = append(bad, p.field("FormatError", "Offset", "int64")...)
			bad = append(bad, p.field("FormatError", "Err", "error")...)
			bad = append(bad, p.method("FormatError", "Unwrap", "func() error")...)
		}
		if p.text {
			bad = append(bad, p.field("SyntaxError", "Line", "int")...)
			bad = append(bad, p.field("SyntaxError", "Err", "error")...)
			bad = append(bad, p.method("SyntaxError", "Unwrap", "func() error")...)
		}
		return bad
	}},
	{"sentinels", func(p *pkg) (bad []string) {
		for _, s := range []string{"ErrHeader", "ErrVersion", "ErrTooLarge", "ErrOverflow", "ErrInvalid", "ErrClosed", "ErrNotOpen"} {
			if v, ok := p.tp.Scope().Lookup(s).(*types.Var); !ok || v.Type().String() != "error" {
				bad = append(bad, "no sentinel "+s)
			}
		}
		return bad
	}},
	{"limits", func(p *pkg) (bad []string) {
		for name, want := range limits {
			def, _ := p.tp.Scope().Lookup("Default" + name).(*types.Const)
			has := false
			for r := range p.readers {
				if len(p.field(r, name, "int")) == 0 {
					has = true
				}
			}
			switch {
			case def == nil && has:
				bad = append(bad, "a reader has "+name+" but there is no Default"+name)
			case def != nil && !has:
				bad = append(bad, "Default"+name+" but no reader has "+name)
			case def != nil:
				if v, ok := constant.Int64Val(def.Val()); !ok || v != want {
					bad = append(bad, "Default"+name+" is "+def.Val().String()+", not the shared "+constant.MakeInt64(want).String())
				}
			}
		}
		return bad
	}},
	{"strictness", func(p *pkg) (bad []string) {
		for r := range p.readers {
			if p.configuredBy(r) {
				continue
			}
			bad = append(bad, p.field(r, "Strict", "bool")...)
		}
		return bad
	}},
}

func (p *pkg) path() string { return p.tp.Path() }

// configuredBy reports whether reader r is set up through the Reader it
// wraps (apitrace's CallReader: its Reader method gives the Reader whose
// fields apply).
func (p *pkg) configuredBy(r string) bool {
	return r != "Reader" && len(p.method(r, "Reader", "func() *"+p.path()+".Reader")) == 0
}

// fn reports unless the package has the function name with one of sigs.
func (p *pkg) fn(name string, sigs ...string) []string {
	f, ok := p.tp.Scope().Lookup(name).(*types.Func)
	if !ok {
		return []string{"no func " + name}
	}
	return matchSig(name, f.Type(), sigs)
}

// method reports unless type typ's pointer has the method with one of sigs.
func (p *pkg) method(typ, name string, sigs ...string) []string {
	tn, ok := p.tp.Scope().Lookup(typ).(*types.TypeName)
	if !ok {
		return []string{"no type " + typ}
	}
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, p.tp, name)
	f, ok := obj.(*types.Func)
	if !ok {
		return []string{"no method " + typ + "." + name}
	}
	return matchSig(typ+"."+name, f.Type(), sigs)
}

// field reports unless struct type typ has the field name of type want.
func (p *pkg) field(typ, name, want string) []string {
	tn, ok := p.tp.Scope().Lookup(typ).(*types.TypeName)
	if !ok {
		return []string{"no type " + typ}
	}
	obj, _, _ := types.LookupFieldOrMethod(tn.Type(), false, p.tp, name)
	v, ok := obj.(*types.Var)
	if !ok || !v.IsField() {
		return []string{"no field " + typ + "." + name}
	}
	if got := v.Type().String(); got != want {
		return []string{typ + "." + name + " is " + got + ", not " + want}
	}
	return nil
}

func matchSig(name string, t types.Type, sigs []string) []string {
	got := t.String()
	if sig, ok := t.(*types.Signature); ok {
		got = sigText(sig)
	}
	if slices.Contains(sigs, got) {
		return nil
	}
	return []string{name + " is " + got + ", not " + sigs[0]}
}

// TestShape checks every format package against every row of the README's
// API table: a package follows the row, or the row names it as an
// exception, and then it must really differ (an exception that no longer
// holds is removed from the table).
func TestShape(t *testing.T) {
	root := testutil.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := tableRows(string(readme))
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for _, p := range pkgs {
		tp, err := imp.Import("github.com/tracefmt/tracefmt/" + p.name)
		if err != nil {
			t.Fatal(err)
		}
		p.tp = tp
	}
	for _, c := range checks {
		row, ok := rows[c.row+" ✓"]
		if !ok {
			t.Errorf("the README's API table has no checked row %q", c.row+" ✓")
			continue
		}
		for _, p := range pkgs {
			bad := c.fn(p)
			slices.Sort(bad)
			switch exc := exceptions[p.name][c.row]; {
			case exc && len(bad) == 0:
				t.Errorf("%s: %s: listed as an exception but follows the row: take it out of the table and the test", p.name, c.row)
			case exc && !strings.Contains(lastCell(row), "`"+p.name+"`"):
				t.Errorf("%s: %s: an exception the last column of the README's row does not name (and say why)", p.name, c.row)
			case !exc && len(bad) > 0:
				t.Errorf("%s: %s: %s", p.name, c.row, strings.Join(bad, "; "))
			}
		}
	}
}

// tableRows returns the rows of the README's "API at a glance" table by
// their first cell, each with the rest of its text.
func tableRows(readme string) map[string]string {
	rows := map[string]string{}
	_, table, _ := strings.Cut(readme, "## API at a glance")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, l := range strings.Split(table, "\n") {
		cells := strings.Split(l, " | ")
		if len(cells) < 2 || !strings.HasPrefix(l, "| ") {
			continue
		}
		rows[strings.TrimPrefix(cells[0], "| ")] = l
	}
	return rows
}

// lastCell is a table row's last cell, where the README names the
// packages that differ from the row: a name elsewhere in the row (the
// decision's own text names packages too) is no exception.
func lastCell(row string) string {
	row = strings.TrimSuffix(strings.TrimSpace(row), "|")
	return row[strings.LastIndex(row, " | ")+len(" | "):]
}

// sigText is a function type without its parameter names, which the rows
// leave free.
func sigText(sig *types.Signature) string {
	list := func(t *types.Tuple) string {
		var parts []string
		for i := 0; i < t.Len(); i++ {
			s := t.At(i).Type().String()
			if sig.Variadic() && t == sig.Params() && i == t.Len()-1 {
				s = "..." + strings.TrimPrefix(s, "[]")
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", ")
	}
	s := "func(" + list(sig.Params()) + ")"
	switch r := sig.Results(); r.Len() {
	case 0:
	case 1:
		s += " " + r.At(0).Type().String()
	default:
		s += " (" + list(r) + ")"
	}
	return s
}

func TestLastCell(t *testing.T) {
	for row, want := range map[string]string{
		"| a ✓ | `cbf` is like the rest | `gotraceraw`: why |": "`gotraceraw`: why",
		"| a ✓ | `cbf` is like the rest | |":                   "",
	} {
		if got := strings.TrimSpace(lastCell(row)); got != want {
			t.Errorf("lastCell(%q) = %q, want %q", row, got, want)
		}
	}
}
