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
// go1.26.8), medians of six runs, time for 4096 words, and the ratio of
// the hand-written time to Get's:
//
//	                       GOAMD64=v1 (default)   GOAMD64=v3
//	Field.Get              4.4 µs                 2.13 µs
//	hand, run-time shifts  4.1 µs (0.94x)         2.16 µs (1.01x)
//	hand, constant shifts  3.2 µs (0.73x)         2.13 µs (1.00x)
//
// Get compiles to exactly the instructions of the hand-written shift by a
// run-time amount (go tool objdump shows the same loop), which is what a
// reader that learns the byte order from a file header has to write; the
// difference in the table is the machine's noise. Against shifts by
// constants, Get costs the same with GOAMD64=v3 (BMI2's SHRX); on the v1
// baseline a variable shift must go through the CL register, about 0.25 ns
// a word more. Hot loops should copy their Fields into local variables so
// they stay in registers.
package bitfield
