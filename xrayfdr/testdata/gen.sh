#!/bin/sh
# Regenerates the golden outputs next to every *.xray here (and in
# invalid/) with the real llvm-xray-14. Goldens come only from the tool.
#   NAME.fdr-dump.txt         llvm-xray-14 fdr-dump NAME.xray          (stdout)
#   NAME.fdr-dump-verify.txt  llvm-xray-14 fdr-dump -verify NAME.xray  (stdout)
#   NAME.yaml                 llvm-xray-14 convert --output-format=yaml --symbolize=false NAME.xray
#   NAME.err                  exit codes and stderr of the three, when one failed
# Large outputs are gzipped (gzip -n) when over 100 KB.
set -u
cd "$(dirname "$0")"
X=${LLVM_XRAY:-llvm-xray-14}
for f in *.xray invalid/*.xray; do
	n=${f%.xray}
	rm -f "$n".fdr-dump.txt* "$n".fdr-dump-verify.txt* "$n".yaml* "$n".err "$n".errors.txt
	err=""
	"$X" fdr-dump "$f" >"$n.fdr-dump.txt" 2>/tmp/xray-gen.err; rc=$?
	[ $rc -ne 0 ] && err="$err--- fdr-dump: exit $rc
$(cat /tmp/xray-gen.err)
"
	"$X" fdr-dump -verify "$f" >"$n.fdr-dump-verify.txt" 2>/tmp/xray-gen.err; rc=$?
	[ $rc -ne 0 ] && err="$err--- fdr-dump -verify: exit $rc
$(cat /tmp/xray-gen.err)
"
	"$X" convert --output-format=yaml --symbolize=false "$f" >"$n.yaml" 2>/tmp/xray-gen.err; rc=$?
	[ $rc -ne 0 ] && err="$err--- convert: exit $rc
$(cat /tmp/xray-gen.err)
"
	[ -n "$err" ] && printf '%s' "$err" >"$n.err"
	for o in "$n.fdr-dump.txt" "$n.fdr-dump-verify.txt" "$n.yaml"; do
		if [ "$(wc -c <"$o")" -gt 102400 ]; then gzip -n -f "$o"; fi
	done
done
rm -f /tmp/xray-gen.err
