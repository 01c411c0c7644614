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
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
command -v apitrace >/dev/null || { echo "apitrace is not installed (apt-get install apitrace)"; exit 1; }
[ -f "$trace" ] || { echo "no trace at $trace"; exit 1; }

trace=$(realpath "$trace")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/apitracedump" ./examples/apitracedump)
# Run in a scratch directory: --blobs writes files into the current one.
mkdir "$tmp/run" && cd "$tmp/run"

apitrace dump --color=never "$@" "$trace" > "$tmp/want.txt"
"$tmp/apitracedump" --color=never "$@" "$trace" > "$tmp/got.txt"
if ! cmp -s "$tmp/want.txt" "$tmp/got.txt"; then
  echo "outputs differ:"; diff "$tmp/want.txt" "$tmp/got.txt" | head -20; exit 1
fi
echo "identical output: $(wc -c < "$tmp/want.txt") bytes, $(wc -l < "$tmp/want.txt") lines"

# One run: prints "wall cpu" seconds (cpu = user + sys, less sensitive to
# other load on the machine than wall time).
run() {
  local f; f=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$f" "$@" > /dev/null
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$f"; rm -f "$f"
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

: > "$tmp/ours"; : > "$tmp/theirs"
for _ in $(seq "$rounds"); do
  run apitrace dump --color=never "$@" "$trace" >> "$tmp/theirs"
  run "$tmp/apitracedump" --color=never "$@" "$trace" >> "$tmp/ours"
done
tw=$(cut -d' ' -f1 "$tmp/theirs" | median); tc=$(cut -d' ' -f2 "$tmp/theirs" | median)
ow=$(cut -d' ' -f1 "$tmp/ours" | median); oc=$(cut -d' ' -f2 "$tmp/ours" | median)
echo "apitrace dump --color=never: median wall ${tw}s, cpu ${tc}s over $rounds runs"
echo "apitracedump (Go):           median wall ${ow}s, cpu ${oc}s over $rounds runs"
echo "speed-up: wall $(echo "$tw / $ow" | bc -l | xargs printf %.2f)x, cpu $(echo "$tc / $oc" | bc -l | xargs printf %.2f)x  ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%F))"
