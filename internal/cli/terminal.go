package cli

import (
	"io"
	"os"
)

// IsTerminal reports whether w is a terminal, as isatty does: an
// *os.File open on a terminal device. Other character devices such as
// /dev/null are not terminals, so output sent there is written as it
// would be to a file (no colour, no progress line).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	return isTerminal(f.Fd())
}
