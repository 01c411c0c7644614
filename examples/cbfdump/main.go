// Command cbfdump prints Swift Compact Backtrace Format records as text,
// one frame per line, and turns that text back into CBF.
//
//	cbfdump [-hex] [-word 64] [-strict] [-expand] [FILE]
//	cbfdump -encode [-hex] [-word 64] [FILE]
//
// Each frame prints as "pc 0x…", "ra 0x…", "async 0x…", "omit N", "rep N"
// or "trunc"; a record that ends normally ends with "end"; a blank line
// separates records. A record whose word size is not -word (default 64)
// starts with a "word N" line. With -hex the input (or, with -encode, the
// output) is hexadecimal text rather than bytes. -expand prints each
// repeated frame instead of "rep N".
//
// Damaged data is decoded as Swift's decoder decodes it: the record's
// frames so far, then "trunc"; cbfdump then reports the damage and exits
// with status 1. -strict reports it without the trunc line. -lenient,
// which used to ask for Swift's decoding, is accepted and changes nothing.
//
// -encode reads the text form, one frame per line ("word N" lines, blank
// lines, "end" and "#" comments allowed), and writes the bytes Swift's
// encoder writes for those frames.
//
// A FILE whose first byte after white space is "{" holds Swift's JSON
// backtraces (the Codable form, {"architecture": …, "backtrace": …,
// "imageMap": …}, one object or several back to back): each prints as "#"
// comment lines (the architecture and, where there is one, the image map,
// one line per image: its text addresses, path and build ID) followed by
// its record, as above; a blank line separates them. -encode reads that
// output back, comments skipped, as the CBF of the records.
//
// FILE "-" or no FILE reads standard input. Exit status: 0 done, 1 a file
// that cannot be read, decoded or encoded, 2 a bad flag or argument.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/cbf"
	"github.com/tracefmt/tracefmt/internal/cbfjson"
	"github.com/tracefmt/tracefmt/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: cbfdump [-hex] [-word 64] [-strict] [-expand] [FILE]
       cbfdump -encode [-hex] [-word 64] [FILE]`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := cli.New("cbfdump", usage, stderr)
	fs := c.Flags
	useHex := fs.Bool("hex", false, "input (or -encode output) is hexadecimal text")
	word := fs.Int("word", 64, "word size: 16, 32 or 64")
	encode := fs.Bool("encode", false, "read the text form and write CBF")
	strict := fs.Bool("strict", false, "report damaged data as an error, without Swift's trunc frame")
	fs.Bool("lenient", false, "decode as Swift's decoder does: damage ends the record with trunc (the default; accepted for old scripts)")
	expand := fs.Bool("expand", false, "print each repeated frame instead of rep N")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	w := cbf.WordSize(*word)
	if !w.Valid() {
		return c.BadUsage("bad -word %d: want 16, 32 or 64", *word)
	}
	if fs.NArg() > 1 {
		return c.BadUsage("one FILE at most, got %d", fs.NArg())
	}
	name := fs.Arg(0)
	if name == "" {
		name = "-"
	}
	display := name
	if name == "-" {
		display = "standard input"
	}
	in, closeIn, err := cli.Open(name)
	if name == "-" {
		in = stdin
	}
	if err != nil {
		return c.Failf(display, err)
	}
	defer closeIn()
	out := bufio.NewWriter(stdout)
	if *encode {
		err = encodeText(out, in, w, *useHex)
	} else {
		if *useHex {
			in, err = hexReader(in)
		} else {
			br := bufio.NewReaderSize(in, 64<<10)
			head, _ := br.Peek(64 << 10)
			in = br
			if cbfjson.Is(head) {
				err = dumpJSON(out, br, w, *strict, *expand)
				in = nil
			}
		}
		if err == nil && in != nil {
			err = dump(out, in, w, *strict, *expand)
		}
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		return c.Failf("", ferr)
	}
	if err != nil {
		return c.Failf(display, err)
	}
	return cli.OK
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

func dump(out *bufio.Writer, in io.Reader, word cbf.WordSize, strict, expand bool) error {
	r, err := cbf.NewReader(in)
	if err != nil {
		return err
	}
	r.Strict, r.Expand = strict, expand
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

// dumpJSON prints Swift's JSON backtraces: their architecture and image
// map as comments, then their records as dump prints them.
func dumpJSON(out *bufio.Writer, in io.Reader, word cbf.WordSize, strict, expand bool) error {
	return cbfjson.Read(in, func(n int, bt *cbf.Backtrace) error {
		if n > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(out, "# architecture %s\n", bt.Architecture)
		m, err := bt.Images()
		if err != nil {
			return err
		}
		if m != nil {
			fmt.Fprintf(out, "# image map: platform %s, %v, %d images\n", m.Platform, m.Word, len(m.Images))
			for _, im := range m.Images {
				fmt.Fprintf(out, "# image %#x-%#x %s", im.Base, im.EndOfText, im.Path)
				if im.BuildID != nil {
					fmt.Fprintf(out, " build-id %x", im.BuildID)
				}
				out.WriteByte('\n')
			}
		}
		return dump(out, bytes.NewReader(bt.Backtrace), word, strict, expand)
	})
}

// encodeText reads the text form and writes CBF records.
func encodeText(out io.Writer, in io.Reader, word cbf.WordSize, useHex bool) error {
	var bin bytes.Buffer
	w, err := cbf.NewWriter(&bin)
	if err != nil {
		return err
	}
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
	if err := w.Close(); err != nil {
		return err
	}
	if !useHex {
		_, err := out.Write(bin.Bytes())
		return err
	}
	// One record a line.
	data := bin.Bytes()
	r, err := cbf.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
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
