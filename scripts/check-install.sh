#!/usr/bin/env bash
# Installs the build in build/ to a temporary prefix and uses it the way a
# downstream project would: examples/consumer is configured against it with
# find_package(MLIRTracking), built and run (its C++ and its C API program,
# their output checked with FileCheck), and the installed Python package is imported from the prefix to
# run examples/quickstart.py. KEEP_PREFIX=1 keeps the prefix for a look.
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCE_DIR=$PWD
BUILD_DIR=${BUILD_DIR:-build}
LLVM_TOOLS_DIR=$(llvm-config-22 --bindir)
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mlir-tracking-install.XXXXXX")
if [ "${KEEP_PREFIX:-0}" != 1 ]; then
  trap 'rm -rf "$WORK"' EXIT
fi
PREFIX=$WORK/prefix

echo "check-install: installing to $PREFIX"
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
for path in \
    include/mlir/Tracking/HandleRegistry.h include/mlir-c/Tracking.h \
    lib/cmake/MLIRTracking/MLIRTrackingConfig.cmake \
    lib/cmake/MLIRTracking/MLIRTrackingConfigVersion.cmake \
    bin/tracking-opt bin/tracking-fuzz \
    python_packages/mlir_tracking/__init__.py \
    share/doc/mlir-tracking/README.md; do
  if [ ! -e "$PREFIX/$path" ]; then
    echo "check-install: $path was not installed" >&2
    exit 1
  fi
done
if [ -e "$PREFIX/include/mlir/Tracking/Fuzz.h" ]; then
  echo "check-install: the fuzzer's header is not public API" >&2
  exit 1
fi

echo "check-install: examples/consumer against the install"
# As a downstream user would: only the prefix, no MLIRTracking_DIR (and no
# user package registry, which could point at a build tree).
(unset MLIRTracking_DIR; cmake -G Ninja -S examples/consumer -B "$WORK/consumer" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF) >"$WORK/consumer.log" 2>&1 ||
  { cat "$WORK/consumer.log"; exit 1; }
if ! grep -q "Using MLIRTrackingConfig.cmake in: $PREFIX/lib/cmake/MLIRTracking" \
    "$WORK/consumer.log"; then
  cat "$WORK/consumer.log"
  echo "check-install: find_package(MLIRTracking) did not find the install" >&2
  exit 1
fi
cmake --build "$WORK/consumer" >>"$WORK/consumer.log" ||
  { cat "$WORK/consumer.log"; exit 1; }
"$WORK/consumer/tracking-consumer" |
  "$LLVM_TOOLS_DIR/FileCheck" examples/consumer/consumer.cpp
echo "check-install: tracking-consumer passed"
"$WORK/consumer/tracking-consumer-c" |
  "$LLVM_TOOLS_DIR/FileCheck" examples/consumer/consumer-c.c
echo "check-install: tracking-consumer-c (C API) passed"

if [ -d "$PREFIX/python_packages/mlir_tracking" ]; then
  echo "check-install: Python package from the install"
  (cd "$WORK" &&
   PYTHONPATH="$PREFIX/python_packages" /usr/bin/python3 - "$PREFIX" <<'PY'
import sys
import mlir_tracking
assert mlir_tracking.__file__.startswith(sys.argv[1]), mlir_tracking.__file__
print("check-install: imported", mlir_tracking.__file__)
PY
  )
  (cd "$WORK" &&
   PYTHONPATH="$PREFIX/python_packages" /usr/bin/python3 \
     "$SOURCE_DIR/examples/quickstart.py" >"$WORK/quickstart.log") ||
    { cat "$WORK/quickstart.log"; exit 1; }
  echo "check-install: examples/quickstart.py passed"
fi
echo "check-install: passed"
