package apitrace

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// dumpLongOptions are apitrace dump's long options (cli/cli_dump.cpp) and
// whether each takes an argument: 'r' required, 'o' optional (only as
// --name=VALUE), 'n' none; then ours.
var dumpLongOptions = []struct {
	name string
	arg  byte
}{
	{"help", 'n'}, {"verbose", 'n'}, {"calls", 'r'}, {"colour", 'o'}, {"color", 'o'},
	{"grep", 'r'}, {"thread-ids", 'o'}, {"call-nos", 'o'}, {"arg-names", 'o'},
	{"blobs", 'n'}, {"multiline", 'o'},
	{"compat", 'r'},
}

// DumpArgs is apitrace dump's command line, as ParseDumpArgs reads it.
type DumpArgs struct {
	Options DumpOptions
	// Files are the trace files, in order.
	Files []string
	// Help is set when -h or --help was given.
	Help bool
	// Warnings are what apitrace prints on standard error, and goes on,
	// for a value it does not understand ("unexpected bool maybe").
	Warnings []string
}

// ParseDumpArgs reads apitrace dump's command line (without the program
// and command names) the way its getopt_long does: options and trace files
// may be mixed, "--" ends the options, a long option may be shortened to
// any unambiguous prefix, --calls and --grep take their value after '=' or
// as the next argument, the boolean options take an optional
// =yes/no/true/false/1/0 (another value is a warning, and leaves the
// option on as apitrace does).
//
// --compat=11.1 (our option, spelt in full) sets Options.Compat; it also
// decides, wherever it stands, whether a boolean option's value 1 is
// understood, as in apitrace 12.0 on, or a warning, as in 11.1.
//
// --color=auto (apitrace's default) means never here: the caller decides
// whether its output is a terminal.
func ParseDumpArgs(args []string) (DumpArgs, error) {
	var a DumpArgs
	o := &a.Options
	// The boolean options are settled once the release is known.
	type boolArg struct{ name, value string }
	var bools []boolArg
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.Files = append(a.Files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(arg, "--"):
			name, value, hasValue := strings.Cut(arg[2:], "=")
			opt, err := dumpLookupOption(name)
			if err != nil {
				return a, err
			}
			switch opt.arg {
			case 'n':
				if hasValue {
					return a, fmt.Errorf("%w: option '--%s' doesn't allow an argument", ErrDumpOption, opt.name)
				}
			case 'r':
				if !hasValue {
					if i+1 >= len(args) {
						return a, fmt.Errorf("%w: option '--%s' requires an argument", ErrDumpOption, opt.name)
					}
					i++
					value, hasValue = args[i], true
				}
			}
			var err2 error
			switch opt.name {
			case "help":
				a.Help = true
			case "verbose":
				o.Verbose = true
			case "calls":
				err2 = o.Calls.Merge(value)
			case "color", "colour":
				switch {
				case !hasValue || value == "always":
					o.Color = true
				case value == "never", value == "auto":
					o.Color = false
				default:
					err2 = fmt.Errorf("%w: unknown color argument %s", ErrDumpOption, value)
				}
			case "grep":
				o.Grep, err2 = regexp.Compile(value)
			case "blobs":
				o.Blobs = true
			case "compat":
				o.Compat, err2 = ParseDumpVersion(value)
			default:
				if !hasValue {
					value = "yes"
				}
				bools = append(bools, boolArg{opt.name, value})
			}
			if err2 != nil {
				return a, err2
			}
		case len(arg) > 1 && arg[0] == '-':
			for _, c := range arg[1:] {
				switch c {
				case 'h':
					a.Help = true
				case 'v':
					o.Verbose = true
				default:
					return a, fmt.Errorf("%w: invalid option -- '%c'", ErrDumpOption, c)
				}
			}
		default:
			a.Files = append(a.Files, arg)
		}
	}
	for _, b := range bools {
		on, ok := dumpBool(b.value, o.Compat)
		if !ok {
			a.Warnings = append(a.Warnings, "unexpected bool "+b.value)
		}
		switch b.name {
		case "thread-ids":
			o.ThreadIDs = on
		case "call-nos":
			o.NoCallNos = !on
		case "arg-names":
			o.NoArgNames = !on
		case "multiline":
			o.NoMultiline = !on
		}
	}
	return a, nil
}

func dumpLookupOption(name string) (opt struct {
	name string
	arg  byte
}, err error) {
	found := 0
	for _, o := range dumpLongOptions {
		if o.name == name {
			return o, nil
		}
		// compat is ours: only its full name, so that every prefix
		// apitrace takes (--co for --colour) means what it means there.
		if strings.HasPrefix(o.name, name) && name != "" && o.name != "compat" {
			// colour and color are the same option: not ambiguous.
			if found == 0 || !(strings.HasPrefix(opt.name, "col") && strings.HasPrefix(o.name, "col")) {
				found++
			}
			opt = o
		}
	}
	switch found {
	case 0:
		return opt, fmt.Errorf("%w: unrecognized option '--%s'", ErrDumpOption, name)
	case 1:
		return opt, nil
	}
	return opt, fmt.Errorf("%w: option '--%s' is ambiguous", ErrDumpOption, name)
}

// dumpBool reads a boolean option's value as apitrace's boolOption does:
// ok is false for a value it does not know, which keeps the default, yes.
// apitrace 11.1 does not know 1 (a typo there tests "0" twice).
func dumpBool(value string, v DumpVersion) (on, ok bool) {
	switch value {
	case "0", "no", "false":
		return false, true
	case "yes", "true":
		return true, true
	case "1":
		return true, v != Dump11
	}
	return true, false
}

// ErrDumpOption reports a dump command line that apitrace dump would not
// accept.
var ErrDumpOption = errors.New("apitrace: bad dump option")
