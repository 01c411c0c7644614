#!/usr/bin/env bash
# Whole-process comparison of examples/xraydump with llvm-xray-14 on a real
# ~10 MB FDR log, side by side in one run: fdr-dump, fdr-dump -verify and
# convert --output-format=yaml --symbolize=false. Each command runs RUNS
# times (default 5), interleaved, output to /dev/null; the median wall
# wall time and CPU time (user + system) are reported with the ratios.
# Outputs are checked to be identical first.
#
# usage: bench/xrayfdr/compare.sh [LOG]
#   LOG defaults to ../shared/fixtures/xray/fdr_big.xray beside the checkout
#   (10.6 MB, 1.3 M records, written by the LLVM 14 runtime). Never commit
#   big logs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
log=${1:-$root/../shared/fixtures/xray/fdr_big.xray}
runs=${RUNS:-5}
llvm=${LLVM_XRAY:-llvm-xray-14}
[ -f "$log" ] || { echo "no log at $log" >&2; exit 1; }
command -v "$llvm" >/dev/null || { echo "$llvm not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/xraydump" ./examples/xraydump)
ours=$tmp/xraydump

# identical outputs first
"$llvm" fdr-dump "$log" >"$tmp/a"; "$ours" "$log" >"$tmp/b"; cmp -s "$tmp/a" "$tmp/b" || { echo "fdr-dump outputs differ" >&2; exit 1; }
"$llvm" fdr-dump -verify "$log" >"$tmp/a"; "$ours" -verify "$log" >"$tmp/b"; cmp -s "$tmp/a" "$tmp/b" || { echo "-verify outputs differ" >&2; exit 1; }
"$llvm" convert --output-format=yaml --symbolize=false "$log" >"$tmp/a"; "$ours" -yaml "$log" >"$tmp/b"; cmp -s "$tmp/a" "$tmp/b" || { echo "YAML outputs differ" >&2; exit 1; }
yamlsize=$(wc -c <"$tmp/a")
rm -f "$tmp/a" "$tmp/b"

# "wall cpu" seconds of one run of "$@" (cpu = user + system, all threads),
# output discarded
one() {
	local TIMEFORMAT='%R %U %S' t
	t=$({ time "$@" >/dev/null 2>/dev/null; } 2>&1)
	echo "$t" | awk '{printf "%s %.3f\n", $1, $2 + $3}'
}
median() { sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'; }

declare -A wall cpu
names=(llvm-dump ours-dump llvm-verify ours-verify llvm-yaml ours-yaml)
run() { # name command...
	local n=$1 r
	shift
	r=$(one "$@")
	wall[$n]+="${r% *} "
	cpu[$n]+="${r#* } "
}
for ((i = 0; i < runs; i++)); do
	run llvm-dump "$llvm" fdr-dump "$log"
	run ours-dump "$ours" "$log"
	run llvm-verify "$llvm" fdr-dump -verify "$log"
	run ours-verify "$ours" -verify "$log"
	run llvm-yaml "$llvm" convert --output-format=yaml --symbolize=false "$log"
	run ours-yaml "$ours" -yaml "$log"
done
declare -A mw mc
for n in "${names[@]}"; do
	mw[$n]=$(echo ${wall[$n]} | tr ' ' '\n' | median)
	mc[$n]=$(echo ${cpu[$n]} | tr ' ' '\n' | median)
done
size=$(wc -c <"$log")
echo "log: $log ($size bytes; YAML output $yamlsize bytes)"
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs"
printf "%-8s %22s %22s %15s\n" "" "llvm-xray-14" "xraydump" "ratio"
printf "%-8s %11s %10s %11s %10s %7s %7s\n" command wall cpu wall cpu wall cpu
for c in dump verify yaml; do
	lw=${mw[llvm-$c]} lc=${mc[llvm-$c]} ow=${mw[ours-$c]} oc=${mc[ours-$c]}
	printf "%-8s %10ss %9ss %10ss %9ss %6.1fx %6.1fx\n" "$c" "$lw" "$lc" "$ow" "$oc" \
		"$(echo "$lw / $ow" | bc -l)" "$(echo "$lc / $oc" | bc -l)"
done
