#!/usr/bin/env bash
# Records go126-lost-status.trace: recordprog run by the Go 1.26 toolchain
# with allocation events and generations of 2 ms, again and again until
# Go's own parser (`go tool trace -d=parsed`) rejects a recording, which
# happens about once in a hundred runs. At most 2000 tries.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd ../recordprog && go build -trimpath -o "$tmp/recordprog" .)
for i in $(seq 2000); do
  GODEBUG=traceallocfree=1,traceadvanceperiod=2000000 "$tmp/recordprog" light "$tmp/t.trace"
  if ! go tool trace -d=parsed "$tmp/t.trace" >/dev/null 2>"$tmp/err"; then
    head -1 "$tmp/err"
    cp "$tmp/t.trace" go126-lost-status.trace
    chmod 644 go126-lost-status.trace
    exit 0
  fi
done
echo "no rejected recording in 2000 runs" >&2
exit 1
