// Package cli gives the example commands one behaviour: -h prints the
// usage and exits 0; a bad flag or argument prints one line saying what
// is wrong, then the usage, and exits 2 (an argument understood but
// refused prints the line alone); a file that cannot be read or
// parsed prints one line naming the command and the file, and exits 1
// (after the command has gone on with its other files).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit statuses of every example command.
const (
	OK    = 0 // done, or -h
	Fail  = 1 // an input could not be read, parsed or written
	Usage = 2 // bad flag or argument
)

// Command is one example command's name, usage text and flags.
type Command struct {
	Name  string
	Usage string // the usage lines, without a trailing newline, e.g. "usage: cbfdump [-hex] [FILE]"
	Flags *flag.FlagSet
	// Stderr receives usage and error lines; nil means os.Stderr.
	Stderr io.Writer
}

// New returns a Command whose flag set reports errors instead of exiting.
func New(name, usage string, stderr io.Writer) *Command {
	if stderr == nil {
		stderr = os.Stderr
	}
	c := &Command{Name: name, Usage: usage, Stderr: stderr}
	c.Flags = flag.NewFlagSet(name, flag.ContinueOnError)
	c.Flags.SetOutput(io.Discard)
	c.Flags.Usage = func() {}
	return c
}

// PrintUsage writes the usage lines and the flags' defaults to Stderr.
func (c *Command) PrintUsage() {
	fmt.Fprintln(c.Stderr, c.Usage)
	c.Flags.SetOutput(c.Stderr)
	c.Flags.PrintDefaults()
	c.Flags.SetOutput(io.Discard)
}

// Parse parses args. When it returns ok false the command should exit
// with status code: OK after -h or -help (the usage was printed), Usage
// after a bad flag (one line and the usage were printed).
func (c *Command) Parse(args []string) (ok bool, code int) {
	err := c.Flags.Parse(args)
	if err == nil {
		return true, OK
	}
	if errors.Is(err, flag.ErrHelp) {
		c.PrintUsage()
		return false, OK
	}
	return false, c.BadUsage("%v", err)
}

// Refuse prints "name: " and the message on one line, and returns Usage:
// for an argument the command understands but will not do (a drop that
// would break every output), where the usage would only bury the reason.
func (c *Command) Refuse(format string, args ...any) int {
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Name, fmt.Sprintf(format, args...))
	return Usage
}

// BadUsage prints "name: " and the message on one line, then the usage,
// and returns Usage.
func (c *Command) BadUsage(format string, args ...any) int {
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Name, fmt.Sprintf(format, args...))
	c.PrintUsage()
	return Usage
}

// Failf prints one line, "name: file: message", and returns Fail. An
// empty file leaves out the file part. Errors that already name the file
// (as *os.PathError does) are printed without naming it twice.
func (c *Command) Failf(file string, err error) int {
	var pe *os.PathError
	switch {
	case file == "":
		fmt.Fprintf(c.Stderr, "%s: %v\n", c.Name, err)
	case errors.As(err, &pe) && pe.Path == file:
		fmt.Fprintf(c.Stderr, "%s: %v\n", c.Name, err)
	default:
		fmt.Fprintf(c.Stderr, "%s: %s: %v\n", c.Name, file, err)
	}
	return Fail
}

// Open opens a named input; "-" is standard input (never closed by the
// returned close function).
func Open(name string) (io.Reader, func() error, error) {
	if name == "-" {
		return os.Stdin, func() error { return nil }, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}
