#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for tests and local runs.
#   pg.sh start STATE_DIR [PORT]   start a new cluster; writes STATE_DIR/pg.env
#   pg.sh restart STATE_DIR        restart it (same port, same data)
#   pg.sh stop STATE_DIR           stop it and delete its data
# PostgreSQL refuses to run as root, so the cluster runs as `postgres`; its
# data lives under a fresh mktemp -d in /tmp because the checkout may sit
# where `postgres` cannot enter. It listens on loopback only, with its socket
# in the data folder, so several clusters can run side by side.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: pg.sh start|restart|stop STATE_DIR [PORT]}
state=${2:?usage: pg.sh start|restart|stop STATE_DIR [PORT]}
bin=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || true)
[ -n "$bin" ] || { echo "error: PostgreSQL 15 is not installed (run scripts/install-deps.sh)" >&2; exit 1; }

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

case "$cmd" in
start)
  port=${3:-$("$here/free-port.sh")}
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "error: port $port is already taken; set another PostgreSQL port" >&2
    exit 1
  fi
  mkdir -p "$state"
  root=$(mktemp -d /tmp/storefront-pg.XXXXXX)
  chmod 0755 "$root"
  chown postgres: "$root" 2>/dev/null || true
  data="$root/data"
  as_postgres "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$root/initdb.log" 2>&1 \
    || { cat "$root/initdb.log" >&2; exit 1; }
  as_postgres "$bin/pg_ctl" -D "$data" -l "$root/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c fsync=off -c max_connections=200" start >/dev/null \
    || { echo "error: PostgreSQL did not start; log:" >&2; cat "$root/server.log" >&2; exit 1; }
  cat >"$state/pg.env" <<ENV
export PG_ROOT=$root
export PGDATA=$data
export PG_PORT=$port
export DATABASE_URL=postgresql://postgres@127.0.0.1:$port/postgres
ENV
  echo "PostgreSQL 15 on 127.0.0.1:$port (data $data)"
  ;;
restart)
  # shellcheck disable=SC1091
  . "$state/pg.env"
  # -l: the restarted server logs where the first one did (without it, nowhere).
  as_postgres "$bin/pg_ctl" -D "$PGDATA" -l "$PG_ROOT/server.log" -w -t 30 -m fast restart >/dev/null
  ;;
stop)
  [ -f "$state/pg.env" ] || exit 0
  # shellcheck disable=SC1091
  . "$state/pg.env"
  as_postgres "$bin/pg_ctl" -D "$PGDATA" -w -t 30 -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_ROOT" "$state/pg.env"
  ;;
*) echo "usage: pg.sh start|restart|stop STATE_DIR [PORT]" >&2; exit 2 ;;
esac
