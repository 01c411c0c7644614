package main

import (
	"encoding/binary"
	"fmt"
	"io"
)

// xrayOrder tells the byte order of an XRay log from its version field,
// which is 1 to 5 in the writer's order.
func xrayOrder(head []byte) binary.ByteOrder {
	if len(head) < 32 {
		return nil
	}
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		if v, t := o.Uint16(head), o.Uint16(head[2:]); v >= 1 && v <= 5 && t <= 1 {
			return o
		}
	}
	return nil
}

func isXRay(head []byte) bool { return xrayOrder(head) != nil }

// summarizeXRay reports the 32-byte file header. The xrayfdr package
// deepens this summary.
func summarizeXRay(w io.Writer, data []byte) error {
	o := xrayOrder(data)
	if o == nil {
		return fmt.Errorf("no XRay header")
	}
	mode := "basic"
	if o.Uint16(data[2:]) == 1 {
		mode = "fdr"
	}
	bits := o.Uint32(data[4:])
	fmt.Fprintf(w, "  version %d, mode %s, %v\n  constant tsc %v, nonstop tsc %v, cycle frequency %d Hz\n  %d bytes\n",
		o.Uint16(data), mode, o, bits&1 != 0, bits&2 != 0, o.Uint64(data[8:]), len(data))
	return nil
}
