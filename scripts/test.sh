#!/usr/bin/env bash
# Set up (packages, configure, build) and run every test through ctest; then
# install to a temporary prefix and build, run and import from there
# (scripts/check-install.sh); then the ctest suite built with ASan+UBSan
# (scripts/sanitize.sh, in build-asan/). SKIP_SANITIZERS=1 skips the last part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)")
bash scripts/check-install.sh
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  bash scripts/sanitize.sh
fi
