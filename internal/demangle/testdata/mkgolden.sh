#!/bin/sh
# Regenerates golden.txt and golden19.txt: each line of names.txt, a tab,
# and what llvm-cxxfilt-14 (Debian llvm-14), resp. llvm-cxxfilt-19 (Debian
# llvm-19), prints for it.
set -eu
cd "$(dirname "$0")"
tool=${CXXFILT:-llvm-cxxfilt-14}
tool19=${CXXFILT19:-llvm-cxxfilt-19}
"$tool" < names.txt > golden.out.tmp
paste names.txt golden.out.tmp > golden.txt
"$tool19" < names.txt > golden.out.tmp
paste names.txt golden.out.tmp > golden19.txt
rm golden.out.tmp
