// Package analysis reads XRay logs as llvm-xray's analyses do: Account
// (llvm-xray account), Stacks (llvm-xray stack; WriteFoldedSelf for flame
// graphs with self times), Graph (llvm-xray graph, DOT), Profile (a
// gzip'ed pprof profile for go tool pprof) and Spans (the calls, paired,
// with self times), and WriteChrome, Chrome trace-event JSON (Perfetto,
// chrome://tracing) with exact integer timestamps (llvm-xray's own
// trace_event output loses digits in a double and drops events).
//
// Each analysis reads a log (FDR, basic mode, or llvm-xray's YAML trace
// form) with xrayfdr.Walk, or takes its events one by one (Add); the
// functions are named by an instrumentation map (package instrmap). A
// record an analysis cannot pair is a *CallError, skipped with KeepGoing
// as llvm-xray --keep-going skips it. Account and Graph keep 8 bytes per
// call for exact percentiles; the others hold what grows with the
// distinct stacks and the stack depth.
//
// # Differences from llvm-xray 19 and 14
//
// Account, Stacks and Graph print what llvm-xray 19's account, stack and
// graph print (with their LLVM field set to xrayfdr.LLVM14, what llvm-xray
// 14's print), byte for byte, wherever llvm-xray succeeds: the same
// pairing of entries and exits, figures, number formats, and row order
// (its hash tables' order and libstdc++'s sort are reproduced, so ties come
// out alike; LLVM 19 orders graph's edges and the threads differently from
// LLVM 14). The file:line:col before each of account's functions is the
// line table's, as LLVM's symbolizer gives it: a function defined in a
// header names the header. They differ where llvm-xray fails or is wrong,
// in both releases:
//
//   - Buffers of one thread are walked in time order. llvm-xray's order
//     treats all buffers written in the same second as equal, so its walk
//     meets a thread's records out of order and fails ("empty stack") or
//     pairs the wrong calls, differently from run to run.
//   - account refuses a record earlier than the first record of its
//     thread; llvm-xray compares with the first record it meets, so it
//     fails on most multi-threaded logs ("Error processing record" and an
//     empty stack), and on which ones depends on its thread order: on
//     fdr_threads of the shared fixtures llvm-xray-14 succeeds and
//     llvm-xray-19 fails.
//   - YAML traces of any header version are read (llvm-xray reads only
//     version 1, not what its own convert writes).
//   - stack's flame format prints each stack's total time, callees
//     included (llvm-project issue 63676), so flamegraph.pl counts callees
//     twice; Stacks.WriteFoldedSelf prints self times, which it draws
//     right.
//   - account --sort=func leaves rows in hash order, as llvm-xray 14 and
//     19 do (they never implemented that sort).
//   - graph colors by a figure that is zero everywhere with the lightest
//     color (llvm-xray's result is undefined).
//   - The messages about records that cannot be accounted differ.
package analysis
