#!/usr/bin/env bash
# `make lint`: every Swift file and Package.swift against .swift-format
# (the toolchain's own `swift format`; nothing to install), and every
# target's declared dependencies against its imports
# (scripts/check_dependencies.py). Fails on any finding.
# `scripts/lint.sh --fix` formats the files in place instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
paths=(Package.swift Shared Services Tools Tests)
if [ "${1:-}" = "--fix" ]; then
  swift format format --in-place --recursive --parallel "${paths[@]}"
  echo "lint: formatted ${paths[*]}"
  exit 0
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
echo "lint: clean (${paths[*]} against .swift-format)"
python3 "$root/scripts/check_dependencies.py"
