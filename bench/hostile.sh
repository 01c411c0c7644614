#!/bin/bash
# hostile.sh: peak RSS and CPU time of apitracedump beside `apitrace dump`
# on the hostile traces of apitrace/testdata/hostile (see its README), the
# two alternated RUNS times (default 5); medians. Needs apitrace.
#
#	bash bench/hostile.sh [OLD_APITRACEDUMP]
#
# With OLD_APITRACEDUMP (a binary built from an older commit), its figures
# are printed too, for a before/after comparison.
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/apitracedump" ./examples/apitracedump
old=${1:-}
# measure CMD...: "cpu_seconds peak_kb" of one run (GNU time's user+system
# and maximum resident set size), output discarded, exit status ignored.
measure() {
	/usr/bin/time -f '%U %S %M' -o "$bin/t" "$@" > /dev/null 2>&1 || true
	tail -1 "$bin/t" | awk '{printf "%.2f %d\n", $1 + $2, $3}'
}
med() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%s", m}'; }
printf '%s, %s cores, load %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %-18s %8s %10s\n' trace command "CPU s" "peak MB"
for f in apitrace/testdata/hostile/{array-1m,array-4m,array-over,string-64m,string-pending,string-cut}.trace; do
	declare -A cpu=() rss=()
	cmds=(ours peer)
	[ -n "$old" ] && cmds+=(before)
	for r in $(seq "$runs"); do
		for c in "${cmds[@]}"; do
			case $c in
			ours) read -r t m < <(measure "$bin/apitracedump" --color=never "$f") ;;
			peer) read -r t m < <(measure apitrace dump --color=never "$f") ;;
			before) read -r t m < <(measure "$old" --color=never "$f") ;;
			esac
			cpu[$c]+="$t"$'\n'
			rss[$c]+="$m"$'\n'
		done
	done
	for c in "${cmds[@]}"; do
		name=$c
		[ "$c" = peer ] && name="apitrace dump"
		[ "$c" = ours ] && name=apitracedump
		printf '%-22s %-18s %8s %10.1f\n' "$(basename "$f")" "$name" \
			"$(printf '%s' "${cpu[$c]}" | med)" "$(printf '%s' "${rss[$c]}" | med | awk '{print $1/1024}')"
	done
	unset cpu rss
done

# The writers on long strings (issue #25): peak RSS of apitracerepack and
# apitracefilter beside apitrace repack on a 250 MiB string and on two
# 200 MiB strings, made at run time by `gen.go big`; one run each.
go build -o "$bin/apitracerepack" ./examples/apitracerepack
go build -o "$bin/apitracefilter" ./examples/apitracefilter
(cd "$bin" && go run "$OLDPWD/apitrace/testdata/hostile/gen.go" big)
printf '\n%-48s %10s %10s\n' command "peak MB" "bound MB"
for c in "apitracerepack -s" "apitracerepack -gzip" "apitracerepack -z" apitracefilter "apitracefilter -calls 1" "apitrace repack"; do
	for f in string-250m string-2x200m; do
		case $f in string-250m) bound=439 ;; *) bound=364 ;; esac
		case $c in apitrace\ *) cmd=($c) ;; *) cmd=("$bin/${c%% *}" ${c#"${c%% *}"}) ;; esac
		read -r _ m < <(measure "${cmd[@]}" "$bin/$f.trace" "$bin/out.trace")
		printf '%-48s %10.1f %10s\n' "$c $f.trace" "$(awk -v m="$m" 'BEGIN{print m/1024}')" "$bound"
	done
done
