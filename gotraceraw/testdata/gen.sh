#!/usr/bin/env bash
# Copies the fixtures gotraceraw's tests use from the shared fixture tree
# (../shared/fixtures/gotrace beside the checkout), gzipping the goldens.
set -euo pipefail
cd "$(dirname "$0")"
src=${1:-../../../shared/fixtures/gotrace}
for n in annotations basic cpuprofile gcgens gotest stacks syscalls allocfree; do
  cp "$src/$n.trace" .
  gzip -9n -c "$src/$n.txt" > "$n.txt.gz"
done
for n in go122-annotations go122-basic go122-cgocallback go123-annotations go123-coro go123-allocfree go124-annotations go124-coro; do
  cp "$src/old/$n.trace" .
  gzip -9n -c "$src/old/$n.txt" > "$n.txt.gz"
done
chmod 644 ./*.trace ./*.txt.gz
