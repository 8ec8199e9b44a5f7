#!/usr/bin/env bash
# Set up (packages, configure, build) and run the quickstart demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PYTHONPATH=build/python_packages /usr/bin/python3 examples/quickstart.py
