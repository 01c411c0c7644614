#!/usr/bin/env bash
# Regenerates the dump goldens in this directory with the real apitrace
# (Debian bookworm's apitrace 11.1: apt-get install apitrace). Every *.txt
# here is apitrace's own output; nothing is produced by our code.
#
#   FIXTURES=/path/to/shared/fixtures/apitrace bash gen.sh
#
# It copies a few small real traces from the shared fixtures, makes
# esc.trace (es2_info.trace with a string holding every byte 0x01-0xff, then
# a NUL and more text, and three properties, via `apitrace sed`), and runs
# `apitrace dump --color=never` with each option set listed in cases.txt.
set -euo pipefail
cd "$(dirname "$0")"
FIXTURES=${FIXTURES:-$(git rev-parse --show-toplevel)/../shared/fixtures/apitrace}

for t in es2_info glxinfo-brief-backtrace incomplete-call tri tri.trim glxsimple zlib-no-eof; do
  install -m 0644 "$FIXTURES/$t.trace" "$t.trace"
done

# Every byte but NUL, then a NUL that ends the printed string.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  printf 'esc:'
  for i in $(seq 1 255); do printf "\\$(printf %03o "$i")"; done
  printf '\000after-nul'
} > "$tmp/esc.bin"
apitrace sed -e "s#Mesa Project#@file($tmp/esc.bin)#" \
  --property="z.prop=tab	quote\" back\\ nl
cr$(printf '\r')é" --property=a.first=1 \
  -o esc.trace es2_info.trace >/dev/null

# synth.trace: the value kinds Linux tracers never write, written by the
# program apitrace/testdata/dump/synth of commit c48792e with that commit's
# Writer; only apitrace's dump of it is a golden. Today's Writer refuses
# several of its values (code units wider than a wchar_t and NUL, a zero
# bitmask flag after others, a frame line above 2^31-1, an offset above
# 2^63-1: what apitrace misreads, which the trace is there to show), so
# the program runs at that commit, from a worktree of its own.
synth=$tmp/synth-src
git worktree add -q --detach "$synth" c48792e
(cd "$synth" && go run ./apitrace/testdata/dump/synth "$OLDPWD/synth.trace")
git worktree remove --force "$synth"

# damaged.trace: incomplete-call.trace's stream (one call pending at the
# end) followed by the unknown event byte 5 (apitrace issue #493), gzip'ed.
# apitrace stops there with an error and does not print the pending call.
apitrace repack --zlib incomplete-call.trace "$tmp/ic.trace" >/dev/null
{ gzip -dc < "$tmp/ic.trace"; printf '\005'; } | gzip -9n > damaged.trace

# cases.txt: golden file, then the arguments given to apitrace dump
# (--color=never comes first, so a later --color=always wins). No argument
# holds a space.
cat > cases.txt <<'CASES'
es2_info.txt es2_info.trace
es2_info.v.txt -v es2_info.trace
es2_info.tid-nocallno-noargnames.txt --thread-ids=yes --call-nos=no --arg-names=no es2_info.trace
es2_info.grep.txt --grep=^egl(Make|Create) es2_info.trace
esc.v.txt -v esc.trace
esc.v-nomultiline.txt -v --multiline=no esc.trace
esc.grep-v.txt -v --grep=Query esc.trace
glxinfo-brief-backtrace.txt glxinfo-brief-backtrace.trace
glxinfo-brief-backtrace.nomultiline.txt --multiline=no glxinfo-brief-backtrace.trace
glxinfo-brief-backtrace.calls.txt --calls=0-4,20-30/3,*/frame --thread-ids glxinfo-brief-backtrace.trace
glxinfo-brief-backtrace.v-calls.txt -v --calls=500-,7 --calls=2 glxinfo-brief-backtrace.trace
incomplete-call.txt incomplete-call.trace
incomplete-call.v.txt -v --arg-names=no incomplete-call.trace
tri.txt tri.trace
tri.frames.txt --calls=frame tri.trace
tri.trim.v.txt -v tri.trim.trace
glxsimple.txt glxsimple.trace
glxsimple.v-tid.txt -v --thread-ids glxsimple.trace
glxsimple.draw.txt --calls=*/draw glxsimple.trace
glxsimple.blobs.txt --blobs glxsimple.trace
zlib-no-eof.txt zlib-no-eof.trace
multi.txt --call-nos=no tri.trim.trace incomplete-call.trace es2_info.trace
glxinfo-brief-backtrace.color.txt --color=always --calls=0-40 glxinfo-brief-backtrace.trace
esc.color-v.txt --color=always -v esc.trace
incomplete-call.color.txt --color=always incomplete-call.trace
synth.txt synth.trace
synth.v-tid-nomultiline.txt -v --thread-ids --multiline=no synth.trace
synth.blobs.txt -v --blobs synth.trace
synth.color-v.txt --color=always -v synth.trace
synth.noargnames.txt --arg-names=no --call-nos=no --calls=0-4/2,7- synth.trace
synth.calls-stop.txt --thread-ids --calls=0-10 synth.trace
damaged.txt damaged.trace
synth.color-nomultiline.txt --color=always --multiline=no --thread-ids -v synth.trace
esc.color-nomultiline.txt --color=always --multiline=no -v esc.trace
CASES

while read -r golden args; do
  if [[ $args == *--blobs* ]]; then
    # Blob files go to the working directory; keep their checksums.
    d=$(mktemp -d)
    abs=$(sed "s|\([^ ]*\.trace\)|$PWD/\1|g" <<<"$args")
    # shellcheck disable=SC2086
    (cd "$d" && apitrace dump --color=never $abs) > "$golden"
    (cd "$d" && sha256sum blob_*.bin) > "${golden%.txt}.sha256"
    rm -rf "$d"
  else
    # shellcheck disable=SC2086
    apitrace dump --color=never $args > "$golden" || true # damaged.trace exits 1
  fi
done < cases.txt

# apitrace 13.0's output for every case, when APITRACE13 names its binary
# (built from its sources with ../shared/tools/build-apitrace.sh): kept as
# NAME.v13.txt (and NAME.v13.sha256) only where it differs from 11.1's, so
# that a case without one is a check that 13.0 prints what 11.1 prints.
if [ -n "${APITRACE13:-}" ]; then
  rm -f ./*.v13.txt ./*.v13.sha256
  while read -r golden args; do
    d=$(mktemp -d)
    abs=$(sed "s|\([^ ]*\.trace\)|$PWD/\1|g" <<<"$args")
    # shellcheck disable=SC2086
    (cd "$d" && "$APITRACE13" dump --color=never $abs 2>/dev/null) > "$d/out.txt" || true
    if ! cmp -s "$d/out.txt" "$golden"; then
      cp "$d/out.txt" "${golden%.txt}.v13.txt"
      if [[ $args == *--blobs* ]]; then
        (cd "$d" && sha256sum blob_*.bin) > "${golden%.txt}.v13.sha256"
      fi
    fi
    rm -rf "$d"
  done < cases.txt
fi

# apitrace info's JSON for each committed trace (with its frames).
for t in *.trace; do
  [ "$t" = damaged.trace ] && continue # apitrace info exits 1 on it
  apitrace info --dump-frames "$t" > "${t%.trace}.info.json"
done
