#!/usr/bin/env bash
# Configures and builds mlir-tracking with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan/ (a second run reuses the build),
# then runs its whole ctest suite under them: the unit tests, the lit tests
# (tracking-opt, the C API test and every Python test), the fuzz smoke run
# and the benchmark smoke runs (not the simulated-cache one: valgrind cannot
# run AddressSanitizer binaries, so benchmarks/CMakeLists.txt does not
# register it here).
#
# The Python extension is built with the same sanitizer flags. Debian's
# python3 is not instrumented, so the Python tests run it with the compiler's
# sanitizer runtimes preloaded (found at configure time, see test/lit.cfg.py)
# and with leak detection off for Python processes only: CPython leaks by
# design (test/sanitizers/lsan.supp). Runtime options and suppressions:
# test/sanitizers/ (see docs/reliability.md). The property test keeps its 40
# examples here (about 40 s under the sanitizers); PROPERTY_TEST_MAX_EXAMPLES,
# if set, overrides the count.
set -euo pipefail
cd "$(dirname "$0")/.."

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
# Configured on every run (cheap when nothing changed), so that a build-asan/
# configured before Python was part of it gets the extension too.
# -O1 -g1 rather than RelWithDebInfo's -O2 -g: it compiles the tree about 40%
# faster (CI time), and line tables are all a sanitizer report needs.
# NDEBUG stays: Debian's libMLIR is built without assertions, so headers
# compiled with them reference symbols it does not export.
SANITIZER_OPT_FLAGS="-O1 -g1 -DNDEBUG"
cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$SANITIZER_OPT_FLAGS" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$SANITIZER_OPT_FLAGS" \
  -DMLIR_TRACKING_ENABLE_SANITIZERS=ON -DMLIR_TRACKING_ENABLE_PYTHON=ON \
  ${CMAKE_ARGS:-} >/dev/null
# BUILD_LOCK: a file to flock around the build when several builds share
# the machine.
${BUILD_LOCK:+flock "$BUILD_LOCK"} cmake --build "$BUILD_DIR"

SANITIZER_DIR=$PWD/test/sanitizers
source "$SANITIZER_DIR/sanitizer-env.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" "$@"
