package main

import "github.com/tracefmt/tracefmt/gotraceraw"

// newValidator returns the judge of each generation of a version v trace.
func newValidator(v gotraceraw.Version) gotraceraw.Validator { return acceptAll{} }

type acceptAll struct{}

func (acceptAll) Generation([]byte) error { return nil }
