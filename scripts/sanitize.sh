#!/usr/bin/env bash
# Configures and builds mlir-tracking with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan/ (a second run reuses the build),
# then runs its ctest suite under them: the unit tests, the lit tests and the
# tracking-fuzz smoke run. Runtime options and suppressions:
# test/sanitizers/ (see docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLIR_TRACKING_ENABLE_SANITIZERS=ON -DMLIR_TRACKING_ENABLE_PYTHON=OFF \
    ${CMAKE_ARGS:-}
fi
# BUILD_LOCK: a file to flock around the build when several builds share
# the machine.
${BUILD_LOCK:+flock "$BUILD_LOCK"} cmake --build "$BUILD_DIR"

SANITIZER_DIR=$PWD/test/sanitizers
source "$SANITIZER_DIR/sanitizer-env.sh"
cd "$BUILD_DIR"
ctest --output-on-failure "$@"
