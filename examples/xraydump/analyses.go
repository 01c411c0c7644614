package main

// llvm-xray's analyses: account, stack, graph, and convert
// --output-format=pprof.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/tracefmt/tracefmt/internal/cli"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/analysis"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

const analysesUsage = `usage: xraydump account [--llvm=14] [--format=text|csv] [--sort=funcid|count|min|med|90p|99p|max|sum|func]
                        [--sortorder=asc|dsc] [--top=N] [--deduce-sibling-calls] [--recursive-calls-only]
                        [--keep-going] [--instr_map=BIN] [-o OUT] LOG
       xraydump stack [--llvm=14] [--all-stacks] [--per-thread-stacks | --aggregate-threads]
                      [--aggregation-type=time|count] [--stack-format=human|plain|flame|folded-self]
                      [--keep-going] [--instr_map=BIN] LOG...
       xraydump graph [--llvm=14] [--edge-label=F] [--vertex-label=F] [--color-edges=F] [--color-vertices=F]
                      [--deduce-sibling-calls] [--keep-going] [--instr_map=BIN] [-o OUT] LOG
                      (F: none|count|min|med|90p|99p|max|sum)
       (--llvm=14: print as llvm-xray-14 where it differs from llvm-xray-19, the default)
       xraydump convert --output-format=pprof [--deduce-sibling-calls] [--instr_map=BIN] -o OUT.pb.gz LOG`

type analysisOptions struct {
	instrMap, output                  string
	keepGoing, deduce, recursive      bool
	format, sort, sortOrder           string
	top                               int
	allStacks, perThread, aggregate   bool
	aggregation, stackFormat          string
	edgeLabel, vertexLabel, edgeColor string
	vertexColor                       string
	llvm                              xrayfdr.LLVM
}

// runAnalysis runs the account, stack and graph subcommands.
func runAnalysis(sub string, args []string, stdout, stderr io.Writer) int {
	c := cli.New("xraydump "+sub, analysesUsage, stderr)
	var o analysisOptions
	fs := c.Flags
	llvmFlag(c, &o.llvm)
	fs.StringVar(&o.instrMap, "instr_map", "", "binary with the instrumentation map, or a separate instrumentation map")
	fs.StringVar(&o.instrMap, "m", "", "alias for -instr_map")
	fs.BoolVar(&o.keepGoing, "keep-going", false, "keep going on errors encountered")
	fs.BoolVar(&o.keepGoing, "k", false, "alias for -keep-going")
	if sub != "stack" {
		fs.StringVar(&o.output, "output", "-", "output file; '-' for stdout")
		fs.StringVar(&o.output, "o", "-", "alias for -output")
		fs.BoolVar(&o.deduce, "deduce-sibling-calls", false, "deduce sibling calls when unrolling function call stacks")
		fs.BoolVar(&o.deduce, "d", false, "alias for -deduce-sibling-calls")
	}
	switch sub {
	case "account":
		fs.BoolVar(&o.recursive, "recursive-calls-only", false, "only count the calls that are recursive")
		fs.StringVar(&o.format, "format", "text", "output format: text or csv")
		fs.StringVar(&o.format, "f", "text", "alias for -format")
		fs.StringVar(&o.sort, "sort", "funcid", "sort output by this field")
		fs.StringVar(&o.sort, "s", "funcid", "alias for -sort")
		fs.StringVar(&o.sortOrder, "sortorder", "asc", "sort ordering: asc or dsc")
		fs.StringVar(&o.sortOrder, "r", "asc", "alias for -sortorder")
		fs.IntVar(&o.top, "top", -1, "only show the top N results")
		fs.IntVar(&o.top, "p", -1, "alias for -top")
	case "stack":
		fs.BoolVar(&o.perThread, "per-thread-stacks", false, "report top stacks within each thread id")
		fs.BoolVar(&o.aggregate, "aggregate-threads", false, "aggregate stack times across threads")
		fs.BoolVar(&o.allStacks, "all-stacks", false, "dump sum of timings for all stacks")
		fs.BoolVar(&o.allStacks, "all", false, "alias for -all-stacks")
		fs.StringVar(&o.stackFormat, "stack-format", "human", "human (or plain), flame (llvm-xray's: total time per stack, callees included), or folded-self (self time per stack, which flamegraph.pl and speedscope draw right)")
		fs.StringVar(&o.aggregation, "aggregation-type", "time", "time or count")
	case "graph":
		for _, f := range []struct {
			v           *string
			long, short string
			what        string
		}{
			{&o.edgeLabel, "edge-label", "e", "label edges with this field"},
			{&o.vertexLabel, "vertex-label", "v", "label vertices with this field"},
			{&o.edgeColor, "color-edges", "c", "color edges by this field"},
			{&o.vertexColor, "color-vertices", "b", "color vertices by this field"},
		} {
			fs.StringVar(f.v, f.long, "none", f.what+": none, count, min, med, 90p, 99p, max or sum")
			fs.StringVar(f.v, f.short, "none", "alias for -"+f.long)
		}
	}
	files, ok, code := parse(c, args)
	if !ok {
		return code
	}
	if len(files) == 0 || (sub != "stack" && len(files) != 1) {
		return c.BadUsage("want one log file, got %d arguments", len(files))
	}
	switch sub {
	case "account":
		if o.format != "text" && o.format != "csv" {
			return c.BadUsage("--format=%s: want text or csv", o.format)
		}
		if !oneOf(o.sort, "funcid", "count", "min", "med", "90p", "99p", "max", "sum", "func") {
			return c.BadUsage("--sort=%s: want funcid, count, min, med, 90p, 99p, max, sum or func", o.sort)
		}
		if o.sortOrder != "asc" && o.sortOrder != "dsc" {
			return c.BadUsage("--sortorder=%s: want asc or dsc", o.sortOrder)
		}
	case "stack":
		if o.stackFormat == "plain" {
			o.stackFormat = "human" // our name for llvm-xray's default
		}
		if !oneOf(o.stackFormat, "human", "flame", "folded-self") {
			return c.BadUsage("--stack-format=%s: want human, flame or folded-self", o.stackFormat)
		}
		if o.aggregation != "time" && o.aggregation != "count" {
			return c.BadUsage("--aggregation-type=%s: want time or count", o.aggregation)
		}
		// llvm-xray's checks, in its order and words
		switch {
		case o.perThread && o.aggregate:
			return c.BadUsage("Can't specify options for per thread reporting and reporting that aggregates threads.")
		case !o.allStacks && o.stackFormat != "human":
			return c.BadUsage("Can't specify a non-human format without -all-stacks.")
		case o.allStacks && o.stackFormat == "human":
			return c.BadUsage("You must specify a non-human format when reporting with -all-stacks.")
		}
	case "graph":
		for _, v := range []string{o.edgeLabel, o.vertexLabel, o.edgeColor, o.vertexColor} {
			if !oneOf(v, "none", "count", "min", "med", "90p", "99p", "max", "sum") {
				return c.BadUsage("field %q: want none, count, min, med, 90p, 99p, max or sum", v)
			}
		}
	}
	var m *instrmap.Map
	if o.instrMap != "" {
		var err error
		if m, err = openMap(o.instrMap); err != nil {
			return c.Failf(o.instrMap, err)
		}
		m.LLVM = o.llvm
	}
	out := stdout
	if o.output != "" && o.output != "-" {
		f, err := os.Create(o.output)
		if err != nil {
			return c.Failf("", err)
		}
		defer f.Close()
		out = f
	}
	// the analyses keep little but each call's latency: collecting
	// garbage early saves nothing
	debug.SetGCPercent(400)
	bw := bufio.NewWriterSize(out, 1<<16)
	var file string
	var err error
	switch sub {
	case "account":
		file, err = files[0], account(bw, stderr, files[0], m, o)
	case "stack":
		file, err = stack(bw, stderr, files, m, o)
	case "graph":
		file, err = graph(bw, stderr, files[0], m, o)
	}
	if ferr := bw.Flush(); err == nil && ferr != nil {
		return c.Failf("", ferr)
	}
	if err != nil {
		return fail(c, file, err)
	}
	return cli.OK
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// reportSkipped prints a record the analysis skips, as llvm-xray does.
func reportSkipped(stderr io.Writer, names func(int32) string) func(*analysis.CallError) {
	return func(e *analysis.CallError) {
		fmt.Fprintf(stderr, "Error processing record: %s\n", e.Event.LLVMRecord())
		fmt.Fprintf(stderr, "Thread ID: %d\n", e.Event.TID)
		if len(e.Stack) == 0 {
			fmt.Fprintf(stderr, "  (empty stack)\n")
		}
		for i := len(e.Stack) - 1; i >= 0; i-- {
			fmt.Fprintf(stderr, "  #%d\t%s\n", i+1, names(e.Stack[i]))
		}
	}
}

func nameFunc(m *instrmap.Map) func(int32) string {
	return func(id int32) string { return m.Name(id, true) }
}

func account(w, stderr io.Writer, file string, m *instrmap.Map, o analysisOptions) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	a := &analysis.Account{LLVM: o.llvm, DeduceSiblingCalls: o.deduce, RecursiveCallsOnly: o.recursive,
		KeepGoing: o.keepGoing, OnError: reportSkipped(stderr, nameFunc(m))}
	if err := a.Read(data); err != nil {
		if ce, ok := err.(*analysis.CallError); ok {
			reportSkipped(stderr, nameFunc(m))(ce)
		}
		return err
	}
	f := analysis.AccountFormat{Sort: o.sort, Descending: o.sortOrder == "dsc", Top: o.top}
	if o.format == "csv" {
		return a.WriteCSV(w, m, f)
	}
	return a.WriteText(w, m, f)
}

func stack(w, stderr io.Writer, files []string, m *instrmap.Map, o analysisOptions) (string, error) {
	s := &analysis.Stacks{LLVM: o.llvm, KeepGoing: o.keepGoing, OnError: func(e *analysis.CallError) {
		fmt.Fprintln(stderr, llvmStackError(e, m))
	}}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err == nil {
			err = s.Read(data)
		}
		if err != nil {
			if _, ok := err.(*analysis.CallError); ok || !o.keepGoing {
				return file, err
			}
			fmt.Fprintf(stderr, "xraydump stack: %s: %v\n", file, err)
		}
	}
	if s.Empty() {
		return files[0], analysis.ErrNoCalls
	}
	f := analysis.StackFormat{PerThread: o.perThread, AggregateThreads: o.aggregate, Count: o.aggregation == "count"}
	switch o.stackFormat {
	case "flame":
		return "", s.WriteFlame(w, m, f)
	case "folded-self":
		return "", s.WriteFoldedSelf(w, m, f)
	}
	return "", s.WriteTop(w, m, f)
}

// llvmStackError words a record stack skips as llvm-xray does.
func llvmStackError(e *analysis.CallError, m *instrmap.Map) string {
	typ := "Unknown"
	switch e.Event.RecordType {
	case 0:
		typ = "Fn Entry"
	case 1:
		typ = "Fn Exit"
	}
	return fmt.Sprintf("Found record {FuncId: %q, ThreadId: \"%d\", RecordType: %q} with no matching function entry",
		m.Name(e.Event.FuncID, true), e.Event.TID, typ)
}

func graph(w, stderr io.Writer, file string, m *instrmap.Map, o analysisOptions) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return file, err
	}
	g := &analysis.Graph{LLVM: o.llvm, DeduceSiblingCalls: o.deduce, KeepGoing: o.keepGoing, OnError: func(e *analysis.CallError) {
		fmt.Fprintf(stderr, "Thread ID: %d\n", e.Event.TID)
		for i := len(e.Stack) - 1; i >= 0; i-- {
			fmt.Fprintf(stderr, "#%d\t%s\n", i+1, m.Name(e.Stack[i], true))
		}
		if o.deduce && len(e.Stack) > 0 {
			fmt.Fprintln(stderr, "No matching Entry record in stack")
		} else {
			fmt.Fprintln(stderr, "No matching ENTRY record")
		}
	}}
	if err := g.Read(data); err != nil {
		return file, err
	}
	return "", g.WriteDOT(w, m, analysis.GraphFormat{
		EdgeLabel: analysis.GraphField(o.edgeLabel), VertexLabel: analysis.GraphField(o.vertexLabel),
		EdgeColor: analysis.GraphField(o.edgeColor), VertexColor: analysis.GraphField(o.vertexColor)})
}

// convertPprof writes the log as a gzip'ed pprof profile. Records that
// cannot be paired (an exit whose entry the flight recorder dropped) are
// skipped, and exits close the calls opened since their entry.
func convertPprof(c *cli.Command, file, instrMap, output string, llvm xrayfdr.LLVM) int {
	if output == "" || output == "-" {
		return c.BadUsage("--output-format=pprof needs -o OUT.pb.gz")
	}
	var m *instrmap.Map
	if instrMap != "" {
		var err error
		if m, err = openMap(instrMap); err != nil {
			return c.Failf(instrMap, err)
		}
		m.LLVM = llvm // the demangler's spelling
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return c.Failf(file, err)
	}
	p := &analysis.Profile{DeduceSiblingCalls: true, KeepGoing: true}
	if err := p.Read(data); err != nil {
		return fail(c, file, err)
	}
	f, err := os.Create(output)
	if err != nil {
		return c.Failf("", err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = p.WriteProfile(bw, m)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return c.Failf(output, err)
	}
	return cli.OK
}
