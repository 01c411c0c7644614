#!/bin/sh
# Rebuilds the analyses test data: the test programs, their logs, and the
# goldens llvm-xray-14 prints for every command line of flags.txt.
# Needs clang++-14 and llvm-xray-14 (Debian llvm-14, clang-14).
#   ./make.sh            everything
# Goldens are written only where llvm-xray-14 succeeds (exit 0, no
# "Error processing record" on stderr): cases.txt lists them.
set -eu
cd "$(dirname "$0")"
CXX=${CXX:-clang++-14}
XRAY=${XRAY:-llvm-xray-14}
FLAGS="-fxray-instrument -fxray-instruction-threshold=1 -pthread"
$CXX -O1 $FLAGS src/prog.cpp -o prog
$CXX -O0 -g $FLAGS src/prog.cpp -o prog_g

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# record BIN NAME ARGS...: one log of BIN run with ARGS, as NAME.xray
record() {
	bin=$1 name=$2
	shift 2
	rm -f "$tmp"/x-*
	mode=xray-fdr
	[ $# -ge 3 ] && mode=$3
	XRAY_OPTIONS="patch_premain=true xray_mode=$mode xray_logfile_base=$tmp/x-" \
	XRAY_FDR_OPTIONS="buffer_size=4096 func_duration_threshold_us=0" \
	XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" \
		"./$bin" "$@" >/dev/null 2>&1
	mv "$tmp"/x-* "$name.xray"
}
record prog st 0 50               # one thread
record prog mt 3 30               # four threads: llvm-xray's account often fails
record prog_g g 0 12              # DWARF locations
record prog basic 2 8 xray-basic  # basic mode, three threads
# llvm-xray's YAML trace form (it reads only version 1 headers)
for log in st mt; do
	$XRAY convert --output-format=yaml $log.xray | sed 's/^  version: *[0-9]*$/  version:         1/' >$log.yaml
done

rm -rf golden && mkdir golden
: >cases.txt
n=0
for log in st mt g basic st.yaml mt.yaml; do
	bin=prog
	[ $log = g ] && bin=prog_g
	file=$log.xray
	case $log in *.yaml) file=$log ;; esac
	while read -r line; do
		n=$((n + 1))
		out=golden/$log.$n.txt
		# shellcheck disable=SC2086
		if $XRAY $line --instr_map=$bin $file >"$out" 2>"$tmp/err" &&
			! grep -q "Error processing record" "$tmp/err"; then
			echo "$log $bin $out $line" >>cases.txt
		else
			rm -f "$out"
		fi
	done <flags.txt
done
# the shared fixtures, named by their YAML maps
F=../../../../../shared/fixtures/xray
if [ -d $F ]; then
	for log in basic_simple fdr_simple fdr_threads fdr_deep fdr_typed synthetic-v1 synthetic-v5; do
		map=""
		[ -f $F/$log.instrmap.yaml ] && map="--instr_map=$F/$log.instrmap.yaml"
		while read -r line; do
			n=$((n + 1))
			out=golden/$log.$n.txt
			# shellcheck disable=SC2086
			if $XRAY $line $map $F/$log.xray >"$out" 2>"$tmp/err" &&
				! grep -q "Error processing record" "$tmp/err"; then
				echo "fixture:$log ${map:+$log.instrmap.yaml} $out $line" >>cases.txt
			else
				rm -f "$out"
			fi
		done <flags.txt
	done
fi
gzip -n9 -f mt.yaml # the test reads it gzip'ed
wc -l cases.txt
# large goldens: gzip'ed (gzip -n), or only their SHA-256 past 2 MB
for f in golden/*.txt; do
	size=$(wc -c <"$f")
	if [ "$size" -gt 2000000 ]; then
		sha256sum <"$f" | cut -d' ' -f1 >"$f.sha256"
		rm "$f"
	elif [ "$size" -gt 32768 ]; then
		gzip -n9 "$f"
	fi
done
