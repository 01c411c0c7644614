package apitrace

import (
	"errors"
	"slices"
	"testing"
)

func TestParseDumpArgs(t *testing.T) {
	a, err := ParseDumpArgs([]string{
		"a.trace", "-v", "--calls", "1-3", "--thread-ids", "--call-nos=no", "--arg-names=0",
		"--multi=false", "--grep", "^glX", "--co=never", "--blobs", "b.trace", "--", "-v",
	})
	if err != nil {
		t.Fatal(err)
	}
	opts, files, help := a.Options, a.Files, a.Help
	if help || !opts.Verbose || !opts.ThreadIDs || !opts.NoCallNos || !opts.NoArgNames ||
		!opts.NoMultiline || opts.Color || !opts.Blobs || opts.Grep == nil || opts.Grep.String() != "^glX" {
		t.Errorf("options %+v", opts)
	}
	if !opts.Calls.Contains(2, 0) || opts.Calls.Contains(4, 0) {
		t.Errorf("calls %s", opts.Calls.String())
	}
	if want := []string{"a.trace", "b.trace", "-v"}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}

	if opts.Compat != Dump13 {
		t.Errorf("default release %v, want 13.0", opts.Compat)
	}
	a, err = ParseDumpArgs([]string{"-hv", "--color", "--thread-ids=yes", "--thread-ids=no", "--compat", "11.1"})
	if opts = a.Options; err != nil || !a.Help || !opts.Verbose || !opts.Color || opts.ThreadIDs || opts.Compat != Dump11 {
		t.Errorf("short options: %+v %v %v", opts, a.Help, err)
	}
	for _, bad := range [][]string{
		{"--calls"}, {"--c=1"}, {"--nope"}, {"--blobs=yes"}, {"-x"}, {"--color=sometimes"},
		{"--grep=("}, {"--grep"}, {"--calls=x"}, {"--compat=12.0"}, {"--compa=11.1"},
	} {
		if _, err := ParseDumpArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		} else if bad[0] != "--grep=(" && bad[0] != "--calls=x" && !errors.Is(err, ErrDumpOption) {
			t.Errorf("%q: %v does not wrap ErrDumpOption", bad, err)
		}
	}
}
