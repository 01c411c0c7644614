// Package pprof writes profiles in pprof's format (profile.proto,
// gzip-compressed), the one encoder every format's profile goes through.
//
// Samples are encoded and compressed as they are added, so they cost no
// memory; the locations, functions, mappings and strings they refer to are
// kept (encoded) until Close writes them after the samples, which
// protocol buffers allow: fields may come in any order, and pprof resolves
// string and location references once the whole message is read.
package pprof

import (
	"compress/gzip"
	"errors"
	"io"

	"github.com/tracefmt/tracefmt/varint"
)

// ValueType is a sample value's (or the period's) type and unit, such as
// "inuse_space" and "bytes".
type ValueType struct {
	Type, Unit string
}

// Header is what a profile says of itself besides its samples.
type Header struct {
	// SampleTypes name each sample's values, in order.
	SampleTypes []ValueType
	// DefaultSampleType is the type pprof shows first ("" for the
	// last).
	DefaultSampleType string
	// PeriodType and Period are the sampling period, when there is one.
	PeriodType ValueType
	Period     int64
	// TimeNanos is when the profile was taken (Unix nanoseconds), and
	// DurationNanos how long it covers; 0 when unknown.
	TimeNanos, DurationNanos int64
	// Comments are free text pprof prints with the profile.
	Comments []string
}

// Mapping is a binary image mapped in the profiled process.
type Mapping struct {
	Start, Limit, Offset uint64
	File, BuildID        string
	// HasFunctions says every location in it has its function names.
	HasFunctions bool
}

// Line is a function (an id Function returned) and a line in it; an
// inlined call has several, innermost first.
type Line struct {
	Function uint64
	Line     int64
}

// Location is a place in the program a sample's stack passes through.
type Location struct {
	Mapping uint64 // an id Mapping returned, 0 for none
	Address uint64
	Lines   []Line
}

// ErrClosed means the Encoder was used after Close.
var ErrClosed = errors.New("pprof: encoder closed")

// Encoder writes one profile. Ids it returns for mappings, functions and
// locations start at 1; a sample must refer only to ids it returned.
type Encoder struct {
	zw  *gzip.Writer
	buf []byte // encoded samples waiting for the compressor
	// mappings, locations and functions, each kind written whole at
	// Close
	maps, locs, fns []byte
	scr             []byte // a nested message being built
	h               Header
	strs            []string
	strIdx          map[string]int64
	funcs           map[funcKey]uint64
	nmaps           uint64
	nlocs           uint64
	nfuncs          uint64
	err             error
	closed          bool
}

type funcKey struct {
	name, sys, file int64
	line            int64
}

// Field numbers of profile.proto.
const (
	fSampleType  = 1
	fSample      = 2
	fMapping     = 3
	fLocation    = 4
	fFunction    = 5
	fString      = 6
	fTime        = 9
	fDuration    = 10
	fPeriodType  = 11
	fPeriod      = 12
	fComment     = 13
	fDefaultType = 14
)

// NewEncoder starts a profile written to w; Close finishes it (it does not
// close w).
func NewEncoder(w io.Writer, h Header) *Encoder {
	e := &Encoder{zw: gzip.NewWriter(w), h: h, strIdx: map[string]int64{}, funcs: map[funcKey]uint64{}}
	e.String("")
	for _, t := range h.SampleTypes {
		e.buf = e.valueType(e.buf, fSampleType, t)
	}
	return e
}

// String returns the index of s in the string table, adding it.
func (e *Encoder) String(s string) int64 {
	if i, ok := e.strIdx[s]; ok {
		return i
	}
	i := int64(len(e.strs))
	e.strs = append(e.strs, s)
	e.strIdx[s] = i
	return i
}

func (e *Encoder) valueType(b []byte, field int, t ValueType) []byte {
	typ, unit := e.String(t.Type), e.String(t.Unit)
	e.scr = appendInt(e.scr[:0], 1, typ)
	e.scr = appendInt(e.scr, 2, unit)
	return appendBytes(b, field, e.scr)
}

// Mapping adds a mapping and returns its id, or 0 after Close.
func (e *Encoder) Mapping(m Mapping) uint64 {
	if e.closed {
		return 0
	}
	e.nmaps++
	file, build := e.String(m.File), e.String(m.BuildID)
	s := appendUint(e.scr[:0], 1, e.nmaps)
	s = appendUint(s, 2, m.Start)
	s = appendUint(s, 3, m.Limit)
	s = appendUint(s, 4, m.Offset)
	s = appendInt(s, 5, file)
	s = appendInt(s, 6, build)
	if m.HasFunctions {
		s = appendUint(s, 7, 1)
	}
	e.scr = s
	e.maps = appendBytes(e.maps, fMapping, s)
	return e.nmaps
}

// Function returns the id of the function with these names, source file
// and first line, adding it the first time. systemName "" means name.
// After Close it returns 0.
func (e *Encoder) Function(name, systemName, file string, startLine int64) uint64 {
	if e.closed {
		return 0
	}
	n := e.String(name)
	sys := n
	if systemName != "" {
		sys = e.String(systemName)
	}
	k := funcKey{n, sys, e.String(file), startLine}
	if id, ok := e.funcs[k]; ok {
		return id
	}
	e.nfuncs++
	e.funcs[k] = e.nfuncs
	s := appendUint(e.scr[:0], 1, e.nfuncs)
	s = appendInt(s, 2, k.name)
	s = appendInt(s, 3, k.sys)
	s = appendInt(s, 4, k.file)
	s = appendInt(s, 5, startLine)
	e.scr = s
	e.fns = appendBytes(e.fns, fFunction, s)
	return e.nfuncs
}

// Location adds a location and returns its id. Locations are not merged:
// the caller keeps one id per place. After Close it returns 0.
func (e *Encoder) Location(l Location) uint64 {
	if e.closed {
		return 0
	}
	e.nlocs++
	s := appendUint(e.scr[:0], 1, e.nlocs)
	s = appendUint(s, 2, l.Mapping)
	s = appendUint(s, 3, l.Address)
	for _, ln := range l.Lines {
		var line [2 * (1 + varint.MaxLen)]byte
		lb := appendInt(appendUint(line[:0], 1, ln.Function), 2, ln.Line)
		s = appendBytes(s, fLocLine, lb)
	}
	e.scr = s
	e.locs = appendBytes(e.locs, fLocation, s)
	return e.nlocs
}

const fLocLine = 4

// Label is a string label of a sample: pprof can filter, group and tag
// samples by it (-tagfocus, -tags).
type Label struct {
	Key, Value string
}

// Sample adds a sample: its stack as location ids, innermost first, one
// value per sample type, and labels.
func (e *Encoder) Sample(locs []uint64, values []int64, labels ...Label) error {
	if e.closed {
		return ErrClosed
	}
	if e.err != nil {
		return e.err
	}
	s := appendPacked(e.scr[:0], 1, locs)
	s = appendPacked(s, 2, values)
	for _, l := range labels {
		var lb [2 * (1 + varint.MaxLen)]byte
		s = appendBytes(s, 3, appendInt(appendInt(lb[:0], 1, e.String(l.Key)), 2, e.String(l.Value)))
	}
	e.scr = s
	e.buf = appendBytes(e.buf, fSample, s)
	if len(e.buf) >= 64<<10 {
		return e.flush()
	}
	return nil
}

func (e *Encoder) flush() error {
	if _, err := e.zw.Write(e.buf); err != nil {
		e.err = err
		return err
	}
	e.buf = e.buf[:0]
	return nil
}

// Close writes the mappings, locations, functions, the rest of the header
// and the string table, and finishes the gzip stream.
func (e *Encoder) Close() error {
	if e.closed {
		return ErrClosed
	}
	if e.err != nil {
		return e.err
	}
	e.closed = true
	b := append(append(append(e.buf, e.maps...), e.locs...), e.fns...)
	h := &e.h
	if h.PeriodType != (ValueType{}) {
		b = e.valueType(b, fPeriodType, h.PeriodType)
	}
	b = appendInt(b, fPeriod, h.Period)
	b = appendInt(b, fTime, h.TimeNanos)
	b = appendInt(b, fDuration, h.DurationNanos)
	for _, c := range h.Comments {
		b = appendInt(b, fComment, e.String(c))
	}
	b = appendInt(b, fDefaultType, e.String(h.DefaultSampleType))
	// The string table goes last: everything above added to it.
	for _, s := range e.strs {
		b = varint.Append(append(b, fString<<3|wireBytes), uint64(len(s)))
		b = append(b, s...)
	}
	e.buf = b
	if err := e.flush(); err != nil {
		return err
	}
	if err := e.zw.Close(); err != nil {
		e.err = err
		return err
	}
	return nil
}

// Wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

// appendUint appends field as a varint; zero is left out, as proto3 does.
func appendUint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return varint.Append(varint.Append(b, uint64(field)<<3|wireVarint), v)
}

// appendInt appends an int64 field (two's complement varint).
func appendInt(b []byte, field int, v int64) []byte { return appendUint(b, field, uint64(v)) }

// appendBytes appends a length-delimited field, even when empty.
func appendBytes(b []byte, field int, s []byte) []byte {
	b = varint.Append(varint.Append(b, uint64(field)<<3|wireBytes), uint64(len(s)))
	return append(b, s...)
}

// appendPacked appends a packed repeated varint field, nothing when
// empty; an int64 is its two's complement, as appendInt writes it.
func appendPacked[T uint64 | int64](b []byte, field int, vs []T) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += varint.Len(uint64(v))
	}
	b = varint.Append(varint.Append(b, uint64(field)<<3|wireBytes), uint64(n))
	for _, v := range vs {
		b = varint.Append(b, uint64(v))
	}
	return b
}
