#!/usr/bin/env bash
# Measures gotraceraw against Go's own internal/trace/raw side by side on a
# large trace: wire reader, text reader, text writer, wire writer.
#
#   bench/gotraceraw/compare.sh [TRACE] [BENCHTIME]
#
# Without TRACE it records one (about 4.8 million events, 25 MB) with
# largeprog into $WORK. Go's raw, tracev2 and version packages are copied
# from $(go env GOROOT) into a temporary module under $WORK at run time
# (never committed), with their imports rewritten, next to peer_test.go.
# Env: COUNT (rounds of all benchmarks, default 3), WORK (default a temp dir).
# Prints go test's output, then per benchmark and side the median and the
# minimum of the wall-clock and of the CPU time per event (all threads, GC
# included: steadier than wall-clock on a shared machine), and the ratios
# go/ours. Linux only (getrusage).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
export GOTOOLCHAIN=local GOFLAGS=
trace=${1:-}
benchtime=${2:-2s}
count=${COUNT:-3}
work=${WORK:-$(mktemp -d /tmp/gotraceraw-compare.XXXXXX)}
mkdir -p "$work"

if [ -z "$trace" ]; then
  trace=$work/large.trace
  if [ ! -s "$trace" ]; then
    echo "== recording $trace"
    (cd "$root/bench" && go run ./gotraceraw/largeprog "$trace")
  fi
fi
trace=$(cd "$(dirname "$trace")" && pwd)/$(basename "$trace")

goroot=$(go env GOROOT)
mod=$work/peerbench
rm -rf "$mod"
mkdir -p "$mod"
for p in raw tracev2 version; do
  mkdir -p "$mod/$p"
  for f in "$goroot/src/internal/trace/$p"/*.go; do
    case "$f" in *_test.go) continue ;; esac
    sed -e 's#"internal/trace/tracev2"#"peerbench/tracev2"#' \
        -e 's#"internal/trace/version"#"peerbench/version"#' "$f" > "$mod/$p/$(basename "$f")"
  done
done
sed '/^\/\/go:build ignore$/d' "$here/peer_test.go" > "$mod/peer_test.go"
cat > "$mod/go.mod" <<MOD
module peerbench

go 1.23

require github.com/tracefmt/tracefmt v0.0.0

replace github.com/tracefmt/tracefmt => $root
MOD
cp "$root/go.sum" "$mod/go.sum"

echo "== $(go version), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
out=$work/bench.txt
: > "$out"
(cd "$mod" && go test -c -o "$work/peerbench.test" .)
# COUNT rounds of every benchmark, so both sides see the same changes in
# the machine's load.
for ((i = 1; i <= count; i++)); do
  (cd "$mod" && GOTRACERAW_LARGE=$trace "$work/peerbench.test" -test.run XXX -test.bench . -test.benchmem -test.benchtime "$benchtime") | tee -a "$out"
done

echo "== per event over $count rounds: median (min) of go and ours, ratio go/ours of the medians (of the minimums)"
awk '
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  n = split(name, parts, "/"); base = parts[1]; side = parts[2]
  for (i = 2; i < NF; i++) if ($(i+1) == "ns/event" || $(i+1) == "cpu-ns/event") vals[base, side, $(i+1)] = vals[base, side, $(i+1)] " " $i
  bases[base] = 1
}
function least(s,   a, n, i, m) {
  n = split(s, a, " "); m = a[1]
  for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]
  return m
}
function median(s,   a, n, i, j, t) {
  n = split(s, a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return a[int((n + 1) / 2)]
}
END {
  for (b in bases) for (m = 1; m <= 2; m++) {
    metric = m == 1 ? "cpu-ns/event" : "ns/event"
    g = median(vals[b, "go", metric]); o = median(vals[b, "ours", metric])
    gm = least(vals[b, "go", metric]); om = least(vals[b, "ours", metric])
    printf "%-20s %-13s go %8.2f (%8.2f)  ours %7.2f (%7.2f)  ratio %6.2fx (%6.2fx)\n", b, metric, g, gm, o, om, g / o, gm / om
  }
}' "$out" | sort
