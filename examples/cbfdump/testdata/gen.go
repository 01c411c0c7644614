//go:build ignore

// gen.go writes the JSON backtraces of this directory with the cbf
// package, in the form Swift's Backtrace takes through Codable. Run it
// with `go run gen.go` here.
package main

import (
	"encoding/json"
	"log"
	"os"

	"github.com/tracefmt/tracefmt/cbf"
)

// images is a Linux x86_64 process: a program and three of its
// libraries, at the addresses such a process has, in increasing order of
// base as Swift writes them.
var images = cbf.ImageMap{
	Platform: "linux",
	Word:     cbf.Word64,
	Images: []cbf.Image{
		{Base: 0x555555554000, EndOfText: 0x555555559000, Path: "/home/user/demo/.build/debug/demo", BuildID: []byte{0x6b, 0x1f, 0x2e, 0x90, 0x11, 0xd4, 0x3c, 0x7a, 0x05, 0xb2, 0x88, 0x41, 0xe9, 0x0c, 0x73, 0x5d, 0xa6, 0x24, 0xf0, 0x13}},
		{Base: 0x7ffff7800000, EndOfText: 0x7ffff7b9c000, Path: "/usr/lib/swift/linux/libswiftCore.so"},
		{Base: 0x7ffff7c00000, EndOfText: 0x7ffff7d95000, Path: "/usr/lib/x86_64-linux-gnu/libc.so.6", BuildID: []byte{0xc2, 0x89, 0xda, 0x50, 0x62, 0xb8, 0x26, 0xa1, 0x07, 0x38, 0x2b, 0x2e, 0x85, 0x0c, 0xd4, 0xe2, 0xb0, 0x3e, 0x9e, 0x2b}},
		{Base: 0x7ffff7fc3000, EndOfText: 0x7ffff7fef000, Path: "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
	},
}

// crash is a backtrace from a fault in the program: its pc, return
// addresses in the program, a recursion (a repeated frame), Swift's
// runtime and libc's start code.
var crash = []cbf.Frame{
	{Kind: cbf.PC, Addr: 0x555555555a3c},
	{Kind: cbf.RA, Addr: 0x555555555c11},
	{Kind: cbf.RA, Addr: 0x555555555d80},
	{Kind: cbf.Repeat, Count: 5},
	{Kind: cbf.RA, Addr: 0x7ffff7a31c44},
	{Kind: cbf.RA, Addr: 0x555555556002},
	{Kind: cbf.RA, Addr: 0x7ffff7c29d90},
	{Kind: cbf.RA, Addr: 0x7ffff7c29e40},
	{Kind: cbf.RA, Addr: 0x555555555145},
}

// sample is another backtrace of the same process, cut short after its
// first frames, with frames left out while capturing.
var sample = []cbf.Frame{
	{Kind: cbf.PC, Addr: 0x7ffff7c91b2e},
	{Kind: cbf.RA, Addr: 0x7ffff7a30a10},
	{Kind: cbf.Omitted, Count: 12},
	{Kind: cbf.RA, Addr: 0x555555555c11},
	{Kind: cbf.Truncated},
}

func backtrace(frames []cbf.Frame) cbf.Backtrace {
	rec, err := cbf.Append(nil, cbf.Word64, frames)
	if err != nil {
		log.Fatal(err)
	}
	m, err := cbf.AppendImageMap(nil, images)
	if err != nil {
		log.Fatal(err)
	}
	return cbf.Backtrace{Architecture: "x86_64", Backtrace: rec, ImageMap: m}
}

func main() {
	one, err := json.MarshalIndent(backtrace(crash), "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("crash.json", append(one, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	var two []byte
	for _, f := range [][]cbf.Frame{crash, sample} {
		b, err := json.Marshal(backtrace(f))
		if err != nil {
			log.Fatal(err)
		}
		two = append(append(two, b...), '\n')
	}
	if err := os.WriteFile("two.json", two, 0o644); err != nil {
		log.Fatal(err)
	}
}
