// Package bitfield reads and writes named fixed-width fields inside 8-,
// 16-, 32- and 64-bit words, and n-byte big- and little-endian integers
// with zero or sign extension.
//
// A Layout is declared once from field widths in declaration order and a
// bit Order: LSBFirst puts the first field at bit 0 (C bit-fields on
// little-endian machines, such as XRay records on x86-64), MSBFirst at the
// top bit (C bit-fields on big-endian machines, and the opcode bytes of
// Swift's Compact Backtrace Format). Byte order is the caller's: load the
// word with encoding/binary in the order the producer used, then take the
// fields from it. XRay writes both in the machine's order, so a big-endian
// log is a big-endian word read MSBFirst.
//
// Field values returned by Layout.Field hold a shift and a mask; Get and
// Set are a shift and a mask, small enough to inline, so keeping a Field
// in a variable costs what a hand-written expression costs. Set refuses a
// value that does not fit rather than truncating it.
//
// # Errors
//
// New reports ErrLayout for a word size other than 8, 16, 32 or 64, for
// widths that overflow the word, and for more than MaxFields fields.
//
// # Performance
//
// BenchmarkGet takes the function type and id out of 4096 XRay words with
// Field.Get and with hand-written shifts and masks, side by side; none
// allocates. Measured 2026-11-21 on the project machine (2 cores,
// go1.26.8), median of several runs, time for 4096 words:
//
//	                      GOAMD64=v1 (default)   GOAMD64=v3
//	Field.Get             3.5 µs                 2.13 µs
//	hand, constants       2.2 µs  (0.63x)        2.13 µs (1.00x)
//	hand, run-time shifts 2.3 µs  (0.65x)        2.16 µs (0.99x)
//
// With v3 (BMI2's SHRX) Get compiles to exactly the hand-written code. On
// the v1 baseline a variable shift must go through the CL register, and
// with two fields live the compiler adds register moves around each: about
// 0.3 ns a word. Hot loops should copy their Fields into local variables
// so they stay in registers.
package bitfield
