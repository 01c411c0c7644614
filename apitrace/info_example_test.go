package apitrace_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/tracefmt/tracefmt/apitrace"
)

// Summarise a trace as `apitrace info` does.
func ExampleReadInfoFile() {
	info, err := apitrace.ReadInfoFile(filepath.Join("testdata", "dump", "tri.trace"), false)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.API, info.ContainerType, info.FramesCount, info.CallsCount, info.ActualDataSize)
	// Output:
	// OpenGL + GLX/WGL/CGL Snappy 1 33 81406
}
