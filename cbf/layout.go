package cbf

import "github.com/tracefmt/tracefmt/bitfield"

// The bytes of the format, drawn most significant bit first as Swift's
// documentation draws them.
var (
	// info byte: version(6) size(2)
	infoLayout  = bitfield.Must(8, bitfield.MSBFirst, 6, 2)
	infoVersion = infoLayout.Field(0)
	infoSize    = infoLayout.Field(1)

	// pc, ra, async and rep: class(4) a-or-x(1) count-1(3)
	opLayout = bitfield.Must(8, bitfield.MSBFirst, 4, 1, 3)
	opClass  = opLayout.Field(0)
	opFlag   = opLayout.Field(1)
	opCount  = opLayout.Field(2)

	// omit: 01 x(1) count-1(5)
	omitLayout = bitfield.Must(8, bitfield.MSBFirst, 2, 1, 5)
	omitFlag   = omitLayout.Field(1)
	omitCount  = omitLayout.Field(2)

	// image map image header: r(1) unused(1) base bytes-1(3) end bytes-1(3)
	imageLayout = bitfield.Must(8, bitfield.MSBFirst, 1, 1, 3, 3)
	imageRel    = imageLayout.Field(0)
	imageBase   = imageLayout.Field(2)
	imageEnd    = imageLayout.Field(3)

	// image map path opcodes: op(2) arg(6)
	pathLayout = bitfield.Must(8, bitfield.MSBFirst, 2, 6)
	pathOp     = pathLayout.Field(0)
	pathArg    = pathLayout.Field(1)
)

// Instruction classes: the top four bits of an instruction byte.
const (
	classEnd  = 0 // end, trunc, reserved
	classPC   = 1
	classRA   = 2
	classAsyn = 3
	classOmit = 4 // 4-7: 01xxxxxx
	classRep  = 8 // 1000xxxx
)

const (
	opEnd   = 0x00
	opTrunc = 0x01
)
