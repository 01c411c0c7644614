#!/bin/sh
# Rebuilds the reports of this directory from gen.c (see README.md).
set -e
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c99 -Wall -o "$tmp/gen" gen.c
"$tmp/gen" file > file.txt
"$tmp/gen" memory > memory.txt
# What sp-rtrace's parser reads in them, line by line.
${CC:-cc} -std=c99 -Wall -o "$tmp/probe" probe.c
for f in file memory; do "$tmp/probe" < $f.txt > $f.real; done
