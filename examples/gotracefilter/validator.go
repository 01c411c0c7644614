package main

import (
	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
)

// newValidator returns the judge of each generation of a version v
// trace: the parsed level, which reads it as Go's parser does.
func newValidator(v gotraceraw.Version) gotraceraw.Validator { return parsed.NewValidator(v) }
