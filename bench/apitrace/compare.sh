#!/bin/sh
# compare.sh: whole-process parse of an apitrace trace, ours against
# `apitrace info`, interleaved run by run so the machine's load falls on
# both, plus the snappy decoders side by side.
#
#   bench/apitrace/compare.sh [TRACE] [RUNS]
#
# TRACE defaults to ../shared/fixtures/apitrace/glxgears-20s.trace (778,015
# calls; a benchmark input, never committed). Needs the apitrace package
# (Debian: apitrace) and GNU time (/usr/bin/time).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
trace=${1:-$here/../../../shared/fixtures/apitrace/glxgears-20s.trace}
runs=${2:-11}
bin=$(mktemp -d)/parse
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here/.." && go build -o "$bin" ./apitrace/parse)
"$bin" "$trace"
apitrace info "$trace" | grep -E '"(FramesCount|CallsCount)"' || true
for i in $(seq "$runs"); do
	/usr/bin/time -f "ours %e %U %S" "$bin" "$trace" 2>&1 >/dev/null | tail -1
	/usr/bin/time -f "info %e %U %S" apitrace info "$trace" 2>&1 >/dev/null | tail -1
done | awk '
	{ wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " ($3 + $4) }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((n + 1) / 2)]
	}
	END {
		ow = median(wall["ours"]); iw = median(wall["info"])
		oc = median(cpu["ours"]); ic = median(cpu["info"])
		printf "median wall: ours %.3fs, apitrace info %.3fs, ratio %.2fx\n", ow, iw, iw / ow
		printf "median user+sys: ours %.3fs, apitrace info %.3fs, ratio %.2fx\n", oc, ic, ic / oc
	}'
(cd "$here/.." && go test -run XXX -bench DecodeSideBySide -benchtime 50x ./apitrace/ | grep Benchmark)
