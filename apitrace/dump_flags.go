package apitrace

import "regexp"

// NameFlags is what apitrace infers about a call from its function name
// alone (lib/trace/trace_parser_flags.cpp): whether it ends a frame, is
// verbose (hidden by apitrace dump without -v), draws, and so on. The
// dumper, the call-set frequencies (--calls=frame) and the info summary
// depend on it.
type NameFlags uint32

// The bits keep apitrace's values (CALL_FLAG_*) so that they can be
// compared with its sources.
const (
	// NameNoSideEffects marks queries that do not change state (only the
	// colour of the name in coloured dumps depends on it).
	NameNoSideEffects NameFlags = 1 << 2
	// NameRender marks calls that draw into the bound render targets
	// (--calls=*/draw).
	NameRender NameFlags = 1 << 3
	// NameSwapRenderTarget marks calls that change the render target
	// (--calls=*/fbo).
	NameSwapRenderTarget NameFlags = 1 << 4
	// NameEndFrame marks the calls that end a frame: the dump prints an
	// empty line after them and info counts them as frames.
	NameEndFrame NameFlags = 1 << 5
	// NameVerbose marks the calls apitrace dump hides unless -v is given.
	NameVerbose NameFlags = 1 << 7
	// NameMarker, NameMarkerPush and NameMarkerPop mark debug markers and
	// groups.
	NameMarker     NameFlags = 1 << 8
	NameMarkerPush NameFlags = 1 << 9
	NameMarkerPop  NameFlags = 1 << 10

	nameSwapBuffers = NameEndFrame | NameSwapRenderTarget
)

// nameFlagGroups is apitrace 11.1's table of function names with their
// flags, grouped by flags. It was read out of Debian's 11.1 binary
// (/usr/bin/apitrace, 421 entries), which differs from the source on
// master (eglSetDamageRegionKHR, the CheckFormatSupport rule).
var nameFlagGroups = []struct {
	flags NameFlags
	names []string
}{
	{NameNoSideEffects, []string{
		"eglSetDamageRegionKHR", "glAreProgramsResidentNV", "glAreTexturesResident",
		"glAreTexturesResidentEXT", "glBufferRegionEnabled", "glDebugMessageControl",
		"glDebugMessageControlARB", "glDebugMessageEnableAMD",
		"glGetActiveAtomicCounterBufferiv", "glGetActiveAttrib", "glGetActiveAttribARB",
		"glGetActiveSubroutineName", "glGetActiveSubroutineUniformName",
		"glGetActiveSubroutineUniformiv", "glGetActiveUniform", "glGetActiveUniformARB",
		"glGetActiveUniformBlockName", "glGetActiveUniformBlockiv",
		"glGetActiveUniformName", "glGetActiveUniformsiv", "glGetActiveVaryingNV",
		"glGetArrayObjectfvATI", "glGetArrayObjectivATI", "glGetAttachedObjectsARB",
		"glGetAttachedShaders", "glGetBooleanIndexedvEXT", "glGetBooleani_v",
		"glGetBooleanv", "glGetBufferParameteri64v", "glGetBufferParameteriv",
		"glGetBufferParameterivARB", "glGetBufferParameterui64vNV", "glGetBufferPointerv",
		"glGetBufferPointervARB", "glGetBufferSubData", "glGetBufferSubDataARB",
		"glGetClipPlane", "glGetColorTable", "glGetColorTableEXT",
		"glGetColorTableParameterfv", "glGetColorTableParameterfvEXT",
		"glGetColorTableParameterfvSGI", "glGetColorTableParameteriv",
		"glGetColorTableParameterivEXT", "glGetColorTableParameterivSGI",
		"glGetColorTableSGI", "glGetCombinerInputParameterfvNV",
		"glGetCombinerInputParameterivNV", "glGetCombinerOutputParameterfvNV",
		"glGetCombinerOutputParameterivNV", "glGetCombinerStageParameterfvNV",
		"glGetConvolutionFilterEXT", "glGetConvolutionParameterfv",
		"glGetConvolutionParameterfvEXT", "glGetConvolutionParameteriv",
		"glGetConvolutionParameterivEXT", "glGetDetailTexFuncSGIS",
		"glGetDoubleIndexedvEXT", "glGetDoublei_v", "glGetDoublev", "glGetError",
		"glGetFenceivNV", "glGetFinalCombinerInputParameterfvNV",
		"glGetFinalCombinerInputParameterivNV", "glGetFogFuncSGIS", "glGetFragDataIndex",
		"glGetFragmentLightfvSGIX", "glGetFragmentLightivSGIX",
		"glGetFragmentMaterialfvSGIX", "glGetFragmentMaterialivSGIX",
		"glGetFramebufferAttachmentParameteriv",
		"glGetFramebufferAttachmentParameterivEXT", "glGetFramebufferParameteriv",
		"glGetFramebufferParameterivEXT", "glGetGraphicsResetStatusARB", "glGetHandleARB",
		"glGetHistogramEXT", "glGetHistogramParameterfv", "glGetHistogramParameterfvEXT",
		"glGetHistogramParameteriv", "glGetHistogramParameterivEXT",
		"glGetImageTransformParameterfvHP", "glGetImageTransformParameterivHP",
		"glGetInfoLogARB", "glGetInstrumentsSGIX", "glGetInternalformati64v",
		"glGetInternalformativ", "glGetInvariantBooleanvEXT", "glGetInvariantFloatvEXT",
		"glGetInvariantIntegervEXT", "glGetLightfv", "glGetLightiv",
		"glGetListParameterfvSGIX", "glGetListParameterivSGIX",
		"glGetLocalConstantBooleanvEXT", "glGetLocalConstantFloatvEXT",
		"glGetLocalConstantIntegervEXT", "glGetMapAttribParameterfvNV",
		"glGetMapAttribParameterivNV", "glGetMapControlPointsNV", "glGetMapParameterfvNV",
		"glGetMapParameterivNV", "glGetMapdv", "glGetMapfv", "glGetMapiv",
		"glGetMaterialfv", "glGetMaterialiv", "glGetMinmaxEXT", "glGetMinmaxParameterfv",
		"glGetMinmaxParameterfvEXT", "glGetMinmaxParameteriv", "glGetMinmaxParameterivEXT",
		"glGetMultiTexEnvfvEXT", "glGetMultiTexEnvivEXT", "glGetMultiTexGendvEXT",
		"glGetMultiTexGenfvEXT", "glGetMultiTexGenivEXT",
		"glGetMultiTexLevelParameterfvEXT", "glGetMultiTexLevelParameterivEXT",
		"glGetMultiTexParameterIivEXT", "glGetMultiTexParameterIuivEXT",
		"glGetMultiTexParameterfvEXT", "glGetMultiTexParameterivEXT", "glGetMultisamplefv",
		"glGetMultisamplefvNV", "glGetNamedBufferParameterivEXT",
		"glGetNamedBufferParameterui64vNV", "glGetNamedBufferPointervEXT",
		"glGetNamedBufferSubDataEXT", "glGetNamedFramebufferAttachmentParameterivEXT",
		"glGetNamedFramebufferParameterivEXT", "glGetNamedProgramLocalParameterIivEXT",
		"glGetNamedProgramLocalParameterIuivEXT", "glGetNamedProgramLocalParameterdvEXT",
		"glGetNamedProgramLocalParameterfvEXT", "glGetNamedProgramStringEXT",
		"glGetNamedProgramivEXT", "glGetNamedRenderbufferParameterivEXT",
		"glGetNamedStringARB", "glGetNamedStringivARB", "glGetObjectBufferfvATI",
		"glGetObjectBufferivATI", "glGetObjectLabel", "glGetObjectParameterfvARB",
		"glGetObjectParameterivAPPLE", "glGetObjectParameterivARB", "glGetObjectPtrLabel",
		"glGetOcclusionQueryivNV", "glGetOcclusionQueryuivNV",
		"glGetPerfMonitorCounterDataAMD", "glGetPerfMonitorCounterInfoAMD",
		"glGetPerfMonitorCounterStringAMD", "glGetPerfMonitorCountersAMD",
		"glGetPerfMonitorGroupStringAMD", "glGetPerfMonitorGroupsAMD",
		"glGetPixelTexGenParameterfvSGIS", "glGetPixelTexGenParameterivSGIS",
		"glGetPointerIndexedvEXT", "glGetPointerv", "glGetPointervEXT",
		"glGetProgramBinary", "glGetProgramEnvParameterIivNV",
		"glGetProgramEnvParameterIuivNV", "glGetProgramEnvParameterdvARB",
		"glGetProgramEnvParameterfvARB", "glGetProgramInfoLog", "glGetProgramInterfaceiv",
		"glGetProgramLocalParameterIivNV", "glGetProgramLocalParameterIuivNV",
		"glGetProgramLocalParameterdvARB", "glGetProgramLocalParameterfvARB",
		"glGetProgramNamedParameterdvNV", "glGetProgramNamedParameterfvNV",
		"glGetProgramParameterdvNV", "glGetProgramParameterfvNV",
		"glGetProgramPipelineInfoLog", "glGetProgramPipelineiv",
		"glGetProgramResourceIndex", "glGetProgramResourceLocation",
		"glGetProgramResourceLocationIndex", "glGetProgramResourceName",
		"glGetProgramResourceiv", "glGetProgramStageiv", "glGetProgramStringARB",
		"glGetProgramStringNV", "glGetProgramSubroutineParameteruivNV", "glGetProgramiv",
		"glGetProgramivARB", "glGetProgramivNV", "glGetQueryIndexediv", "glGetQueryiv",
		"glGetQueryivARB", "glGetRenderbufferParameteriv",
		"glGetRenderbufferParameterivEXT", "glGetSamplerParameterIiv",
		"glGetSamplerParameterIuiv", "glGetSamplerParameterfv", "glGetSamplerParameteriv",
		"glGetSeparableFilterEXT", "glGetShaderInfoLog", "glGetShaderPrecisionFormat",
		"glGetShaderSource", "glGetShaderSourceARB", "glGetShaderiv",
		"glGetSharpenTexFuncSGIS", "glGetSynciv", "glGetTexBumpParameterfvATI",
		"glGetTexBumpParameterivATI", "glGetTexEnvfv", "glGetTexEnviv",
		"glGetTexFilterFuncSGIS", "glGetTexGendv", "glGetTexGenfv", "glGetTexGeniv",
		"glGetTrackMatrixivNV", "glGetTransformFeedbackVarying",
		"glGetTransformFeedbackVaryingEXT", "glGetTransformFeedbackVaryingNV",
		"glGetUniformIndices", "glGetUniformSubroutineuiv", "glGetUniformdv",
		"glGetUniformfv", "glGetUniformfvARB", "glGetUniformi64vNV", "glGetUniformiv",
		"glGetUniformivARB", "glGetUniformui64vNV", "glGetUniformuiv",
		"glGetUniformuivEXT", "glGetVariantArrayObjectfvATI",
		"glGetVariantArrayObjectivATI", "glGetVariantBooleanvEXT", "glGetVariantFloatvEXT",
		"glGetVariantIntegervEXT", "glGetVariantPointervEXT",
		"glGetVertexArrayIntegeri_vEXT", "glGetVertexArrayIntegervEXT",
		"glGetVertexArrayPointeri_vEXT", "glGetVertexArrayPointervEXT",
		"glGetVideoCaptureStreamdvNV", "glGetVideoCaptureStreamfvNV",
		"glGetVideoCaptureStreamivNV", "glGetVideoCaptureivNV", "glGetVideoi64vNV",
		"glGetVideoivNV", "glGetVideoui64vNV", "glGetVideouivNV", "glGetnMapdvARB",
		"glGetnMapfvARB", "glGetnMapivARB", "glGetnUniformdvARB", "glGetnUniformfvARB",
		"glGetnUniformivARB", "glGetnUniformuivARB", "glObjectLabel", "glObjectLabelKHR",
		"glObjectPtrLabel", "glObjectPtrLabelKHR",
	}},
	{NameRender, []string{
		"IDirect3DDevice2::DrawIndexedPrimitive", "IDirect3DDevice2::DrawPrimitive",
		"IDirect3DDevice3::DrawIndexedPrimitive",
		"IDirect3DDevice3::DrawIndexedPrimitiveStrided",
		"IDirect3DDevice3::DrawIndexedPrimitiveVB", "IDirect3DDevice3::DrawPrimitive",
		"IDirect3DDevice3::DrawPrimitiveStrided", "IDirect3DDevice3::DrawPrimitiveVB",
		"IDirect3DDevice7::Clear", "IDirect3DDevice7::DrawIndexedPrimitive",
		"IDirect3DDevice7::DrawIndexedPrimitiveStrided",
		"IDirect3DDevice7::DrawIndexedPrimitiveVB", "IDirect3DDevice7::DrawPrimitive",
		"IDirect3DDevice7::DrawPrimitiveStrided", "IDirect3DDevice7::DrawPrimitiveVB",
		"IDirect3DDevice8::Clear", "IDirect3DDevice8::DrawIndexedPrimitive",
		"IDirect3DDevice8::DrawIndexedPrimitiveUP", "IDirect3DDevice8::DrawPrimitive",
		"IDirect3DDevice8::DrawPrimitiveUP", "IDirect3DDevice8::DrawRectPatch",
		"IDirect3DDevice8::DrawTriPatch", "IDirect3DDevice9::Clear",
		"IDirect3DDevice9::DrawIndexedPrimitive",
		"IDirect3DDevice9::DrawIndexedPrimitiveUP", "IDirect3DDevice9::DrawPrimitive",
		"IDirect3DDevice9::DrawPrimitiveUP", "IDirect3DDevice9::DrawRectPatch",
		"IDirect3DDevice9::DrawTriPatch", "IDirect3DDevice9Ex::Clear",
		"IDirect3DDevice9Ex::DrawIndexedPrimitive",
		"IDirect3DDevice9Ex::DrawIndexedPrimitiveUP", "IDirect3DDevice9Ex::DrawPrimitive",
		"IDirect3DDevice9Ex::DrawPrimitiveUP", "IDirect3DDevice9Ex::DrawRectPatch",
		"IDirect3DDevice9Ex::DrawTriPatch", "IDirect3DViewport2::Clear",
		"IDirect3DViewport3::Clear", "IDirect3DViewport3::Clear2",
		"IDirect3DViewport::Clear",
	}},
	{NameSwapRenderTarget, []string{
		"IDirect3DDevice8::SetRenderTarget", "IDirect3DDevice9::SetRenderTarget",
		"IDirect3DDevice9Ex::SetRenderTarget",
	}},
	{NameEndFrame, []string{
		"CGLFlushDrawable", "IDirect3DDevice9::GetRenderTargetData",
		"IDirect3DDevice9Ex::GetRenderTargetData", "glFrameTerminatorGREMEDY",
	}},
	{nameSwapBuffers, []string{
		"IDirect3DDevice8::Present", "IDirect3DDevice9::Present",
		"IDirect3DDevice9Ex::Present", "IDirect3DDevice9Ex::PresentEx",
		"IDirect3DSwapChain9::Present", "IDirect3DSwapChain9Ex::Present", "eglSwapBuffers",
		"eglSwapBuffersWithDamageEXT", "eglSwapBuffersWithDamageKHR", "glXSwapBuffers",
		"glXSwapBuffersMscOML", "wglSwapBuffers", "wglSwapLayerBuffers",
		"wglSwapMultipleBuffers",
	}},
	{NameVerbose, []string{
		"eglGetConfigAttrib", "glXGetFBConfigAttrib", "glXGetFBConfigAttribSGIX",
		"wglGetPixelFormatAttribivARB", "wglGetPixelFormatAttribivEXT",
	}},
	{NameNoSideEffects | NameVerbose, []string{
		"CGLGetCurrentContext",
		"ID3D11VideoProcessorEnumerator::CheckVideoProcessorFormat",
		"IDirect3D8::CheckDeviceFormat", "IDirect3D8::EnumAdapterModes",
		"IDirect3D8::GetAdapterModeCount", "IDirect3D8::GetDeviceCaps",
		"IDirect3D9::CheckDeviceFormat", "IDirect3D9::EnumAdapterModes",
		"IDirect3D9::GetAdapterModeCount", "IDirect3D9::GetDeviceCaps",
		"IDirect3D9Ex::CheckDeviceFormat", "IDirect3D9Ex::EnumAdapterModes",
		"IDirect3D9Ex::GetAdapterModeCount", "IDirect3D9Ex::GetDeviceCaps",
		"IDirect3DDevice8::GetDeviceCaps", "IDirect3DDevice9::GetDeviceCaps",
		"IDirect3DDevice9Ex::GetDeviceCaps", "eglGetProcAddress", "eglQueryString",
		"glGetString", "glGetStringi", "glIsAsyncMarkerSGIX", "glIsBuffer",
		"glIsBufferARB", "glIsBufferResidentNV", "glIsEnabled", "glIsEnabledIndexedEXT",
		"glIsEnabledi", "glIsFenceAPPLE", "glIsFenceNV", "glIsFramebuffer",
		"glIsFramebufferEXT", "glIsList", "glIsNameAMD", "glIsNamedBufferResidentNV",
		"glIsNamedStringARB", "glIsObjectBufferATI", "glIsOcclusionQueryNV", "glIsProgram",
		"glIsProgramARB", "glIsProgramNV", "glIsProgramPipeline", "glIsQuery",
		"glIsQueryARB", "glIsRenderbuffer", "glIsRenderbufferEXT", "glIsSampler",
		"glIsShader", "glIsSync", "glIsTexture", "glIsTextureEXT", "glIsTransformFeedback",
		"glIsTransformFeedbackNV", "glIsVariantEnabledEXT", "glIsVertexArray",
		"glIsVertexArrayAPPLE", "glIsVertexAttribEnabledAPPLE", "glXGetClientString",
		"glXGetConfig", "glXGetCurrentContext", "glXGetCurrentDisplay",
		"glXGetCurrentDisplayEXT", "glXGetCurrentDrawable", "glXGetCurrentReadDrawable",
		"glXGetCurrentReadDrawableSGI", "glXGetProcAddress", "glXGetProcAddressARB",
		"glXIsDirect", "glXQueryExtension", "glXQueryExtensionsString", "glXQueryVersion",
		"wglDescribePixelFormat", "wglGetCurrentContext", "wglGetCurrentDC",
		"wglGetDefaultProcAddress", "wglGetExtensionsStringARB",
		"wglGetExtensionsStringEXT", "wglGetPixelFormat", "wglGetProcAddress",
	}},
	{NameMarker, []string{
		"D3DPERF_SetMarker", "ID3DUserDefinedAnnotation::SetMarker",
		"glStringMarkerGREMEDY",
	}},
	{NameNoSideEffects | NameMarker, []string{
		"glDebugMessageInsert", "glDebugMessageInsertAMD", "glDebugMessageInsertARB",
		"glDebugMessageInsertKHR", "glInsertEventMarkerEXT",
	}},
	{NameMarker | NameMarkerPush, []string{
		"D3DPERF_BeginEvent", "ID3DUserDefinedAnnotation::BeginEvent", "glPushDebugGroup",
		"glPushDebugGroupKHR", "glPushGroupMarkerEXT",
	}},
	{NameMarker | NameMarkerPop, []string{
		"D3DPERF_EndEvent", "ID3DUserDefinedAnnotation::EndEvent", "glPopDebugGroup",
		"glPopDebugGroupKHR", "glPopGroupMarkerEXT",
	}},
}

var nameFlagTable = func() map[string]NameFlags {
	m := make(map[string]NameFlags, 421)
	for _, g := range nameFlagGroups {
		for _, n := range g.names {
			m[n] = g.flags
		}
	}
	return m
}()

// The rules apitrace checks before its table, for names starting with
// 'g' and 'I'; they match the whole name (std::regex_match), so each is
// anchored at both ends.
var (
	nameDrawRe     = regexp.MustCompile(`^gl([A-Z][a-z]+)*Draw(Range|Mesh)?(Arrays|Elements)([A-Z][a-zA-Z]*)?$`)
	nameMiscDrawRe = regexp.MustCompile(`^gl(CallLists?|Clear|End|DrawPixels|DrawTransformFeedback([A-Z][a-zA-Z]*)?|BlitFramebuffer|Rect[dfis]v?|EvalMesh[0-9]+)[0-9A-Z]*$`)
	nameFBORe      = regexp.MustCompile(`^glBindFramebuffer[0-9A-Z]*$`)
	nameGetRe      = regexp.MustCompile(`^gl(GetFloat|GetInteger|GetVertexAttrib|GetTex(ture)?(Level)?Parameter)\w+$`)
	namePresentRe  = regexp.MustCompile(`^IDXGI(Decode)?SwapChain\w*::Present\w*$`)
	nameD3DDrawRe  = regexp.MustCompile(`^ID3D1(0Device|1DeviceContext)\d*::(Draw\w*|ExecuteCommandList)$`)
	nameD3DSRTRe   = regexp.MustCompile(`^ID3D1(0Device|1DeviceContext)\d*::OMSetRenderTargets\w*$`)
	nameD3DCheckRe = regexp.MustCompile(`^ID3D1[01]Device\d*::(CheckFormatSupport|CheckMultisampleQualityLevels)$`)
)

// LookupNameFlags returns the flags apitrace 11.1 gives every call of the
// function name: of the name up to its first NUL, as apitrace keeps names
// as C strings. It runs regular expressions, so callers cache the answer
// per signature.
func LookupNameFlags(name string) NameFlags {
	name = cstr(name)
	if name == "" {
		return 0
	}
	switch name[0] {
	case 'g':
		if nameDrawRe.MatchString(name) || nameMiscDrawRe.MatchString(name) {
			return NameRender
		}
		if nameFBORe.MatchString(name) {
			return NameSwapRenderTarget
		}
		if nameGetRe.MatchString(name) {
			return NameNoSideEffects
		}
	case 'I':
		switch {
		case nameD3DDrawRe.MatchString(name):
			return NameRender
		case nameD3DSRTRe.MatchString(name):
			return NameSwapRenderTarget
		case namePresentRe.MatchString(name):
			return NameEndFrame
		case nameD3DCheckRe.MatchString(name):
			return NameNoSideEffects | NameVerbose
		}
	}
	return nameFlagTable[name]
}
