#!/usr/bin/env bash
# A throwaway Tansu broker (Kafka protocol, memory storage) for tests and runs.
#   tansu.sh start STATE_DIR [PORT]   writes STATE_DIR/kafka.env, PID in STATE_DIR/tansu.pid
#   tansu.sh stop STATE_DIR           stops it by its recorded PID
# Memory storage only: a restart empties it, which is what tests want. The log
# is appended to, so a restart (stop, then start on the same PORT) keeps both runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: tansu.sh start|stop STATE_DIR [PORT]}
state=${2:?usage: tansu.sh start|stop STATE_DIR [PORT]}
tansu="$root/.vendor/bin/tansu"

case "$cmd" in
start)
  [ -x "$tansu" ] || { echo "error: $tansu is missing (run scripts/install-deps.sh)" >&2; exit 1; }
  port=${3:-$("$root/scripts/free-port.sh")}
  # A restart on the same port may find the old broker still closing: wait a little.
  for attempt in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
    if [ "$attempt" = 50 ]; then
      echo "error: port $port is already taken; set another broker port" >&2
      exit 1
    fi
    sleep 0.1
  done
  mkdir -p "$state"
  "$tansu" broker --listener-url "tcp://127.0.0.1:$port" \
    --advertised-listener-url "tcp://127.0.0.1:$port" \
    --storage-engine memory://tansu/ >>"$state/tansu.log" 2>&1 &
  echo $! >"$state/tansu.pid"
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      cat >"$state/kafka.env" <<ENV
export KAFKA_BROKERS=127.0.0.1:$port
export KAFKA_PORT=$port
ENV
      echo "Tansu broker on 127.0.0.1:$port (pid $(cat "$state/tansu.pid"))"
      exit 0
    fi
    kill -0 "$(cat "$state/tansu.pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "error: Tansu did not start listening on $port; log:" >&2
  cat "$state/tansu.log" >&2
  exit 1
  ;;
stop)
  [ -f "$state/tansu.pid" ] || exit 0
  pid=$(cat "$state/tansu.pid")
  kill -CONT "$pid" 2>/dev/null || true   # a frozen broker cannot act on TERM
  kill "$pid" 2>/dev/null || true
  # A zombie (its parent gone, nobody reaping) still answers kill -0: count it as stopped.
  alive() { kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
  for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    kill -9 "$pid" 2>/dev/null || true
    # Until it is gone, its port is still bound: a restart on the same port
    # right after this returned found it taken (a fresh-clone run, 2 December 2026).
    for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$state/tansu.pid" "$state/kafka.env"
  ;;
*) echo "usage: tansu.sh start|stop STATE_DIR [PORT]" >&2; exit 2 ;;
esac
