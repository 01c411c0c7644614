// Package brotli decompresses Brotli streams (RFC 7932), the container
// `apitrace repack --brotli` writes (quality 11, window 24 by default).
//
// It reads every valid stream, of any quality and window size (2^10-16 to
// 2^24-16 bytes): compressed, uncompressed and metadata meta-blocks,
// every context mode, distance codes with any NPOSTFIX and NDIRECT, and
// references to the static dictionary with its 121 word transforms. The
// large-window extension (window sizes up to 2^30, not part of RFC 7932)
// is refused with ErrHeader. Decoding checks what the RFC requires: prefix
// codes must be complete, commands may not run past their meta-block,
// padding and reserved bits must be zero. Data after the end of a stream
// is ignored, where the brotli command refuses it.
//
// # Limits
//
// Memory is the window plus a small constant: the output ring buffer
// starts at 64 KiB and doubles as output is produced, up to the window
// the stream declares, so a short stream costs little whatever window it
// claims. A stream declaring a window larger than Reader.MaxWindow
// (DefaultMaxWindow, 16 MiB, when 0) fails with ErrTooLarge before the
// window is allocated. Prefix-code tables grow with the codes the input
// actually holds (at most a few MiB for the most a meta-block can name).
//
// # Errors
//
// A stream that is not valid Brotli yields a *FormatError giving the
// offset in the compressed input, wrapping one of ErrHeader,
// ErrTooLarge, ErrPrefixCode, ErrDistance or ErrCorrupt; input that
// ends inside the stream yields one wrapping io.ErrUnexpectedEOF. An
// error from the underlying reader is returned as it is. Errors are
// sticky, and the output decoded before an error is returned first.
// Decoding never panics on bad input and always ends.
//
// # Reading
//
// A Reader reads its input in 32 KiB pieces and may read past the end of
// the stream. Reset reuses all of a Reader's buffers; a Reader reused
// this way decodes without allocating. A zero Reader returns ErrNotOpen
// until Reset.
package brotli
