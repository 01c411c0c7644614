// Typed-event sleds, which llvm-xray 14 cannot read (see make.sh).
static long total;

[[clang::xray_always_instrument]] void typed(long v) {
  static const char msg[] = "typed payload";
  __xray_typedevent(7, msg, sizeof msg - 1);
  total += v;
}

[[clang::xray_always_instrument]] void custom(long v) {
  static const char msg[] = "custom";
  __xray_customevent(msg, sizeof msg - 1);
  total += v;
}

int main() {
  for (int i = 0; i < 3; i++) {
    typed(i);
    custom(i);
  }
  return int(total & 1);
}
