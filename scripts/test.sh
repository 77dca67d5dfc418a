#!/usr/bin/env bash
# `make test`: install what is missing, build once, start a throwaway
# PostgreSQL and Tansu on free ports, run every test, stop both servers,
# also when tests fail or the run is interrupted.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

"$root/scripts/install-deps.sh"

# Fast and engine-free: fail early when the deployment files break a rule.
"$root/scripts/check-compose.sh"

echo "==> building (debug, with tests)"
swift build --build-tests

state=$(mktemp -d /tmp/storefront-test.XXXXXX)
cleanup() {
  "$root/scripts/tansu.sh" stop "$state" || true
  "$root/scripts/pg.sh" stop "$state" || true
  rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "==> starting PostgreSQL and the broker"
"$root/scripts/pg.sh" start "$state"
"$root/scripts/tansu.sh" start "$state"
# shellcheck disable=SC1091
. "$state/pg.env"; . "$state/kafka.env"
# Suites that must break a server (restart, stop) start private ones with
# these scripts rather than disturb the shared servers other suites use.
export STOREFRONT_SCRIPTS="$root/scripts"

echo "==> running tests (DATABASE_URL=$DATABASE_URL KAFKA_BROKERS=$KAFKA_BROKERS)"
swift test --skip-build "$@"
