#!/usr/bin/env bash
# Whole-process comparison of our dump (examples/apitracedump) with
# `apitrace dump --color=never` on the same trace, side by side:
# first checks that both print the same bytes, then times ROUNDS
# alternating runs of each (output to /dev/null) and prints the medians
# and the ratio.
#
#   bash bench/apitrace/dump-compare.sh [TRACE] [extra dump options...]
#
# TRACE defaults to ../shared/fixtures/apitrace/glxgears-20s.trace
# (778,015 calls, 29.5 MB of dump text); ROUNDS (env) defaults to 7.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
trace=${1:-$root/../shared/fixtures/apitrace/glxgears-20s.trace}
shift || true
rounds=${ROUNDS:-7}
command -v apitrace >/dev/null || { echo "apitrace is not installed (apt-get install apitrace)"; exit 1; }
[ -f "$trace" ] || { echo "no trace at $trace"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/apitracedump" ./examples/apitracedump)

apitrace dump --color=never "$@" "$trace" > "$tmp/want.txt"
"$tmp/apitracedump" --color=never "$@" "$trace" > "$tmp/got.txt"
if ! cmp -s "$tmp/want.txt" "$tmp/got.txt"; then
  echo "outputs differ:"; diff "$tmp/want.txt" "$tmp/got.txt" | head -20; exit 1
fi
echo "identical output: $(wc -c < "$tmp/want.txt") bytes, $(wc -l < "$tmp/want.txt") lines"

now() { date +%s.%N; }
run() { # prints the wall seconds of one run
  local t0 t1
  t0=$(now); "$@" > /dev/null; t1=$(now)
  echo "$t1 - $t0" | bc -l
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

: > "$tmp/ours"; : > "$tmp/theirs"
for _ in $(seq "$rounds"); do
  run apitrace dump --color=never "$@" "$trace" >> "$tmp/theirs"
  run "$tmp/apitracedump" --color=never "$@" "$trace" >> "$tmp/ours"
done
theirs=$(median < "$tmp/theirs")
ours=$(median < "$tmp/ours")
echo "apitrace dump --color=never: median ${theirs}s over $rounds runs ($(sort -n "$tmp/theirs" | head -1 | xargs printf %.3f)-$(sort -n "$tmp/theirs" | tail -1 | xargs printf %.3f))"
echo "apitracedump (Go):           median ${ours}s over $rounds runs ($(sort -n "$tmp/ours" | head -1 | xargs printf %.3f)-$(sort -n "$tmp/ours" | tail -1 | xargs printf %.3f))"
echo "speed-up: $(echo "$theirs / $ours" | bc -l | xargs printf %.2f)x  ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
