package main

import (
	"io"
	"os"
	"testing"
)

// BenchmarkRun runs the whole command, as `gotracetext FILE > /dev/null`
// and `gotracetext -wire FILE.txt > /dev/null` do, on the trace named by
// $GOTRACERAW_LARGE (bench/gotraceraw/largeprog records one) and on its
// text form, named by $GOTRACERAW_LARGE_TEXT.
func BenchmarkRun(b *testing.B) {
	for _, c := range []struct{ name, env, flag string }{
		{"text", "GOTRACERAW_LARGE", ""},
		{"wire", "GOTRACERAW_LARGE_TEXT", "-wire"},
	} {
		b.Run(c.name, func(b *testing.B) {
			file := os.Getenv(c.env)
			if file == "" {
				b.Skipf("$%s names no trace", c.env)
			}
			st, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer null.Close()
			args := []string{file}
			if c.flag != "" {
				args = []string{c.flag, file}
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if code := run(args, null, io.Discard); code != 0 {
					b.Fatalf("exit status %d", code)
				}
			}
		})
	}
}
