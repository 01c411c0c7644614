#!/bin/sh
# gen.sh makes threads.trace, a real two-thread trace (apitrace's own
# glthreads.trace is not among the shared fixtures), and the real
# `apitrace dump` of it. Needs: apitrace apitrace-tracers xvfb xauth
# clang-14 and Mesa's EGL/GLES2 headers and libraries (libegl-dev,
# libgles-dev), Debian bookworm. Every run gives another trace (pointer
# values, interleaving), so regenerate the trace and its dump together.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clang-14 -O1 -o "$tmp/threads" threads.c -lEGL -lGLESv2 -lpthread
rm -f threads.trace
EGL_PLATFORM=surfaceless xvfb-run -a apitrace trace --api egl -o threads.trace "$tmp/threads"
apitrace dump --color=never -v --thread-ids threads.trace > threads.dump-verbose-tid.txt
