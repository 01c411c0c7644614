#!/usr/bin/env bash
# Whole-process comparison of examples/xraydump with llvm-xray-14 on a real
# ~10 MB FDR log, side by side in one run: fdr-dump, fdr-dump -verify and
# convert --output-format=yaml --symbolize=false. Each command runs RUNS
# times (default 5), interleaved, output to /dev/null; the median wall
# time is reported with the ratio. Outputs are checked to be identical
# first.
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

# seconds of one run of "$@", output discarded
one() {
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {printf "%.4f", a[int((NR+1)/2)]}'; }

declare -A t
names=(llvm-dump ours-dump llvm-verify ours-verify llvm-yaml ours-yaml)
for ((i = 0; i < runs; i++)); do
	t[llvm-dump]+="$(one "$llvm" fdr-dump "$log") "
	t[ours-dump]+="$(one "$ours" "$log") "
	t[llvm-verify]+="$(one "$llvm" fdr-dump -verify "$log") "
	t[ours-verify]+="$(one "$ours" -verify "$log") "
	t[llvm-yaml]+="$(one "$llvm" convert --output-format=yaml --symbolize=false "$log") "
	t[ours-yaml]+="$(one "$ours" -yaml "$log") "
done
declare -A m
for n in "${names[@]}"; do
	m[$n]=$(echo ${t[$n]} | tr ' ' '\n' | median)
done
size=$(wc -c <"$log")
echo "log: $log ($size bytes; YAML output $yamlsize bytes)"
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs, wall time"
printf "%-28s %10s %10s %8s\n" command llvm-xray-14 xraydump ratio
for c in dump verify yaml; do
	l=${m[llvm-$c]}; o=${m[ours-$c]}
	printf "%-28s %9ss %9ss %7.1fx\n" "$c" "$l" "$o" "$(echo "$l / $o" | bc -l)"
done
