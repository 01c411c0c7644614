// Package leaktext reads and writes sp-rtrace text reports (the "text data
// protocol" that sp-rtrace-postproc, sp-rtrace-resolve and functracer
// write) and computes leaks from them as sp-rtrace-postproc does.
package leaktext
