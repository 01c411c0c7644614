package instrmap

import (
	"bytes"
	"debug/elf"
)

func elfFile(data []byte) (*elf.File, error) { return elf.NewFile(bytes.NewReader(data)) }
