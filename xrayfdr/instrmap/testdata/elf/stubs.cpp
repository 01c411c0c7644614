// The XRay runtime entry points the event sleds call, for binaries built
// without the runtime (smaller; their maps are all the tests need).
extern "C" void __xray_CustomEvent() {}
extern "C" void __xray_TypedEvent() {}
