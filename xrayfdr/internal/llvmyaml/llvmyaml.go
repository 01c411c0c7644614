// Package llvmyaml writes and reads YAML scalars and flow mappings as
// LLVM's YAML I/O does, for the log's convert text, llvm-xray's YAML trace
// form and the instrumentation map's extract text.
package llvmyaml

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

type quoting uint8

const (
	quoteNone quoting = iota
	quoteSingle
	quoteDouble
)

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// needsQuotes follows LLVM 14's yaml::needsQuotes.
func needsQuotes[S string | []byte](s S) quoting {
	if len(s) == 0 {
		return quoteSingle
	}
	q := quoteNone
	str := string(s)
	if isSpaceByte(s[0]) || isSpaceByte(s[len(s)-1]) || isNullOrBool(str) || isNumeric(str) {
		q = quoteSingle
	}
	switch s[0] {
	case '-', '?', ':', '\\', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		q = quoteSingle
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) {
			continue
		}
		switch c {
		case '_', '-', '^', '.', ',', ' ', '\t':
			continue
		case '\n', '\r', 0x7f:
			return quoteDouble
		}
		if c <= 0x1f || c&0x80 != 0 {
			return quoteDouble
		}
		q = quoteSingle
	}
	return q
}

func isNullOrBool(s string) bool {
	switch s {
	case "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	return false
}

func skipDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[i:]
}

// isNumeric follows LLVM 14's yaml::isNumeric (YAML 1.2 core schema).
func isNumeric(s string) bool {
	if s == "" || s == "+" || s == "-" {
		return false
	}
	if s == ".nan" || s == ".NaN" || s == ".NAN" {
		return true
	}
	tail := s
	if s[0] == '-' || s[0] == '+' {
		tail = s[1:]
	}
	if tail == ".inf" || tail == ".Inf" || tail == ".INF" {
		return true
	}
	if len(s) >= 2 && s[:2] == "0o" {
		if len(s) == 2 {
			return false
		}
		for _, c := range s[2:] {
			if c < '0' || c > '7' {
				return false
			}
		}
		return true
	}
	if len(s) >= 2 && s[:2] == "0x" {
		if len(s) == 2 {
			return false
		}
		for _, c := range []byte(s[2:]) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	s = tail
	if s[0] == '.' && (s == "." || len(s) > 1 && (s[1] < '0' || s[1] > '9')) {
		return false
	}
	if s[0] == 'e' || s[0] == 'E' {
		return false
	}
	s = skipDigits(s)
	if s == "" {
		return true
	}
	exp := false
	switch s[0] {
	case '.':
		s = skipDigits(s[1:])
		if s == "" {
			return true
		}
		if s[0] != 'e' && s[0] != 'E' {
			return false
		}
		exp = true
		s = s[1:]
	case 'e', 'E':
		exp = true
		s = s[1:]
	default:
		return false
	}
	_ = exp
	if s == "" {
		return false
	}
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	return skipDigits(s) == ""
}

const hexUpper = "0123456789ABCDEF"

// AppendString appends s as LLVM's YAML writer prints a scalar: plain,
// single-quoted or double-quoted with escapes, as s needs.
func AppendString[S string | []byte](b []byte, s S) []byte {
	switch needsQuotes(s) {
	case quoteNone:
		return append(b, s...)
	case quoteSingle:
		b = append(b, '\'')
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '\'' {
				b = append(b, '\'')
			}
			b = append(b, c)
		}
		return append(b, '\'')
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case 0:
			b = append(b, `\0`...)
		case 7:
			b = append(b, `\a`...)
		case 8:
			b = append(b, `\b`...)
		case 9:
			b = append(b, `\t`...)
		case 10:
			b = append(b, `\n`...)
		case 11:
			b = append(b, `\v`...)
		case 12:
			b = append(b, `\f`...)
		case 13:
			b = append(b, `\r`...)
		case 0x1b:
			b = append(b, `\e`...)
		default:
			switch {
			case c < 0x20:
				b = append(b, '\\', 'x', hexUpper[c>>4], hexUpper[c&15])
			case c < 0x80:
				b = append(b, c)
			default:
				r, n := utf8.DecodeRune([]byte(s[i:min(i+utf8.UTFMax, len(s))]))
				if r == utf8.RuneError && n <= 1 {
					// LLVM writes U+FFFD and drops the rest of the string
					b = append(b, "\uFFFD"...)
					return append(b, '"')
				}
				switch {
				case r == 0x85:
					b = append(b, `\N`...)
				case r == 0xA0:
					b = append(b, `\_`...)
				case r == 0x2028:
					b = append(b, `\L`...)
				case r == 0x2029:
					b = append(b, `\P`...)
				case unicode.IsGraphic(r):
					b = append(b, s[i:i+n]...)
				default:
					h := strconv.FormatUint(uint64(r), 16)
					switch {
					case len(h) <= 2:
						b = append(b, `\x`...)
						b = appendPadded(b, h, 2)
					case len(h) <= 4:
						b = append(b, `\u`...)
						b = appendPadded(b, h, 4)
					default:
						b = append(b, `\U`...)
						b = appendPadded(b, h, 8)
					}
				}
				i += n - 1
			}
		}
	}
	return append(b, '"')
}

func appendPadded(b []byte, h string, w int) []byte {
	for i := len(h); i < w; i++ {
		b = append(b, '0')
	}
	for _, c := range []byte(h) {
		if c >= 'a' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// FlowPairs calls fn with each key and value of the flow mapping of a
// YAML sequence entry, "- { key: value, ... }", as llvm-xray writes them;
// what names the entry in errors. A value that is a flow sequence
// ("[1, 2]") comes whole, brackets included.
func FlowPairs(l []byte, what string, fn func(key, val string) error) error {
	if !bytes.HasPrefix(l, []byte("- {")) || l[len(l)-1] != '}' {
		return errors.New("not a " + what)
	}
	body := l[3 : len(l)-1]
	for len(bytes.TrimSpace(body)) > 0 {
		body = bytes.TrimLeft(body, " ")
		i := bytes.Index(body, []byte(": "))
		if i <= 0 {
			return errors.New("malformed key")
		}
		key := string(body[:i])
		body = bytes.TrimLeft(body[i+2:], " ")
		var val string
		if len(body) > 0 && body[0] == '[' {
			j := bytes.IndexByte(body, ']')
			if j < 0 {
				return fmt.Errorf("%s: unterminated sequence", key)
			}
			val, body = string(body[:j+1]), bytes.TrimLeft(body[j+1:], " ")
			if len(body) > 0 && body[0] == ',' {
				body = body[1:]
			}
		} else {
			var err error
			if val, body, err = FlowScalar(body); err != nil {
				return fmt.Errorf("%s: %v", key, err)
			}
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
	return nil
}

// FlowScalar reads one scalar of a flow mapping from the start of s and
// returns it and what follows its separating comma.
func FlowScalar(s []byte) (val string, rest []byte, err error) {
	if len(s) > 0 && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		var out []byte
		i := 1
		for ; i < len(s); i++ {
			c := s[i]
			if c == q {
				if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
					out = append(out, '\'')
					i++
					continue
				}
				break
			}
			if q == '"' && c == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					c = '\n'
				case 't':
					c = '\t'
				case 'r':
					c = '\r'
				case '0':
					c = 0
				case 'x':
					if i+2 < len(s) {
						if v, err := strconv.ParseUint(string(s[i+1:i+3]), 16, 8); err == nil {
							c = byte(v)
							i += 2
						}
					}
				default:
					c = s[i]
				}
			}
			out = append(out, c)
		}
		if i >= len(s) {
			return "", nil, errors.New("unterminated quoted scalar")
		}
		rest = bytes.TrimLeft(s[i+1:], " ")
		if len(rest) > 0 {
			if rest[0] != ',' {
				return "", nil, errors.New("text after a quoted scalar")
			}
			rest = rest[1:]
		}
		return string(out), rest, nil
	}
	end := bytes.IndexByte(s, ',')
	if end < 0 {
		end = len(s)
		rest = nil
	} else {
		rest = s[end+1:]
	}
	return string(bytes.TrimSpace(s[:end])), rest, nil
}
