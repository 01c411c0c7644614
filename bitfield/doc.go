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
// in a variable costs what a hand-written expression costs. FieldAt makes
// a Field from a shift and a width fixed in the source; called with
// constants, it folds into shifts and masks by constants, as a hot loop
// short of registers needs. Set refuses a value that does not fit rather
// than truncating it.
//
// # Errors
//
// New reports ErrLayout for a word size other than 8, 16, 32 or 64, for
// widths that overflow the word, and for more than MaxFields fields.
//
// Measured speed against hand-written shifts is in PERFORMANCE.md at
// the module's root.
package bitfield
