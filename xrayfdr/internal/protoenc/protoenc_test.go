package protoenc

import (
	"bytes"
	"testing"
)

// Expected bytes from the protobuf encoding spec's examples.
func TestEncoding(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"varint 150", Uint(nil, 1, 150), []byte{0x08, 0x96, 0x01}},
		{"zero left out", Uint(nil, 1, 0), nil},
		{"string", String(nil, 2, "testing"), []byte{0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'}},
		{"negative int", Int(nil, 1, -1), []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"packed", Packed(nil, 4, []uint64{3, 270, 86942}), []byte{0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05}},
		{"message", Message(nil, 3, func(b []byte) []byte { return Uint(b, 1, 150) }), []byte{0x1a, 0x03, 0x08, 0x96, 0x01}},
	} {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s: got % x, want % x", c.name, c.got, c.want)
		}
	}
}
