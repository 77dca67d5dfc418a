#!/usr/bin/env bash
# `make run` until the services exist: starts the local stack (PostgreSQL on
# 55432, Tansu on 19092; override with PG_PORT / KAFKA_PORT), prints the
# connection settings, and stops both on Ctrl-C.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=$(mktemp -d /tmp/storefront-run.XXXXXX)
cleanup() {
  echo; echo "==> stopping the local stack"
  "$root/scripts/tansu.sh" stop "$state" || true
  "$root/scripts/pg.sh" stop "$state" || true
  rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

"$root/scripts/pg.sh" start "$state" "${PG_PORT:-55432}"
"$root/scripts/tansu.sh" start "$state" "${KAFKA_PORT:-19092}"
# shellcheck disable=SC1091
. "$state/pg.env"; . "$state/kafka.env"
cat <<MSG

Local stack is up (the services are not built yet; this starts their servers):
  DATABASE_URL=$DATABASE_URL
  KAFKA_BROKERS=$KAFKA_BROKERS
Press Ctrl-C to stop.
MSG
while true; do sleep 3600; done
