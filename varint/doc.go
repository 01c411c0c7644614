// Package varint encodes and decodes unsigned LEB128 integers, the varints
// that apitrace, Go execution traces and snappy use.
//
// The encoding is the one of encoding/binary's Uvarint: seven bits a byte,
// least significant group first, the high bit set on every byte but the
// last. Unlike binary.Uvarint, Consume and ReadWidth report the width of
// non-minimal encodings as they are, and AppendPadded writes them, so a
// format writer can reproduce a producer's bytes (the Go runtime pads batch
// lengths to ten bytes).
//
// # Errors
//
// Consume reports a value cut short with n == 0 and an overflow (more than
// ten bytes, or a tenth byte above 1) with n < 0. Read returns io.EOF only
// before the first byte, io.ErrUnexpectedEOF inside a value and ErrOverflow
// for an overflow.
//
// Measured speed against encoding/binary is in PERFORMANCE.md at the
// module's root.
package varint
