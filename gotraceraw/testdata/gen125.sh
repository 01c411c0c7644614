#!/usr/bin/env bash
# Records the go125-* fixtures: recordprog built and run by the Go 1.25
# toolchain (fetched by the go command from the module proxy), the text
# printed by that toolchain's own `go tool trace -d=wire`. Results differ
# run to run; the tests need no particular run.
set -euo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN=${GO125:-go1.25.5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd recordprog && go build -trimpath -o "$tmp/recordprog" .)
"$tmp/recordprog" light go125-light.trace
"$tmp/recordprog" all go125-all.trace
GODEBUG=traceallocfree=1 "$tmp/recordprog" light go125-allocfree.trace
for n in light all allocfree; do
  { echo "Trace Go1.25"; go tool trace -d=wire "go125-$n.trace"; } | gzip -9n > "go125-$n.txt.gz"
done
chmod 644 go125-*
