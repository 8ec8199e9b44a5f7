#!/usr/bin/env bash
# Set up (packages, configure, build) and run every test through ctest; then
# the same suite built with ASan+UBSan (scripts/sanitize.sh, in build-asan/).
# SKIP_SANITIZERS=1 skips the second part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure)
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi
