#!/bin/sh
# Regenerates golden.txt: each line of names.txt, a tab, and what
# llvm-cxxfilt-14 (Debian llvm-14) prints for it.
set -eu
cd "$(dirname "$0")"
tool=${CXXFILT:-llvm-cxxfilt-14}
"$tool" < names.txt > golden.out.tmp
paste names.txt golden.out.tmp > golden.txt
rm golden.out.tmp
