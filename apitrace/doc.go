// Package apitrace reads and writes apitrace's binary trace files (.trace),
// versions 0 to 6, in the snappy and gzip containers.
//
// The package works at two levels. A Reader returns the stream's events
// (enter with thread, signature, flags, backtrace and arguments; leave with
// call number, output arguments and return value); a CallReader pairs them
// into calls the way apitrace does. A Writer writes events back.
package apitrace
