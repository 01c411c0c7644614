package apitrace_test

import (
	"log"
	"os"
	"path/filepath"

	"github.com/tracefmt/tracefmt/apitrace"
)

// Dump the first calls of a trace as `apitrace dump --calls=0-1` prints
// them.
func ExampleDumper() {
	args, err := apitrace.ParseDumpArgs([]string{"--calls=0-1", filepath.Join("testdata", "dump", "es2_info.trace")})
	if err != nil {
		log.Fatal(err)
	}
	d := apitrace.NewDumper(os.Stdout, args.Options)
	for _, name := range args.Files {
		f, err := os.Open(name)
		if err != nil {
			log.Fatal(err)
		}
		if err := d.Trace(f); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	// Output:
	// // process.name = "/usr/bin/es2_info.x86_64-linux-gnu"
	// 0 eglGetDisplay(display_id = 0x5565faca7d80) = 0x5565facc49e0
	// 1 eglInitialize(dpy = 0x5565facc49e0, major = &1, minor = &5) = EGL_TRUE
}
