package apitrace

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// dumpLongOptions are apitrace dump's long options (cli/cli_dump.cpp) and
// whether each takes an argument: 'r' required, 'o' optional (only as
// --name=VALUE), 'n' none.
var dumpLongOptions = []struct {
	name string
	arg  byte
}{
	{"help", 'n'}, {"verbose", 'n'}, {"calls", 'r'}, {"colour", 'o'}, {"color", 'o'},
	{"grep", 'o'}, {"thread-ids", 'o'}, {"call-nos", 'o'}, {"arg-names", 'o'},
	{"blobs", 'n'}, {"multiline", 'o'},
}

// ParseDumpArgs reads apitrace dump's command line (without the program
// and command names) the way its getopt_long does: options and trace files
// may be mixed, "--" ends the options, a long option may be shortened to
// any unambiguous prefix, --calls takes its value after '=' or as the next
// argument, the boolean options take an optional =yes/no/true/false/1/0.
// It returns the options, the trace files in order, and whether -h/--help
// was given.
//
// --color=auto (apitrace's default) means never here: the caller decides
// whether its output is a terminal.
func ParseDumpArgs(args []string) (opts DumpOptions, files []string, help bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			return opts, files, help, nil
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			opt, err := dumpLookupOption(name)
			if err != nil {
				return opts, files, help, err
			}
			switch opt.arg {
			case 'n':
				if hasValue {
					return opts, files, help, fmt.Errorf("%w: option '--%s' doesn't allow an argument", ErrDumpOption, opt.name)
				}
			case 'r':
				if !hasValue {
					if i+1 >= len(args) {
						return opts, files, help, fmt.Errorf("%w: option '--%s' requires an argument", ErrDumpOption, opt.name)
					}
					i++
					value, hasValue = args[i], true
				}
			}
			if err := opts.set(opt.name, value, hasValue, &help); err != nil {
				return opts, files, help, err
			}
		case len(a) > 1 && a[0] == '-':
			for _, c := range a[1:] {
				switch c {
				case 'h':
					help = true
				case 'v':
					opts.Verbose = true
				default:
					return opts, files, help, fmt.Errorf("%w: invalid option -- '%c'", ErrDumpOption, c)
				}
			}
		default:
			files = append(files, a)
		}
	}
	return opts, files, help, nil
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
		if strings.HasPrefix(o.name, name) && name != "" {
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

func dumpBool(name, value string, hasValue bool) (bool, error) {
	if !hasValue {
		return true, nil
	}
	switch value {
	case "0", "no", "false":
		return false, nil
	case "1", "yes", "true":
		return true, nil
	}
	return false, fmt.Errorf("%w: --%s: unexpected bool %s", ErrDumpOption, name, value)
}

func (o *DumpOptions) set(name, value string, hasValue bool, help *bool) error {
	var err error
	var b bool
	switch name {
	case "help":
		*help = true
	case "verbose":
		o.Verbose = true
	case "calls":
		err = o.Calls.Merge(value)
	case "color", "colour":
		switch {
		case !hasValue || value == "always":
			o.Color = true
		case value == "never", value == "auto":
			o.Color = false
		default:
			err = fmt.Errorf("%w: unknown color argument %s", ErrDumpOption, value)
		}
	case "grep":
		if !hasValue {
			return fmt.Errorf("%w: --grep needs a regular expression", ErrDumpOption)
		}
		o.Grep, err = regexp.Compile(value)
	case "thread-ids":
		b, err = dumpBool(name, value, hasValue)
		o.ThreadIDs = b
	case "call-nos":
		b, err = dumpBool(name, value, hasValue)
		o.NoCallNos = !b
	case "arg-names":
		b, err = dumpBool(name, value, hasValue)
		o.NoArgNames = !b
	case "multiline":
		b, err = dumpBool(name, value, hasValue)
		o.NoMultiline = !b
	case "blobs":
		o.Blobs = true
	}
	return err
}

// ErrDumpOption reports a dump command line that apitrace dump would not
// accept.
var ErrDumpOption = errors.New("apitrace: bad dump option")
