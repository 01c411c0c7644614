package apitrace

import (
	"bytes"
	"regexp"
	"testing"
)

// handCalls builds calls like those of the real traces; the expected text
// of each is the line apitrace 11.1 printed for it (fixture dumps
// es2_info, incomplete-call, glxinfo-brief, tri).
func handCalls() (calls []Call, want string) {
	egl := &EnumSig{Values: []EnumValue{{"EGL_FALSE", 0}, {"EGL_TRUE", 1}}}
	viewport := &FunctionSig{Name: "glViewport", ArgNames: []string{"x", "y", "width", "height"}}
	calls = append(calls, Call{No: 8, Sig: viewport, Flags: FlagFake, Args: []Value{Uint(0), Uint(0), Uint(400), Uint(300)}})
	want += "8 glViewport(x = 0, y = 0, width = 400, height = 300) // fake\n"

	initialize := &FunctionSig{Name: "eglInitialize", ArgNames: []string{"dpy", "major", "minor"}}
	calls = append(calls, Call{No: 1, Sig: initialize, Args: []Value{Pointer(0x5565facc49e0),
		Array(Uint(1)), Array(Uint(5))},
		Ret: Enum(egl, 1)})
	want += "1 eglInitialize(dpy = 0x5565facc49e0, major = &1, minor = &5) = EGL_TRUE\n"

	surface := &FunctionSig{Name: "eglCreateWindowSurface", ArgNames: []string{"dpy", "config", "win", "attrib_list"}}
	calls = append(calls, Call{No: 6, Sig: surface, Args: []Value{Pointer(0x5565facc49e0), Pointer(0x5565fad5c720),
		Pointer(0x200002), Array()}, Ret: Pointer(0x5565faf4e100)})
	want += "6 eglCreateWindowSurface(dpy = 0x5565facc49e0, config = 0x5565fad5c720, win = 0x200002, attrib_list = {}) = 0x5565faf4e100\n"

	pname := &EnumSig{Values: []EnumValue{{"GL_RED_BITS", 0x0D52}}}
	getIntegerv := &FunctionSig{Name: "glGetIntegerv", ArgNames: []string{"pname", "params"}}
	calls = append(calls, Call{No: 7, Sig: getIntegerv, Args: []Value{Enum(pname, 0x0D52), {}}, Incomplete: true})
	want += "7 glGetIntegerv(pname = GL_RED_BITS, params = ?) // incomplete\n"

	visual := &StructSig{Name: "XVisualInfo", Members: []string{"visual", "visualid", "screen", "depth", "c_class",
		"red_mask", "green_mask", "blue_mask", "colormap_size", "bits_per_rgb"}}
	getVisual := &FunctionSig{Name: "glXGetVisualFromFBConfig", ArgNames: []string{"dpy", "config"}}
	calls = append(calls, Call{No: 2, Sig: getVisual, Args: []Value{Pointer(0xa7d2a0), Pointer(0xa9c480)},
		Ret: Array(Struct(visual,
			Pointer(0xa88178), Uint(154), Uint(0), Uint(24), Uint(4), Uint(16711680), Uint(65280), Uint(255), Uint(256), Uint(8)))})
	want += "2 glXGetVisualFromFBConfig(dpy = 0xa7d2a0, config = 0xa9c480) = &{visual = 0xa88178, visualid = 154, screen = 0, depth = 24, c_class = 4, red_mask = 16711680, green_mask = 65280, blue_mask = 255, colormap_size = 256, bits_per_rgb = 8}\n"

	ortho := &FunctionSig{Name: "glOrtho", ArgNames: []string{"left", "right", "bottom", "top", "zNear", "zFar"}}
	calls = append(calls, Call{No: 15, Sig: ortho, Args: []Value{Float64(-1), Float64(1), Float64(-1), Float64(1), Float64(-0.5), Float64(1000)}})
	want += "15 glOrtho(left = -1, right = 1, bottom = -1, top = 1, zNear = -0.5, zFar = 1000)\n"

	color := &FunctionSig{Name: "glClearColor", ArgNames: []string{"red", "green", "blue", "alpha"}}
	calls = append(calls, Call{No: 10, Sig: color, Args: []Value{Float32(0.3), Float32(0.1), Float32(0.3), Float32(0)}})
	want += "10 glClearColor(red = 0.3, green = 0.1, blue = 0.3, alpha = 0)\n"

	// glGetError() = GL_NO_ERROR is verbose and hidden; another error is not.
	glenum := &EnumSig{Values: []EnumValue{{"GL_NO_ERROR", 0}, {"GL_INVALID_ENUM", 0x0500}}}
	getError := &FunctionSig{Name: "glGetError"}
	calls = append(calls, Call{No: 20, Sig: getError, Ret: Enum(glenum, 0)})
	calls = append(calls, Call{No: 21, Sig: getError, Ret: Enum(glenum, 0x0500)})
	want += "21 glGetError() = GL_INVALID_ENUM\n"

	// Verbose by name.
	getString := &FunctionSig{Name: "glGetString", ArgNames: []string{"name"}}
	calls = append(calls, Call{No: 22, Sig: getString, Args: []Value{Uint(0x1F00)}, Ret: String([]byte("Mesa"))})

	swap := &FunctionSig{Name: "glXSwapBuffers", ArgNames: []string{"dpy", "drawable"}}
	calls = append(calls, Call{No: 30, Sig: swap, Args: []Value{Pointer(0xfc52b0), Uint(44040194)}})
	want += "30 glXSwapBuffers(dpy = 0xfc52b0, drawable = 44040194)\n\n"
	return calls, want
}

func TestDumperHandCalls(t *testing.T) {
	calls, want := handCalls()
	var out bytes.Buffer
	d := NewDumper(&out, DumpOptions{})
	d.Header(&Header{Properties: []Property{{"z", "1"}, {"process.name", "/usr/bin/es2_info.x86_64-linux-gnu"}, {"z", "2"}}})
	for i := range calls {
		d.Call(&calls[i])
	}
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	want = "// process.name = \"/usr/bin/es2_info.x86_64-linux-gnu\"\n// z = \"2\"\n" + want
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// -v --grep: the verbose calls come back, the property lines go.
	out.Reset()
	d = NewDumper(&out, DumpOptions{Verbose: true, Grep: regexp.MustCompile("^glGet(Error|String)")})
	d.Header(&Header{Properties: []Property{{"process.name", "x"}}})
	for i := range calls {
		d.Call(&calls[i])
	}
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	want = "20 glGetError() = GL_NO_ERROR\n21 glGetError() = GL_INVALID_ENUM\n22 glGetString(name = 7936) = \"Mesa\"\n"
	if got := out.String(); got != want {
		t.Errorf("verbose grep: got\n%s\nwant\n%s", got, want)
	}
}

func TestDumperValueKinds(t *testing.T) {
	// Kinds the Linux tracers never write; the expected text follows the
	// rules of apitrace's trace_dump.cpp.
	guid := &StructSig{Name: "GUID", Members: []string{"Data1", "Data2", "Data3", "Data4"}}
	inner := &StructSig{Name: "inner", Members: []string{"a", "b"}}
	outer := &StructSig{Name: "outer", Members: []string{"x", "", "y"}}
	mask := &BitmaskSig{Flags: []BitmaskFlag{{"GL_MAP_READ_BIT", 1}, {"GL_MAP_WRITE_BIT", 2}}}
	data4 := make([]Value, 8)
	for i := range data4 {
		data4[i] = Uint(uint64(0x01 + 0x22*i))
	}
	f := &FunctionSig{Name: "f", ArgNames: []string{"a"}}
	call := Call{No: 1, Thread: 26, Sig: f, Args: []Value{
		Struct(guid, Uint(0x01234567), Uint(0x89ab), Uint(0xcdef), Array(data4...)),
		Struct(outer, Uint(1), Struct(inner, Uint(2), Uint(3)), Uint(4)),
		Bitmask(mask, 7),
		Repr(String([]byte("human")), Blob([]byte("machine"))),
		WString(Uint('w'), Uint(0xe9)),
		Scalar(KindSInt, 1<<63),
		Blob(make([]byte, 600000)),
		Null(), Bool(true), Bool(false),
	}}
	// IID_IUnknown, {00000000-0000-0000-C000-000000000046}, has a name.
	unknown := make([]Value, 8)
	for i := range unknown {
		unknown[i] = Uint(0)
	}
	unknown[0], unknown[7] = Uint(0xc0), Uint(0x46)
	call.Args = append(call.Args, Struct(guid, Uint(0), Uint(0), Uint(0), Array(unknown...)))
	var out bytes.Buffer
	d := NewDumper(&out, DumpOptions{ThreadIDs: true, NoCallNos: true, NoArgNames: true, NoMultiline: true})
	d.Call(&call)
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `@1a f(uuid(01234567-89ab-cdef-0123-456789abcdef), {x = 1, a = 2, b = 3, y = 4}, GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | 0x4, "human", L"w\551", -9223372036854775808, blob(600000), NULL, true, false, IID_IUnknown)` + "\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
