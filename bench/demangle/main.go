// Command demangle compares the whole-process speed of the demangler with
// llvm-cxxfilt-14's, side by side, on a million real C++ symbol names.
//
//	go run ./demangle [-n 1000000] [-runs 5] [-names FILE] [-tool llvm-cxxfilt-14]
//
// Without -names it takes the defined dynamic C++ symbols of the machine's
// shared libraries, repeated up to -n names. Both processes read the names
// on stdin, one a line, and write to a file; the outputs must be identical.
// It prints the median wall and CPU (user+system) time of each.
//
// With -filter it is the filter itself: stdin to stdout, like llvm-cxxfilt.
package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/tracefmt/tracefmt/internal/demangle"
)

func main() {
	filter := flag.Bool("filter", false, "act as the filter: names on stdin, demangled on stdout")
	n := flag.Int("n", 1000000, "number of names")
	runs := flag.Int("runs", 5, "runs of each (the median is shown)")
	namesFile := flag.String("names", "", "file of names, one a line (default: the machine's C++ symbols)")
	tool := flag.String("tool", "llvm-cxxfilt-14", "the reference filter")
	flag.Parse()
	if *filter {
		runFilter(os.Stdin, os.Stdout)
		return
	}
	if err := compare(*n, *runs, *namesFile, *tool); err != nil {
		fmt.Fprintln(os.Stderr, "demangle:", err)
		os.Exit(1)
	}
}

func runFilter(r io.Reader, w io.Writer) {
	in := bufio.NewReaderSize(r, 1<<16)
	out := bufio.NewWriterSize(w, 1<<16)
	defer out.Flush()
	for {
		line, err := in.ReadSlice('\n')
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte{'\n'})
			out.WriteString(demangle.Filter(string(line)))
			out.WriteByte('\n')
		}
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: read the rest and join.
			rest, err2 := in.ReadString('\n')
			full := string(line) + strings.TrimSuffix(rest, "\n")
			out.WriteString(demangle.Filter(full))
			out.WriteByte('\n')
			if err2 != nil {
				return
			}
			continue
		}
		if err != nil {
			return
		}
	}
}

func compare(n, runs int, namesFile, tool string) error {
	dir, err := os.MkdirTemp("", "demangle-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	input := filepath.Join(dir, "names.txt")
	unique, total, err := writeNames(input, n, namesFile)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ref, err := exec.LookPath(tool)
	if err != nil {
		return err
	}
	cmds := []struct {
		label string
		argv  []string
	}{
		{tool, []string{ref}},
		{"demangle.Filter", []string{self, "-filter"}},
	}
	var outs [2][]byte
	var wall, cpu [2][]time.Duration
	for r := 0; r < runs; r++ {
		for i, c := range cmds {
			outPath := filepath.Join(dir, fmt.Sprintf("out%d.txt", i))
			w, u, err := run(c.argv, input, outPath)
			if err != nil {
				return fmt.Errorf("%s: %v", c.label, err)
			}
			wall[i] = append(wall[i], w)
			cpu[i] = append(cpu[i], u)
			if r == 0 {
				if outs[i], err = os.ReadFile(outPath); err != nil {
					return err
				}
			}
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		return fmt.Errorf("outputs differ (%d and %d bytes)", len(outs[0]), len(outs[1]))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("names: %d (%d unique, repeated), output identical (%d bytes)\n", total, unique, len(outs[0]))
	fmt.Printf("machine: %d cores, %s/%s, %s, load %s; median of %d runs\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02 15:04"),
		strings.Join(strings.Fields(string(load))[:3], " "), runs)
	fmt.Printf("%-18s %10s %10s %14s %14s\n", "", "wall", "cpu", "names/s wall", "names/s cpu")
	for i, c := range cmds {
		w, u := median(wall[i]), median(cpu[i])
		fmt.Printf("%-18s %9.3fs %9.3fs %14.0f %14.0f\n", c.label, w.Seconds(), u.Seconds(),
			float64(total)/w.Seconds(), float64(total)/u.Seconds())
	}
	fmt.Printf("speed-up: %.2fx wall, %.2fx cpu\n",
		median(wall[0]).Seconds()/median(wall[1]).Seconds(), median(cpu[0]).Seconds()/median(cpu[1]).Seconds())
	return nil
}

func run(argv []string, in, out string) (wall, cpu time.Duration, err error) {
	fin, err := os.Open(in)
	if err != nil {
		return 0, 0, err
	}
	defer fin.Close()
	fout, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	defer fout.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = fin, fout, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// writeNames writes n names to path, cycling through the unique names.
func writeNames(path string, n int, namesFile string) (unique, total int, err error) {
	var names []string
	if namesFile != "" {
		data, err := os.ReadFile(namesFile)
		if err != nil {
			return 0, 0, err
		}
		names = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	} else {
		names = librarySymbols()
	}
	if len(names) == 0 {
		return 0, 0, fmt.Errorf("no names")
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		w.WriteString(names[i%len(names)])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, 0, err
	}
	return len(names), n, f.Close()
}

// librarySymbols lists the defined dynamic C++ symbols of the shared
// libraries in the usual places, sorted.
func librarySymbols() []string {
	seen := map[string]bool{}
	files := map[string]bool{}
	var names []string
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/llvm-14/lib"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.so*"))
		for _, m := range matches {
			real, err := filepath.EvalSymlinks(m)
			if err != nil || files[real] {
				continue
			}
			files[real] = true
			f, err := elf.Open(real)
			if err != nil {
				continue
			}
			syms, _ := f.DynamicSymbols()
			f.Close()
			for _, s := range syms {
				if s.Section != elf.SHN_UNDEF && strings.HasPrefix(s.Name, "_Z") && !seen[s.Name] {
					seen[s.Name] = true
					names = append(names, s.Name)
				}
			}
		}
	}
	sort.Strings(names)
	return names
}
