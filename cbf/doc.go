// Package cbf reads and writes Swift's Compact Backtrace Format (CBF) and
// Compact Image Map Format, byte for byte as Swift's runtime encodes them.
package cbf
