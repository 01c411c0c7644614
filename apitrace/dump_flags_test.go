package apitrace

import "testing"

func TestLookupNameFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		want NameFlags
	}{
		{"glXSwapBuffers", NameEndFrame | NameSwapRenderTarget},
		{"eglSwapBuffers", NameEndFrame | NameSwapRenderTarget},
		{"glFrameTerminatorGREMEDY", NameEndFrame},
		{"glGetString", NameNoSideEffects | NameVerbose},
		{"glIsEnabled", NameNoSideEffects | NameVerbose},
		{"glXGetFBConfigAttrib", NameVerbose},
		{"glGetError", NameNoSideEffects}, // verbose only when it returns 0
		{"glGetIntegerv", NameNoSideEffects},
		{"glGetTexLevelParameteriv", NameNoSideEffects},
		{"glDrawArrays", NameRender},
		{"glMultiDrawElementsIndirect", NameRender},
		{"glClear", NameRender},
		{"glCallList", NameRender},
		{"glBindFramebufferEXT", NameSwapRenderTarget},
		{"glEnable", 0},
		{"IDXGISwapChain1::Present1", NameEndFrame},
		{"ID3D11Device::CheckFormatSupport", NameNoSideEffects | NameVerbose},
		{"ID3D11DeviceContext::DrawIndexed", NameRender},
		{"IDirect3DDevice9::Present", NameEndFrame | NameSwapRenderTarget},
		{"eglSetDamageRegionKHR", NameNoSideEffects},
		{"", 0},
	} {
		if got := LookupNameFlags(tc.name); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
	verbose := 0
	for name := range nameFlagTable {
		if nameFlagTable[name]&NameVerbose != 0 {
			verbose++
		}
	}
	// apitrace 11.1 has 421 names in its table, 84 of them verbose.
	if len(nameFlagTable) != 421 || verbose != 84 {
		t.Errorf("table: %d names, %d verbose; want 421 and 84", len(nameFlagTable), verbose)
	}
}

// TestNameFlagsCString checks that a name's flags are those of the name up
// to its first NUL, as apitrace, which keeps names as C strings, gives
// them: apitrace info counted a trace's calls of "glXSwapBuffers\x00x" as
// frames, and ReadInfo did not.
func TestNameFlagsCString(t *testing.T) {
	for _, name := range []string{"glXSwapBuffers\x00x", "glXSwapBuffers\x00"} {
		if f, want := LookupNameFlags(name), LookupNameFlags("glXSwapBuffers"); f != want {
			t.Errorf("LookupNameFlags(%q) = %v, want %v", name, f, want)
		}
		if !(&FunctionSig{Name: name}).EndsFrame() {
			t.Errorf("%q does not end a frame", name)
		}
	}
	if f := LookupNameFlags("\x00glXSwapBuffers"); f != 0 {
		t.Errorf("a name starting with NUL has flags %v", f)
	}
}
