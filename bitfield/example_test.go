package bitfield_test

import (
	"encoding/binary"
	"fmt"

	"github.com/tracefmt/tracefmt/bitfield"
)

// An XRay function record is a 32-bit word (1-bit record kind, 3-bit
// function type, 28-bit function id) followed by a 32-bit TSC delta, both
// in the byte order of the machine that wrote the log; the bit-fields are
// allocated LSB-first on little-endian machines and MSB-first on
// big-endian ones.
func Example_xrayFunctionRecord() {
	little := bitfield.Must(32, bitfield.LSBFirst, 1, 3, 28)
	big := bitfield.Must(32, bitfield.MSBFirst, 1, 3, 28)

	// Function 0x123 exits (type 1) after 0x2a ticks.
	le := []byte{0x32, 0x12, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00}
	be := []byte{0x10, 0x00, 0x01, 0x23, 0x00, 0x00, 0x00, 0x2a}

	w := uint64(binary.LittleEndian.Uint32(le))
	fmt.Printf("little-endian: kind %d type %d func %#x delta %d\n",
		little.Field(0).Get(w), little.Field(1).Get(w), little.Field(2).Get(w), binary.LittleEndian.Uint32(le[4:]))
	w = uint64(binary.BigEndian.Uint32(be))
	fmt.Printf("big-endian:    kind %d type %d func %#x delta %d\n",
		big.Field(0).Get(w), big.Field(1).Get(w), big.Field(2).Get(w), binary.BigEndian.Uint32(be[4:]))
	// Output:
	// little-endian: kind 0 type 1 func 0x123 delta 42
	// big-endian:    kind 0 type 1 func 0x123 delta 42
}

// A CBF pc, ra or async instruction is the byte 0001axxx, 0010axxx or
// 0011axxx: a 4-bit opcode, the absolute flag and the operand length less
// one, drawn MSB-first. The operand is a big-endian two's-complement
// number, sign-extended to the machine word.
func Example_cbfInstruction() {
	insn := bitfield.Must(8, bitfield.MSBFirst, 4, 1, 3)
	data := []byte{0x21, 0xff, 0x10} // ra, relative, 2 operand bytes

	op, abs, count := insn.Field(0).Get(uint64(data[0])), insn.Field(1).Get(uint64(data[0])), insn.Field(2).Get(uint64(data[0]))
	delta := bitfield.BigEndianSigned(data[1 : 2+count])
	fmt.Printf("opcode %d absolute %d operand bytes %d delta %d\n", op, abs, count+1, delta)

	b, ok := insn.Pack(2, 0, uint64(bitfield.SignedLen(delta)-1))
	fmt.Printf("re-encoded %#02x %v\n", b, ok)
	// Output:
	// opcode 2 absolute 0 operand bytes 2 delta -240
	// re-encoded 0x21 true
}
