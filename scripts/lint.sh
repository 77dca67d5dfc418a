#!/usr/bin/env bash
# `make lint`: every Swift file and Package.swift against .swift-format
# (the toolchain's own `swift format`; nothing to install), and every
# target's declared dependencies against its imports
# (scripts/check_dependencies.py), the docs (the settings tables against
# docs/settings.json, scripts/settings-docs.sh --check; what the docs name
# against what exists, scripts/check_docs.py, and its self-test), and
# compiles StorefrontKit alone with every warning an error. Fails on any
# finding. None of it needs a build: docs/settings.json is checked against
# the declarations in code by a unit test (SettingsDocsTests).
# `scripts/lint.sh --fix` formats the files in place instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
paths=(Package.swift Shared SDK Services Tools Tests)
if [ "${1:-}" = "--fix" ]; then
  swift format format --in-place --recursive --parallel "${paths[@]}"
  echo "lint: formatted ${paths[*]}"
  exit 0
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
echo "lint: clean (${paths[*]} against .swift-format)"
python3 "$root/scripts/check_dependencies.py"
"$root/scripts/settings-docs.sh" --check
python3 "$root/scripts/check_docs.py"
python3 "$root/scripts/check_docs.py" --self-test
python3 "$root/scripts/count_webhook_path.py" --self-test
python3 "$root/scripts/check_provider_names.py"
python3 "$root/scripts/check_provider_names.py" --self-test
# The kit's target carries no warnings-as-errors setting (apps could not build
# it; Package.swift says why), so its strictness is checked here: the kit alone,
# `-warnings-as-errors` on the command line, in a build folder of its own so the
# main build's objects keep their flags (incremental: seconds when unchanged).
echo "lint: compiling StorefrontKit with -warnings-as-errors (.build/kit-strict)"
swift build --quiet --target StorefrontKit --scratch-path "$root/.build/kit-strict" -Xswiftc -warnings-as-errors
echo "lint: StorefrontKit compiles without a warning"
