package xrayfdr

import "errors"

// demangleName is the default Demangle until the module's own Itanium
// demangler is wired in.
func demangleName(name string) (string, error) {
	return name, errors.New("xrayfdr: no demangler")
}
