#!/bin/sh
# Builds the instrumented binaries here with clang++-14 and makes their
# goldens with the real llvm-xray-14. Goldens come only from the tool.
#   NAME.extract.yaml             llvm-xray-14 extract NAME
#   NAME.extract-symbolize.yaml   llvm-xray-14 extract --symbolize NAME
#   NAME.extract-no-demangle.yaml llvm-xray-14 extract --symbolize --no-demangle NAME
# NAME says how it is built: -O0/-O2, with -g or not, PIE or not, nosym
# for no symbol table (names from DWARF, or none); libx.so is a shared
# object; lib_*.o relocatable objects (AArch64 only as an object: no
# cross linker here).
#   prog_fdr.xray                 an FDR log prog_O0_g_pie recorded
#   prog_fdr.convert-symbolize.yaml  llvm-xray-14 convert --output-format=yaml
#                                 --symbolize --instr_map=prog_O0_g_pie prog_fdr.xray
# Only prog_O0_g_pie links the XRay runtime (it records the log); the
# others define the two entry points their event sleds call (stubs.cpp),
# which keeps them small. typed_O0 has typed-event sleds, which
# llvm-xray-14 refuses: its test patches them for the tool at test time.
# usage: make.sh [OUTDIR]   (default: this directory; the CI test builds
# fresh binaries into a temporary one)
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:-$src}
mkdir -p "$out"
cd "$out"
CXX=${CXX:-clang++-14}
X=${LLVM_XRAY:-llvm-xray-14}
XR="-fxray-instrument -fxray-instruction-threshold=1"
NORT="-fnoxray-link-deps $src/stubs.cpp"
$CXX $XR -O0 -g -fPIE -pie -DXRAY_FDR "$src/prog.cpp" -o prog_O0_g_pie
$CXX $XR -O0 -fno-pie -no-pie $NORT "$src/prog.cpp" -o prog_O0_nopie
$CXX $XR -O2 -fno-pie -no-pie $NORT "$src/prog.cpp" -o prog_O2_nopie
$CXX $XR -O2 -g -fPIE -pie $NORT "$src/prog.cpp" -o prog_O2_g_pie
$CXX $XR -O2 -g -fPIC -shared -fnoxray-link-deps "$src/lib.cpp" -o libx.so
$CXX $XR -O0 -g -fno-pie -no-pie $NORT "$src/prog.cpp" -o prog_O0_g_nosym
# no symbol table: names come from DWARF, or are addresses without -g
${OBJCOPY:-llvm-objcopy-14} --remove-section=.symtab --remove-section=.strtab prog_O0_g_nosym
${OBJCOPY:-llvm-objcopy-14} --remove-section=.symtab --remove-section=.strtab prog_O2_nopie prog_O2_nosym
$CXX $XR -O0 $NORT "$src/typed.cpp" -o typed_O0
$CXX $XR -O2 -c "$src/lib.cpp" -o lib_x86_64.o
$CXX $XR -O2 -c --target=aarch64-linux-gnu "$src/lib.cpp" -o lib_aarch64.o
for b in prog_O0_g_pie prog_O0_nopie prog_O2_nopie prog_O2_g_pie prog_O0_g_nosym prog_O2_nosym libx.so lib_x86_64.o lib_aarch64.o; do
	"$X" extract "$b" >"$b.extract.yaml"
	"$X" extract --symbolize "$b" >"$b.extract-symbolize.yaml"
	"$X" extract --symbolize --no-demangle "$b" >"$b.extract-no-demangle.yaml"
done
rm -rf log && mkdir log
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=log/x-" XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./prog_O0_g_pie 4 >/dev/null
mv log/x-* prog_fdr.xray
rmdir log
"$X" convert --output-format=yaml --symbolize --instr_map=prog_O0_g_pie prog_fdr.xray >prog_fdr.convert-symbolize.yaml
"$X" convert --output-format=yaml --instr_map=prog_O0_g_pie prog_fdr.xray >prog_fdr.convert-plain.yaml
"$X" convert --output-format=yaml --symbolize --no-demangle --instr_map=prog_O0_g_pie prog_fdr.xray >prog_fdr.convert-no-demangle.yaml
