// Package protoenc appends protocol buffer fields to a byte slice: the
// few wire types a profile.proto encoder needs (varints, length-delimited
// bytes and nested messages, packed repeated varints).
package protoenc

import "github.com/tracefmt/tracefmt/varint"

// Wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

func tag(b []byte, field int, wire uint64) []byte {
	return varint.Append(b, uint64(field)<<3|wire)
}

// Uint appends field as a varint; zero values are left out, as proto3
// does.
func Uint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return varint.Append(tag(b, field, wireVarint), v)
}

// Int appends an int64 field (two's complement varint).
func Int(b []byte, field int, v int64) []byte { return Uint(b, field, uint64(v)) }

// Bytes appends a length-delimited field (a string or bytes), even when
// empty.
func Bytes(b []byte, field int, s []byte) []byte {
	b = varint.Append(tag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// String appends a string field, even when empty.
func String(b []byte, field int, s string) []byte {
	b = varint.Append(tag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// Packed appends a packed repeated varint field (nothing when empty).
func Packed(b []byte, field int, vs []uint64) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += varint.Len(v)
	}
	b = varint.Append(tag(b, field, wireBytes), uint64(n))
	for _, v := range vs {
		b = varint.Append(b, v)
	}
	return b
}

// Message appends a nested message whose fields fn appends to the
// slice it is given.
func Message(b []byte, field int, fn func([]byte) []byte) []byte {
	body := fn(nil)
	b = varint.Append(tag(b, field, wireBytes), uint64(len(body)))
	return append(b, body...)
}
