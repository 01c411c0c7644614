#!/usr/bin/env bash
# compare.sh: every speed comparison of tracefmt against its peer, side by
# side, in one run. For each row it first checks that both sides print the
# same where they should, then alternates the two commands RUNS times
# (output to /dev/null) and reports the medians of wall and CPU time
# (user + system), or runs the in-process side-by-side benchmarks, and
# prints one table. Symbolization and the XRay analyses have their own
# scripts (bench/xrayfdr/symbolize.sh, analyses.sh); gotraceraw's
# in-process per-event comparison is bench/gotraceraw/compare.sh. PERFORMANCE.md holds its latest output.
#
#   bash bench/compare.sh [ROW...]
#
# Rows: gotext gowire goparsed gopprof tracecat apidump snappy zstdenc xrayread
# xraydump (default: all).
# Env: RUNS (default 5), WORK (scratch directory, default a temporary one),
# SHARED (default ../shared beside the checkout). Inputs: the large real
# fixtures in $SHARED/fixtures (glxgears-20s.trace, fdr_big.xray) and a Go
# trace recorded here by gotraceraw/largeprog; none is ever committed.
# Needs apitrace and llvm-xray-14; a row whose peer is
# missing prints why and is skipped.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$bench/.." && pwd)
shared=${SHARED:-$root/../shared}
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d /tmp/tracefmt-compare.XXXXXX)}
mkdir -p "$work"
export GOTOOLCHAIN=local GOFLAGS=
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(gotext gowire goparsed gopprof tracecat apidump snappy zstdenc xrayread xraydump)
table=$work/table.txt
: > "$table"

bin=$work/bin
mkdir -p "$bin"
(cd "$root" && go build -o "$bin/" ./examples/gotracetext ./examples/tracecat ./examples/apitracedump ./examples/apitracerepack ./examples/xraydump)

. "$bench/timing.sh"

# awkmedian: the median of a space-separated list, for the in-process rows.
awkmedian='
function median(s,   a, k, i, j, t) {
	k = split(s, a, " ")
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((k + 1) / 2)]
}'

# pair ROW PEERNAME -- PEER CMD... -- OURS CMD...: alternate, then add a row.
pair() {
	local row=$1 peer=$2
	shift 3
	local -a theirs=() ours=()
	while [ "$1" != "--" ]; do theirs+=("$1"); shift; done
	shift
	ours=("$@")
	: > "$work/t" ; : > "$work/o"
	for ((i = 0; i < runs; i++)); do
		one "${theirs[@]}" >> "$work/t" || { echo "failed: ${theirs[*]}" >&2; exit 1; }
		one "${ours[@]}" >> "$work/o" || { echo "failed: ${ours[*]}" >&2; exit 1; }
	done
	local tw tc ow oc
	tw=$(cut -d' ' -f1 "$work/t" | median); tc=$(cut -d' ' -f2 "$work/t" | median)
	ow=$(cut -d' ' -f1 "$work/o" | median); oc=$(cut -d' ' -f2 "$work/o" | median)
	awk -v r="$row" -v p="$peer" -v tw="$tw" -v tc="$tc" -v ow="$ow" -v oc="$oc" 'BEGIN {
		printf "| %s | %s | %.3f s / %.3f s | %.3f s / %.3f s | %.2fx | %.2fx |\n", r, p, tw, tc, ow, oc, tw / ow, tc / oc
	}' >> "$table"
}
skip() { echo "| $1 | — | skipped: $2 | | | |" >> "$table"; echo "skip $1: $2" >&2; }
same() { cmp -s "$1" "$2" || { echo "$3: outputs differ" >&2; diff "$1" "$2" | head -5 >&2; return 1; }; }

gotrace() { # the recorded Go trace and the peer converter, made once
	[ -s "$work/large.trace" ] || (cd "$bench" && go run ./gotraceraw/largeprog "$work/large.trace") >&2
	[ -x "$bin/peerconv" ] && return
	local goroot mod p f
	goroot=$(go env GOROOT)
	mod=$work/peerconv
	rm -rf "$mod"; mkdir -p "$mod"
	for p in raw tracev2 version; do
		mkdir -p "$mod/$p"
		for f in "$goroot/src/internal/trace/$p"/*.go; do
			case "$f" in *_test.go) continue ;; esac
			sed -e 's#"internal/trace/tracev2"#"peerbench/tracev2"#' \
				-e 's#"internal/trace/version"#"peerbench/version"#' "$f" > "$mod/$p/$(basename "$f")"
		done
	done
	sed '/^\/\/go:build ignore$/d' "$bench/gotraceraw/peerconv/main.go" > "$mod/main.go"
	printf 'module peerbench\n\ngo 1.23\n' > "$mod/go.mod"
	(cd "$mod" && go build -o "$bin/peerconv" .)
}

for row in "${rows[@]}"; do
	echo "== $row" >&2
	case $row in
	gotext)
		gotrace
		"$bin/peerconv" "$work/large.trace" > "$work/a"; "$bin/gotracetext" "$work/large.trace" > "$work/b"
		same "$work/a" "$work/b" gotext
		cp "$work/a" "$work/large.txt"
		pair "gotracetext wire → text, $(du -m "$work/large.trace" | cut -f1) MB trace" "Go internal/trace/raw converter" -- \
			"$bin/peerconv" "$work/large.trace" -- "$bin/gotracetext" "$work/large.trace" ;;
	gowire)
		gotrace
		[ -s "$work/large.txt" ] || "$bin/peerconv" "$work/large.trace" > "$work/large.txt"
		"$bin/gotracetext" -wire "$work/large.txt" > "$work/b"
		same "$work/large.trace" "$work/b" gowire
		"$bin/peerconv" -wire "$work/large.txt" > "$work/a"; "$bin/gotracetext" "$work/a" > "$work/c"
		same "$work/large.txt" "$work/c" gowire-peer
		pair "gotracetext -wire text → wire, same trace" "Go internal/trace/raw converter" -- \
			"$bin/peerconv" -wire "$work/large.txt" -- "$bin/gotracetext" -wire "$work/large.txt" ;;
	goparsed)
		# Go's own parser, through its command: the tool binary itself,
		# not the go command that finds it.
		gotrace
		gotool=$(go tool -n trace)
		cmp <("$gotool" -d=parsed "$work/large.trace") <("$bin/gotracetext" -parsed "$work/large.trace") ||
			{ echo "goparsed: outputs differ" >&2; exit 1; }
		pair "gotracetext -parsed, same trace" "go tool trace -d=parsed" -- \
			"$gotool" -d=parsed "$work/large.trace" -- "$bin/gotracetext" -parsed "$work/large.trace"
		theirs=$(/usr/bin/time -f %M "$gotool" -d=parsed "$work/large.trace" 2>&1 > /dev/null | tail -1)
		ours=$(/usr/bin/time -f %M "$bin/gotracetext" -parsed "$work/large.trace" 2>&1 > /dev/null | tail -1)
		awk -v t="$theirs" -v o="$ours" 'BEGIN {
			printf "| gotracetext -parsed, peak RSS | go tool trace -d=parsed | %.0f MB | %.0f MB | %.2fx less | |\n", t / 1024, o / 1024, t / o
		}' >> "$table" ;;
	tracecat|apidump)
		trace=$shared/fixtures/apitrace/glxgears-20s.trace
		if ! command -v apitrace > /dev/null; then skip "$row" "apitrace not installed"; continue; fi
		if [ ! -f "$trace" ]; then skip "$row" "no $trace"; continue; fi
		if [ "$row" = tracecat ]; then
			pair "tracecat parse of glxgears-20s (778k calls)" "apitrace info" -- \
				apitrace info "$trace" -- "$bin/tracecat" -format apitrace "$trace"
		else
			(cd "$work" && apitrace dump --color=never "$trace" > a && "$bin/apitracedump" --color=never "$trace" > b)
			same "$work/a" "$work/b" apidump
			pair "apitracedump of glxgears-20s" "apitrace dump --color=never" -- \
				apitrace dump --color=never "$trace" -- "$bin/apitracedump" --color=never "$trace"
		fi ;;
	snappy)
		# In-process, side by side in one binary: ours and github.com/golang/snappy.
		(cd "$bench" && go test -run '^$' -bench 'DecodeSideBySide|EncodeSideBySide' -benchtime 30x -count "$runs" ./apitrace/) > "$work/snappy.txt"
		awk "$awkmedian"'
		# Both side-by-side benchmarks alternate the two codecs on one locked
		# thread and time each by that thread CPU time.
		/^Benchmark(De|En)codeSideBySide/ {
			n = $1; sub(/-[0-9]+$/, "", n); split(n, p, "/")
			op = n ~ /Decode/ ? "decode " : "encode "
			for (i = 2; i < NF; i++) {
				if ($(i+1) == "ours-MB/s") v[op p[2], "ours"] = v[op p[2], "ours"] " " $i
				if ($(i+1) == "golang-MB/s") v[op p[2], "golang"] = v[op p[2], "golang"] " " $i
			}
			rows[op p[2]] = 1
		}
		END {
			for (r in rows) {
				o = median(v[r, "ours"]); g = median(v[r, "golang"])
				printf "| apitrace/snappy %s | github.com/golang/snappy | %.0f MB/s | %.0f MB/s | %.2fx | |\n", r, g, o, o / g
			}
		}' "$work/snappy.txt" | sort >> "$table" ;;
	zstdenc)
		# Encode speed, in-process, side by side in one binary: our Encoder
		# at level 3 and github.com/klauspost/compress/zstd at its default
		# level, frame by frame (2 MiB) on one locked thread.
		(cd "$bench" && go test -run '^$' -bench 'ZstdEncodeSideBySide' -benchtime 10x -count "$runs" ./apitrace/) > "$work/zstdenc.txt"
		awk "$awkmedian"'
		/^BenchmarkZstdEncodeSideBySide/ {
			n = $1; sub(/-[0-9]+$/, "", n); split(n, p, "/")
			for (i = 2; i < NF; i++) {
				if ($(i+1) == "ours-MB/s") v[p[2], "ours"] = v[p[2], "ours"] " " $i
				if ($(i+1) == "klauspost-MB/s") v[p[2], "k"] = v[p[2], "k"] " " $i
				if ($(i+1) == "size-ratio") sz[p[2]] = $i
			}
			rows[p[2]] = 1
		}
		END {
			for (r in rows) {
				o = median(v[r, "ours"]); g = median(v[r, "k"])
				printf "| apitrace/zstd encode -3 %s (size %.3fx theirs) | klauspost/compress/zstd default | %.0f MB/s | %.0f MB/s | %.2fx | |\n", r, sz[r], g, o, o / g
			}
		}' "$work/zstdenc.txt" | sort >> "$table"
		# Size: apitracerepack -z=LEVEL of each original against apitrace
		# master's repack at the same level (v13 fixtures); ratio is
		# master's size over ours (> 1: ours is smaller).
		for f in "$shared"/fixtures/apitrace/v13/*.zstd*.trace; do
			[ -f "$f" ] || { skip "$row size" "no master files in $shared/fixtures/apitrace/v13"; break; }
			b=$(basename "$f"); name=${b%%.zstd*}; level=${b#*.zstd}; level=${level%.trace}
			# its count of events on stderr is kept for a failure, which
			# set -e would otherwise end the script on without a word
			"$bin/apitracerepack" -z="$level" "$shared/fixtures/apitrace/$name.trace" "$work/z.trace" 2> "$work/repack.log" ||
				{ echo "zstdenc: apitracerepack -z=$level $name failed:" >&2; cat "$work/repack.log" >&2; exit 1; }
			awk -v r="seekable zstd -$level size, $name" -v t="$(stat -c %s "$f")" -v o="$(stat -c %s "$work/z.trace")" 'BEGIN {
				printf "| %s | apitrace master repack | %d B | %d B | %.3fx | |\n", r, t, o, t / o
			}' >> "$table"
		done ;;
	xrayread)
		log=$shared/fixtures/xray/fdr_big.xray
		if [ ! -f "$log" ]; then skip "$row" "no $log"; continue; fi
		# Each pass of the reader is followed by a plain 8-byte scan of the
		# same bytes: the scan's speed says what state the shared machine's
		# memory was in (it moves 1.5x from minute to minute here).
		(cd "$root" && go test -run '^$' -bench 'BytesReaderBesideScan/fdr_big' -benchtime 20x -count "$runs" ./xrayfdr/) > "$work/xray.txt"
		r=$(awk '/^Benchmark/ { for (i = 2; i < NF; i++) if ($(i+1) == "read-MB/s") print $i }' "$work/xray.txt" | median)
		s=$(awk '/^Benchmark/ { for (i = 2; i < NF; i++) if ($(i+1) == "scan-MB/s") print $i }' "$work/xray.txt" | median)
		awk -v r="$r" -v s="$s" 'BEGIN { printf "| xrayfdr reading fdr_big from memory | a word scan of it, pass by pass | %.0f MB/s | %.0f MB/s | %.2fx | |\n", s, r, r / s }' >> "$table" ;;
	xraydump)
		log=$shared/fixtures/xray/fdr_big.xray
		if ! command -v llvm-xray-14 > /dev/null; then skip "$row" "llvm-xray-14 not installed"; continue; fi
		if [ ! -f "$log" ]; then skip "$row" "no $log"; continue; fi
		# --llvm=14: the block and record order of llvm-xray-14, the peer
		llvm-xray-14 fdr-dump "$log" > "$work/a"; "$bin/xraydump" --llvm=14 "$log" > "$work/b"; same "$work/a" "$work/b" xraydump
		llvm-xray-14 fdr-dump -verify "$log" > "$work/a"; "$bin/xraydump" --llvm=14 -verify "$log" > "$work/b"; same "$work/a" "$work/b" xraydump-verify
		llvm-xray-14 convert --output-format=yaml --symbolize=false "$log" > "$work/a"; "$bin/xraydump" --llvm=14 -yaml "$log" > "$work/b"; same "$work/a" "$work/b" xraydump-yaml
		rm -f "$work/a" "$work/b"
		pair "xraydump of fdr_big (10 MB)" "llvm-xray-14 fdr-dump" -- llvm-xray-14 fdr-dump "$log" -- "$bin/xraydump" --llvm=14 "$log"
		pair "xraydump -verify" "llvm-xray-14 fdr-dump -verify" -- llvm-xray-14 fdr-dump -verify "$log" -- "$bin/xraydump" --llvm=14 -verify "$log"
		pair "xraydump -yaml" "llvm-xray-14 convert --output-format=yaml" -- \
			llvm-xray-14 convert --output-format=yaml --symbolize=false "$log" -- "$bin/xraydump" --llvm=14 -yaml "$log" ;;
	gopprof)
		# go tool trace -pprof=sched, through the tool binary itself (not
		# the go command that finds it), against tracecat -pprof; first
		# the same samples, as go tool pprof -traces prints them, sorted.
		gotrace
		gotool=$(go tool -n trace); pprof=$(go tool -n pprof)
		"$gotool" -pprof=sched "$work/large.trace" > "$work/a.pb.gz"
		"$bin/tracecat" -pprof "$work/b.pb.gz" -profile sched "$work/large.trace"
		for i in contentions delay; do
			for f in a b; do "$pprof" -traces -unit=ns -sample_index=$i "$work/$f.pb.gz" 2> /dev/null |
				awk 'BEGIN { RS = "-----------\\+-+\n" } NR > 1' | sort > "$work/$f.txt"; done
			same "$work/a.txt" "$work/b.txt" "gopprof $i"
		done
		pair "tracecat -pprof -profile sched, same trace" "go tool trace -pprof=sched" -- \
			"$gotool" -pprof=sched "$work/large.trace" -- "$bin/tracecat" -pprof /dev/null -profile sched "$work/large.trace"
		theirs=$(/usr/bin/time -f %M "$gotool" -pprof=sched "$work/large.trace" 2>&1 > /dev/null | tail -1)
		ours=$(/usr/bin/time -f %M "$bin/tracecat" -pprof /dev/null -profile sched "$work/large.trace" 2>&1 | tail -1)
		awk -v t="$theirs" -v o="$ours" 'BEGIN {
			printf "| tracecat -pprof -profile sched, peak RSS | go tool trace -pprof=sched | %.0f MB | %.0f MB | %.1fx less | |\n", t / 1024, o / 1024, t / o
		}' >> "$table" ;;
	*) echo "unknown row $row" >&2; exit 2 ;;
	esac
done

echo
echo "$(date -u +%F), $(nproc) cores, $(uname -m), $(go version | cut -d' ' -f3), load $(cut -d' ' -f1-3 /proc/loadavg); medians of $runs alternated runs"
echo
echo "| path | peer | peer: wall / cpu | ours: wall / cpu | wall ratio | cpu ratio |"
echo "| --- | --- | --- | --- | --- | --- |"
cat "$table"
