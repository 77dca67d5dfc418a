#!/usr/bin/env bash
# `make unit`: the unit test targets alone, with no server at all. Builds
# (debug, with tests) unless given --skip-build, then runs
#   swift test --skip-build --filter "$(scripts/unit-tests.sh --print-filter)"
# with DATABASE_URL, KAFKA_BROKERS and STOREFRONT_SCRIPTS unset, so a unit
# test that reaches for PostgreSQL, the broker or the scripts fails here.
# `make test` runs this first, before it starts any server.
#
# Which targets are unit ones follows from their names (docs/architecture.md,
# "Tests"): every folder under Tests/ whose name ends in `Tests` but not in
# `IntegrationTests` or `EndToEndTests`.
#   --print-filter   print the regular expression for --filter/--skip and exit
#   --skip-build     run the existing build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

unit_filter() {
  local names=() dir name
  for dir in Tests/*Tests/; do
    name=$(basename "$dir")
    case "$name" in *IntegrationTests | *EndToEndTests) continue ;; esac
    names+=("$name")
  done
  [ ${#names[@]} -gt 0 ] || { echo "error: no unit test targets under Tests/" >&2; exit 1; }
  # Test identifiers start with their target: `<Target>.<Suite>/<test>`.
  local IFS='|'
  printf '^(%s)\\.\n' "${names[*]}"
}

build=1
for argument in "$@"; do
  case "$argument" in
    --print-filter) unit_filter; exit 0 ;;
    --skip-build) build=0 ;;
    *) echo "usage: $0 [--skip-build | --print-filter]" >&2; exit 2 ;;
  esac
done
filter=$(unit_filter)

if [ "$build" = 1 ]; then
  "$root/scripts/install-deps.sh"
  echo "==> building (debug, with tests)"
  swift build --build-tests --explicit-target-dependency-import-check error
fi

echo "==> unit tests, no servers (DATABASE_URL, KAFKA_BROKERS, STOREFRONT_SCRIPTS unset)"
env -u DATABASE_URL -u KAFKA_BROKERS -u STOREFRONT_SCRIPTS swift test --skip-build --filter "$filter"
