#!/usr/bin/env bash
# Whole-process comparison of examples/xraydump with llvm-xray-14 on
# instrumentation maps and names (issue #15):
#   extract --symbolize BIN       BIN: a generated 500-function C++ program
#   convert --output-format=yaml --symbolize --instr_map=BIN LOG
#                                 LOG: an FDR log of about 10 MB that BIN records
# Each command runs RUNS times (default 5), interleaved, output to
# /dev/null; medians of wall and CPU (user + system) time and the ratios
# are printed. Outputs are checked identical first. Nothing is committed:
# the program, binary and log are made in a temporary directory.
#
# usage: bench/xrayfdr/symbolize.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-5}
NS=36 # namespaces of 14 instrumented functions: 505 functions with main
llvm=${LLVM_XRAY:-llvm-xray-14}
cxx=${CXX:-clang++-14}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/xraydump" ./examples/xraydump)
ours=$tmp/xraydump

# 500 functions: free functions, templates, methods, operators, lambdas,
# in 50 namespaces
{
	echo '#include <cstdio>'
	echo '#include <cstdlib>'
	echo '#include <xray/xray_log_interface.h>'
	echo 'static volatile long sink;'
	for ((n = 0; n < NS; n++)); do
		echo "namespace ns$n {"
		echo "template <class T> struct Box$n { T v; Box$n(T v) : v(v) {} Box$n operator+(const Box$n &o) const { return {T(v + o.v)}; } T get() const { return v; } virtual ~Box$n() {} virtual T twice() const { return v * 2; } };"
		echo "template <class T> [[gnu::noinline]] T tf$n(T a, T b) { return a * b + $n; }"
		for ((k = 0; k < 4; k++)); do
			echo "[[gnu::noinline]] long f${n}_$k(long v) { sink += v; return v ^ $k; }"
		done
		echo "long run$n(long v) { Box$n<long> a{v}, b{2}; auto l = [v](long x) { return x + v; }; return (a + b).get() + a.twice() + tf$n<long>(v, 3) + long(tf$n<double>(1.5, 2.0)) + l(v) + f${n}_0(v) + f${n}_1(v) + f${n}_2(v) + f${n}_3(v); }"
		echo "}"
	done
	echo 'int main(int argc, char **argv) {'
	echo '  long iters = argc > 1 ? std::atol(argv[1]) : 1000;'
	echo '  if (__xray_log_init_mode("xray-fdr", "") != XRayLogInitStatus::XRAY_LOG_INITIALIZED) return 1;'
	echo '  long t = 0;'
	echo '  for (long i = 0; i < iters; i++) {'
	for ((n = 0; n < NS; n++)); do echo "    t += ns$n::run$n(i);"; done
	echo '  }'
	echo '  __xray_log_finalize(); __xray_log_flushLog();'
	echo '  std::printf("%ld\n", t);'
	echo '}'
} >"$tmp/gen.cpp"
"$cxx" -O0 -g -fxray-instrument -fxray-instruction-threshold=1 "$tmp/gen.cpp" -o "$tmp/gen"
mkdir "$tmp/log"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=$tmp/log/x-" \
	XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=65536 buffer_max=160" \
	"$tmp/gen" 3000 >/dev/null 2>&1
log=$(ls "$tmp"/log/x-*)
bin=$tmp/gen
nfunc=$("$ours" extract "$bin" | grep -c 'kind: function-enter' || true)

"$llvm" extract --symbolize "$bin" >"$tmp/a"; "$ours" extract --symbolize "$bin" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "extract outputs differ" >&2; diff "$tmp/a" "$tmp/b" | head >&2; exit 1; }
"$llvm" convert --output-format=yaml --symbolize --instr_map="$bin" "$log" >"$tmp/a"
"$ours" convert --output-format=yaml --symbolize --instr_map="$bin" "$log" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "convert outputs differ" >&2; diff "$tmp/a" "$tmp/b" | head >&2; exit 1; }
yamlsize=$(wc -c <"$tmp/a")
rm -f "$tmp/a" "$tmp/b"

. "$root/bench/timing.sh"
declare -A wall cpu
run() {
	local n=$1 r
	shift
	r=$(one "$@")
	wall[$n]+="${r% *} "
	cpu[$n]+="${r#* } "
}
for ((i = 0; i < runs; i++)); do
	run llvm-extract "$llvm" extract --symbolize "$bin"
	run ours-extract "$ours" extract --symbolize "$bin"
	run llvm-convert "$llvm" convert --output-format=yaml --symbolize --instr_map="$bin" "$log"
	run ours-convert "$ours" convert --output-format=yaml --symbolize --instr_map="$bin" "$log"
done
declare -A mw mc
for n in llvm-extract ours-extract llvm-convert ours-convert; do
	mw[$n]=$(echo ${wall[$n]} | tr ' ' '\n' | median)
	mc[$n]=$(echo ${cpu[$n]} | tr ' ' '\n' | median)
done
echo "binary: $nfunc instrumented functions, $(wc -c <"$bin") bytes (-O0 -g, PIE); log: $(wc -c <"$log") bytes, YAML output $yamlsize bytes"
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs"
printf "%-8s %22s %22s %15s\n" "" "llvm-xray-14" "xraydump" "ratio"
printf "%-8s %11s %10s %11s %10s %7s %7s\n" command wall cpu wall cpu wall cpu
for c in extract convert; do
	lw=${mw[llvm-$c]} lc=${mc[llvm-$c]} ow=${mw[ours-$c]} oc=${mc[ours-$c]}
	printf "%-8s %10ss %9ss %10ss %9ss %6.1fx %6.1fx\n" "$c" "$lw" "$lc" "$ow" "$oc" \
		"$(echo "$lw / $ow" | bc -l)" "$(echo "$lc / $oc" | bc -l)"
done
