// Command cbfdump prints Swift Compact Backtrace Format records as text,
// one frame per line, and turns that text back into CBF.
//
//	cbfdump [-hex] [-word 64] [-lenient] [-expand] [FILE]
//	cbfdump -encode [-hex] [-word 64] [FILE]
//
// Each frame prints as "pc 0x…", "ra 0x…", "async 0x…", "omit N", "rep N"
// or "trunc"; a record that ends normally ends with "end"; a blank line
// separates records. A record whose word size is not -word (default 64)
// starts with a "word N" line. With -hex the input (or, with -encode, the
// output) is hexadecimal text rather than bytes. -lenient decodes as
// Swift's decoder does (errors end the record with trunc), -expand prints
// each repeated frame instead of "rep N".
//
// -encode reads the text form, one frame per line ("word N" lines, blank
// lines, "end" and "#" comments allowed), and writes the bytes Swift's
// encoder writes for those frames.
//
// FILE "-" or no FILE reads standard input.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/cbf"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cbfdump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	useHex := fs.Bool("hex", false, "input (or -encode output) is hexadecimal text")
	word := fs.Int("word", 64, "word size: 16, 32 or 64")
	encode := fs.Bool("encode", false, "read the text form and write CBF")
	lenient := fs.Bool("lenient", false, "decode as Swift's decoder does: errors end the record with trunc")
	expand := fs.Bool("expand", false, "print each repeated frame instead of rep N")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cbfdump [-hex] [-word 64] [-lenient] [-expand] [FILE]\n       cbfdump -encode [-hex] [-word 64] [FILE]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	w := cbf.WordSize(*word)
	if !w.Valid() || fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	in := stdin
	if name := fs.Arg(0); name != "" && name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "cbfdump: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var err error
	if *encode {
		err = encodeText(out, in, w, *useHex)
	} else {
		if *useHex {
			in, err = hexReader(in)
		}
		if err == nil {
			err = dump(out, in, w, *lenient, *expand)
		}
	}
	if err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "cbfdump: %v\n", err)
		return 1
	}
	return 0
}

// hexReader decodes hexadecimal text, ignoring white space.
func hexReader(r io.Reader) (io.Reader, error) {
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		return nil, fmt.Errorf("bad hex input: %v", err)
	}
	return bytes.NewReader(b), nil
}

func dump(out *bufio.Writer, in io.Reader, word cbf.WordSize, lenient, expand bool) error {
	r := cbf.NewReader(in)
	r.Lenient, r.Expand = lenient, expand
	var line []byte
	for n := 0; ; n++ {
		w, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			out.WriteByte('\n')
		}
		if w != word {
			fmt.Fprintf(out, "word %d\n", w)
		}
		for {
			f, err := r.Frame()
			if err == io.EOF {
				out.WriteString("end\n")
				break
			}
			if err != nil {
				return err
			}
			line = append(f.AppendText(line[:0]), '\n')
			out.Write(line)
			if f.Kind == cbf.Truncated {
				if _, err := r.Frame(); err != io.EOF {
					return err
				}
				break
			}
		}
	}
}

// encodeText reads the text form and writes CBF records.
func encodeText(out io.Writer, in io.Reader, word cbf.WordSize, useHex bool) error {
	var bin bytes.Buffer
	w := cbf.NewWriter(&bin)
	sc := bufio.NewScanner(in)
	open := false
	next := word
	records := 0
	finish := func() error {
		if !open {
			return nil
		}
		open = false
		records++
		return w.End()
	}
	lineNo := 0
	fail := func(err error) error { return fmt.Errorf("line %d: %w", lineNo, err) }
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			if line == "" {
				if err := finish(); err != nil {
					return fail(err)
				}
			}
			continue
		case line == "end":
			if !open {
				if err := w.Begin(next); err != nil {
					return fail(err)
				}
				open = true
			}
			if err := finish(); err != nil {
				return fail(err)
			}
			next = word
			continue
		case strings.HasPrefix(line, "word "):
			n, err := strconv.Atoi(strings.TrimSpace(line[5:]))
			if err != nil || !cbf.WordSize(n).Valid() || open {
				return fail(errors.New("bad word line (16, 32 or 64, before a record's frames)"))
			}
			next = cbf.WordSize(n)
			continue
		}
		f, err := cbf.ParseFrame(line)
		if err != nil {
			return fail(err)
		}
		if !open {
			if err := w.Begin(next); err != nil {
				return fail(err)
			}
			open = true
		}
		if err := w.WriteFrame(f); err != nil {
			return fail(err)
		}
		if f.Kind == cbf.Truncated {
			open = false
			records++
			if err := w.End(); err != nil {
				return fail(err)
			}
			next = word
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if !useHex {
		_, err := out.Write(bin.Bytes())
		return err
	}
	// One record a line.
	data := bin.Bytes()
	r := cbf.NewReader(bytes.NewReader(data))
	start := int64(0)
	for {
		if _, err := r.Read(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		end := r.Offset()
		fmt.Fprintf(out, "% x\n", data[start:end])
		start = end
	}
}
