#!/usr/bin/env bash
# Whole-process comparison of examples/xraydump with llvm-xray-14 on the
# analyses (issue #16): account, stack --all-stacks --stack-format=flame,
# graph, on two ~10 MB FDR logs:
#   prog:  recorded here by xrayfdr/analysis/testdata/analyses/src/prog.cpp, one
#          thread in one buffer, so that llvm-xray-14 succeeds (it
#          misorders the buffers of a thread written in the same second);
#          outputs checked identical
#   big:   ../shared/fixtures/xray/fdr_big.xray (four threads) with its YAML
#          map; llvm-xray-14's account and stack fail on it part way
#          ("empty stack"): their time is the time to the failure, and
#          stack runs with --keep-going
# Each command runs RUNS times (default 5), interleaved, output to
# /dev/null; medians of wall and CPU (user + system) time and the ratios.
# Nothing is committed: binary and log are made in a temporary directory.
#
# usage: bench/xrayfdr/analyses.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-5}
llvm=${LLVM_XRAY:-llvm-xray-14}
major=${llvm##*-} # xraydump --llvm=14 or 19 prints as that llvm-xray
cxx=${CXX:-clang++-14}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/xraydump" ./examples/xraydump)
ours=$tmp/xraydump

"$cxx" -O1 -fxray-instrument -fxray-instruction-threshold=1 -pthread \
	"$root/xrayfdr/analysis/testdata/analyses/src/prog.cpp" -o "$tmp/prog"
mkdir "$tmp/log"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=$tmp/log/x-" \
	XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=16777216 buffer_max=1" \
	"$tmp/prog" 0 150000 >/dev/null 2>&1
plog=$(ls "$tmp"/log/x-*)
pmap=$tmp/prog
blog=$root/../shared/fixtures/xray/fdr_big.xray
bmap=$root/../shared/fixtures/xray/fdr_big.instrmap.yaml

cmds=("account" "stack --all-stacks --stack-format=flame" "graph")
for c in "${cmds[@]}"; do
	# shellcheck disable=SC2086
	"$llvm" $c --instr_map="$pmap" "$plog" >"$tmp/a"
	# shellcheck disable=SC2086
	"$ours" $c --llvm="$major" --instr_map="$pmap" "$plog" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { echo "$c: outputs differ" >&2; diff "$tmp/a" "$tmp/b" | head >&2; exit 1; }
done
rm -f "$tmp/a" "$tmp/b"

. "$root/bench/timing.sh"
declare -A wall cpu
run() {
	local n=$1 r
	shift
	r=$(one "$@" || true)
	wall[$n]+="${r% *} "
	cpu[$n]+="${r#* } "
}
names=()
for ((i = 0; i < runs; i++)); do
	for c in "${cmds[@]}"; do
		k=${c%% *}
		# shellcheck disable=SC2086
		run "llvm prog $k" "$llvm" $c --instr_map="$pmap" "$plog"
		# shellcheck disable=SC2086
		run "ours prog $k" "$ours" $c --llvm="$major" --instr_map="$pmap" "$plog"
		[ -f "$blog" ] || continue
		[ "$k" = stack ] && c="$c --keep-going"
		# shellcheck disable=SC2086
		run "llvm big $k" "$llvm" $c --instr_map="$bmap" "$blog"
		# shellcheck disable=SC2086
		run "ours big $k" "$ours" $c --llvm="$major" --instr_map="$bmap" "$blog"
	done
done
echo "prog log: $(wc -c <"$plog") bytes, one thread; big log: $(wc -c <"$blog" 2>/dev/null || echo absent) bytes, four threads"
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs"
printf "%-13s %22s %22s %15s\n" "" "llvm-xray-14" "xraydump" "ratio"
printf "%-13s %11s %10s %11s %10s %7s %7s\n" command wall cpu wall cpu wall cpu
for log in prog big; do
	for c in account stack graph; do
		[ -n "${wall[llvm $log $c]:-}" ] || continue
		lw=$(echo ${wall[llvm $log $c]} | tr ' ' '\n' | median)
		lc=$(echo ${cpu[llvm $log $c]} | tr ' ' '\n' | median)
		ow=$(echo ${wall[ours $log $c]} | tr ' ' '\n' | median)
		oc=$(echo ${cpu[ours $log $c]} | tr ' ' '\n' | median)
		printf "%-13s %10ss %9ss %10ss %9ss %6.1fx %6.1fx\n" "$log $c" "$lw" "$lc" "$ow" "$oc" \
			"$(echo "$lw / $ow" | bc -l)" "$(echo "$lc / $oc" | bc -l)"
	done
done
