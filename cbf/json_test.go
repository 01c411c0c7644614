package cbf

import (
	"encoding/json"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

func TestJSON(t *testing.T) {
	// Swift's testRepeatLimit builds exactly this JSON by hand (its at-limit
	// bytes, base64 without padding).
	in := `{"architecture":"test","backtrace":"Ahh/ihAAAQA"}`
	var b Backtrace
	if err := json.Unmarshal([]byte(in), &b); err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "backtrace", unhex(t, "02 18 7f 8a 10 00 01 00"), b.Backtrace)
	if b.ImageMap != nil {
		t.Errorf("image map %x", b.ImageMap)
	}
	rec, err := b.Frames()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "frames", "pc 0x7f; rep 1048577", framesText(rec.Frames))
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "marshal", in, string(out))

	// Padding, the URL-safe alphabet and an image map; Swift's JSONEncoder
	// escapes slashes.
	m := ImageMap{Platform: "linux", Word: Word64, Images: []Image{{Base: 0x400000, EndOfText: 0x500000, Path: "/usr/bin/x"}}}
	cif, err := AppendImageMap(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	b2 := Backtrace{Architecture: "x86_64", Backtrace: []byte{0xfb, 0xff, 0xfe}, ImageMap: cif}
	out, err = json.Marshal(b2)
	if err != nil {
		t.Fatal(err)
	}
	var back Backtrace
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "round trip", b2, back)
	for _, s := range []string{`{"architecture":"a","backtrace":"-__-"}`, `{"architecture":"a","backtrace":"+\/\/+"}`, `{"architecture":"a","backtrace":"+//+","imageMap":null}`} {
		var x Backtrace
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			t.Errorf("%s: %v", s, err)
		} else if string(x.Backtrace) != "\xfb\xff\xfe" {
			t.Errorf("%s: %x", s, x.Backtrace)
		}
	}
	im, err := back.Images()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "images", m, *im)
	for _, bad := range []string{`{"backtrace":""}`, `{"architecture":"a"}`, `{"architecture":"a","backtrace":"!!"}`} {
		var x Backtrace
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
