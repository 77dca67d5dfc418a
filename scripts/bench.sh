#!/usr/bin/env bash
# `make bench`: the throughput figures of issue 11, each beside its baseline
# measured in the same run, in alternating rounds, with the ratio, the peak
# RSS (VmHWM) of every service and the exact parameters. A measurement, never
# an assertion: it exits non-zero only when it could not measure.
#
# It builds in release mode, starts its own stack (scripts/stack.sh with
# STACK_FREE_PORTS=1 and the release binaries: PostgreSQL, Tansu, sandbox,
# the five services, the nginx gateway), plus, for figures that must not
# share a broker, receivers and projectors of its own on fresh Tansu brokers,
# and a private nginx for the static baselines. Everything is stopped and
# deleted at the end, also on failure or Ctrl-C.
#
#   1. receiver   verified Lemon Squeezy webhooks (BENCH_WEBHOOK_BODY_BYTES bodies,
#                 real X-Signature HMAC-SHA256, distinct webhook ids and subscriptions,
#                 cycled by a wrk Lua script) straight at a webhook-receiver; 200
#                 only after the broker's ack; every 200 checked against the
#                 topic's record count. Baseline: nginx serving a static file of
#                 the same size, same wrk parameters. Each receiver round gets a
#                 fresh broker and receiver, so the count covers exactly that round.
#                 Second baseline: a typical Python receiver (scripts/bench_python_receiver.py:
#                 FastAPI on uvicorn with BENCH_PYTHON_WORKERS workers, confluent-kafka,
#                 acks=all) doing the same job with the same deliveries on a fresh
#                 broker with the same topics, at the same log level (uvicorn's
#                 access line per request at info), its 200s counted in the topic too.
#      distinct   BENCH_DISTINCT_DELIVERIES deliveries for BENCH_DISTINCT_SUBSCRIPTIONS
#                 subscriptions, each sent once (storefront-bench load, closed loop,
#                 BENCH_CONNECTIONS connections); every 200'd webhook id looked up in the topic.
#   2. catchup    BENCH_BACKLOG envelopes produced into storefront.webhooks.v1 first
#                 (exactly as the receiver publishes them), then a projector started:
#                 time until its group's committed offsets cover them all and
#                 billing_events holds every row. Baseline: COPY of those same rows
#                 into every table it writes (billing_events, subscriptions, owners, customers, ...) of a fresh `storefront migrate`d database, in one transaction.
#      steady     BENCH_STEADY_RATE webhooks/s offered through the gateway for
#                 BENCH_STEADY_SECONDS (open loop, fixed schedule): accepted count,
#                 client latency from each request's due time, and webhook
#                 received -> visible in PostgreSQL (commit of the row's transaction).
#   3. catalog    GET /api/products from catalog, and through the gateway, vs nginx
#                 serving the catalog's own answer as a file. The static nginx writes an
#                 access line per request when the services do (BENCH_LOG_LEVEL info or
#                 below), so both sides of each static comparison log alike.
#   4. memory     VmHWM of every service, from /proc, after its load.
#   Beside each figure: CPU time per request / event of each process involved
#   (utime + stime from /proc, wrk's from this shell's `times`) and what the
#   rest of the machine used meanwhile (/proc/stat), so a figure taken on a
#   shared machine says how much of it was someone else's.
#
# Settings (environment, defaults in brackets):
#   BENCH_ROUNDS [3]  BENCH_DURATION [10s]  BENCH_WARMUP [2s]  BENCH_THREADS [2]  BENCH_CONNECTIONS [64]
#   BENCH_WRK_TIMEOUT [30s] (wrk counts slower answers as timeouts and leaves them out of its latencies)
#   BENCH_WEBHOOK_BODY_BYTES [4096]  BENCH_WEBHOOK_DELIVERIES [20000]  BENCH_WEBHOOK_SUBSCRIPTIONS [4000]
#   BENCH_PYTHON_WORKERS [2] (uvicorn worker processes of the Python baseline receiver)
#   BENCH_DISTINCT_DELIVERIES [50000]  BENCH_DISTINCT_SUBSCRIPTIONS [10000]
#   BENCH_BACKLOG [200000]  BENCH_BACKLOG_SUBSCRIPTIONS [BENCH_BACKLOG/5]
#   BENCH_BACKLOG_BODY_BYTES [0: Lemon Squeezy's natural size, 2.0-3.4 KB]
#   BENCH_CATCHUP_ROUNDS [BENCH_ROUNDS]  BENCH_CATCHUP_TIMEOUT [900 s per round]
#   BENCH_STEADY_RATE [1000]  BENCH_STEADY_SECONDS [20]
#   BENCH_STEADY_CONNECTIONS [200] (the gateway allows 256 per client address)
#   BENCH_GATEWAY_APP_RATE [1000000r/s]: the gateway's per-address limit on app calls (GATEWAY_APP_RATE)
#   RECONCILER_REPLICAS and the other scripts/stack.sh settings pass through to the stack
#   BENCH_PHASES ["catalog receiver distinct steady catchup"]: a subset runs only those
#   BENCH_LOG_LEVEL [info, the services' production default]
#   BENCH_PERF=1: also `perf record -g` the receiver during its last round, and the whole machine
#                 (projector, PostgreSQL, broker) during the first BENCH_DURATION of the last
#                 catch-up round (reports in the state folder; keeps it)
#   BENCH_KEEP_STATE=1: keep the state folder (logs, wrk output) and print its path
#   BENCH_BIN=DIR: run DIR's release binaries instead of building this tree (a base commit's
#                 binaries, copied aside, for before/after figures in alternating runs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

ROUNDS=${BENCH_ROUNDS:-3}
DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-2s}
DURATION_S=$(echo "$DURATION" | awk '/m$/ { print $0 * 60; next } /h$/ { print $0 * 3600; next } { print $0 + 0 }')
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
WRK_TIMEOUT=${BENCH_WRK_TIMEOUT:-30s}
BODY_BYTES=${BENCH_WEBHOOK_BODY_BYTES:-4096}
WEBHOOK_DELIVERIES=${BENCH_WEBHOOK_DELIVERIES:-20000}
WEBHOOK_SUBSCRIPTIONS=${BENCH_WEBHOOK_SUBSCRIPTIONS:-4000}
PYTHON_WORKERS=${BENCH_PYTHON_WORKERS:-2}
DISTINCT_DELIVERIES=${BENCH_DISTINCT_DELIVERIES:-50000}
DISTINCT_SUBSCRIPTIONS=${BENCH_DISTINCT_SUBSCRIPTIONS:-10000}
BACKLOG=${BENCH_BACKLOG:-200000}
BACKLOG_SUBSCRIPTIONS=${BENCH_BACKLOG_SUBSCRIPTIONS:-$((BACKLOG / 5 > 0 ? BACKLOG / 5 : 1))}
BACKLOG_BODY_BYTES=${BENCH_BACKLOG_BODY_BYTES:-0}
CATCHUP_ROUNDS=${BENCH_CATCHUP_ROUNDS:-$ROUNDS}
CATCHUP_TIMEOUT=${BENCH_CATCHUP_TIMEOUT:-900}
# The tables the projector writes (Shared/Projection/ProjectionSchema.swift): the COPY baseline fills them all.
COPY_TABLES="app_users provider_customers billing_events subscriptions orders payments checkouts commands purchase_owners"
STEADY_RATE=${BENCH_STEADY_RATE:-1000}
STEADY_SECONDS=${BENCH_STEADY_SECONDS:-20}
STEADY_CONNECTIONS=${BENCH_STEADY_CONNECTIONS:-200}
# The gateway limits app calls per client address (GATEWAY_APP_RATE, 50r/s by
# default); every request here comes from one address, so the bench lifts it.
GATEWAY_APP_RATE=${BENCH_GATEWAY_APP_RATE:-1000000r/s}
PHASES=" ${BENCH_PHASES:-catalog receiver distinct steady catchup} "
LOG_LEVEL=${BENCH_LOG_LEVEL:-info}
# The signing secret scripts/stack.sh gives its receivers (the sandbox's); the
# bench's own receivers use it too, so one delivery file fits every receiver.
SECRET=ls_sandbox_webhook_secret

phase() { case "$PHASES" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
say() { printf '%s\n' "$*"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# --- tools -------------------------------------------------------------------
if ! command -v wrk >/dev/null 2>&1; then
  say "==> installing wrk"
  apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx not found: run scripts/install-deps.sh (installs nginx-light)" >&2; exit 1; }
command -v psql >/dev/null || { echo "psql not found: run scripts/install-deps.sh (installs postgresql)" >&2; exit 1; }

if [ -n "${BENCH_BIN:-}" ]; then
  # Another build's binaries (a base commit's, for before/after runs in alternation); this tree's scripts.
  BIN=$(cd "$BENCH_BIN" && pwd)
  [ -x "$BIN/webhook-receiver" ] && [ -x "$BIN/storefront-bench" ] || { echo "error: BENCH_BIN=$BENCH_BIN holds no release binaries" >&2; exit 1; }
  say "==> binaries from BENCH_BIN=$BIN (not built)"
else
  say "==> building (release): swift build -c release"
  if ! swift build -c release >/tmp/storefront-bench-build.$$ 2>&1; then
    grep -E "error|warning:" /tmp/storefront-bench-build.$$ | head -40 >&2 || tail -40 /tmp/storefront-bench-build.$$ >&2
    rm -f /tmp/storefront-bench-build.$$
    echo "error: the release build failed" >&2
    exit 1
  fi
  tail -n 1 /tmp/storefront-bench-build.$$; rm -f /tmp/storefront-bench-build.$$
  BIN=$(swift build -c release --show-bin-path)
fi
TOOL=$BIN/storefront-bench

# --- state and cleanup ----------------------------------------------------------
W=$(mktemp -d /tmp/storefront-bench.XXXXXX)
mkdir -p "$W/pids" "$W/logs" "$W/www" "$W/results"
KEEP=${BENCH_KEEP_STATE:-0}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for f in "$W"/pids/*.pid; do
    [ -e "$f" ] || continue
    local pid; pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null || true
  done
  for f in "$W"/pids/*.pid; do
    [ -e "$f" ] || continue
    local pid; pid=$(cat "$f")
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$f"
  done
  for d in "$W"/broker-*; do [ -d "$d" ] && "$root/scripts/tansu.sh" stop "$d" >/dev/null 2>&1; done
  [ -d "$W/stack" ] && "$root/scripts/stack.sh" down "$W/stack" >/dev/null 2>&1
  if [ "$KEEP" = 1 ]; then echo "==> state kept in $W"; else rm -rf "$W"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; echo "==> interrupted, cleaning up" >&2; exit 130' INT TERM

# Starts NAME in the background with the environment given before it; PID in $W/pids/NAME.pid.
start_bg() { # name command...
  local name=$1; shift
  "$@" >>"$W/logs/$name.log" 2>&1 &
  echo $! >"$W/pids/$name.pid"
}
stop_bg() { # name
  local f="$W/pids/$1.pid"
  [ -f "$f" ] || return 0
  local pid; pid=$(cat "$f")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$f"
}
pid_of() { cat "$W/pids/$1.pid"; }
wait_http() { # url what
  for _ in $(seq 1 300); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "error: $2 did not answer at $1" >&2; return 1
}
# Peak resident set (VmHWM) of a process, in MB with one decimal ("-" when gone).
hwm_mb() { awk '/^VmHWM:/ { printf "%.1f", $2 / 1024; found = 1 } END { if (!found) printf "-" }' "/proc/$1/status" 2>/dev/null || printf -- "-"; }
max_of() { printf '%s\n' "$@" | { grep -v '^-$' || echo -; } | sort -g | tail -n 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "nan" || b == "nan") print "n/a"; else printf "%.3f", a / b }'; }
num() { awk -v v="$1" 'BEGIN { if (v == "nan" || v == "") print "n/a"; else { s = sprintf("%.0f", v); out = ""; while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) } print s out } }'; }
field() { # key result-line
  printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}
# CPU time (user + system, in clock ticks) of the given processes, from /proc,
# with that of their children that ended (a PostgreSQL backend that exited
# is counted in the postmaster's).
TCK=$(getconf CLK_TCK)
cpu_ticks() {
  local total=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] || continue
    total=$((total + $(sed 's/^.*) //' "/proc/$p/stat" | awk '{ print $12 + $13 + $14 + $15 }')))
  done
  echo "$total"
}
# A process and its children (PostgreSQL's backends, nginx's workers).
family() { echo "$1"; ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' '; }
# Microseconds of CPU per item: TICKS_BEFORE TICKS_AFTER ITEMS.
us_per() { awk -v a="$1" -v b="$2" -v n="$3" -v t="$TCK" 'BEGIN { if (n > 0) printf "%.0f", (b - a) / t * 1e6 / n; else print "n/a" }'; }
# Cores used: TICKS_BEFORE TICKS_AFTER SECONDS.
cores_used() { awk -v a="$1" -v b="$2" -v s="$3" -v t="$TCK" 'BEGIN { if (s > 0) printf "%.2f", (b - a) / t / s; else print "n/a" }'; }
# Busy CPU ticks of the whole machine (every core, every process), from /proc/stat.
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# CPU ticks of this script's finished children (wrk, the tools): sets variable $1. Must run in this shell.
children_ticks() {
  times >"$W/times.out"
  printf -v "$1" '%s' "$(tail -n 1 "$W/times.out" | awk -v t="$TCK" '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.0f", s * t }')"
}
# Cores busy with everything except the named ticks: MACHINE0 MACHINE1 SECONDS TICKS...
others_cores() {
  local m0=$1 m1=$2 seconds=$3; shift 3
  awk -v a="$m0" -v b="$m1" -v s="$seconds" -v t="$TCK" -v known="$*" 'BEGIN {
    n = split(known, k, " "); used = 0; for (i = 1; i <= n; i++) used += k[i]
    printf "%.2f", ((b - a) - used) / t / s }'
}
pg_family() { family "$(head -n 1 "$(sed -n 's/^export PGDATA=//p' "$W/stack/pg.env")/postmaster.pid")"; }

# A database URL for DB on the stack's cluster.
db_url() { printf '%s/%s' "${DATABASE_URL%/*}" "$1"; }

# --- wrk -------------------------------------------------------------------------
cat >"$W/webhooks.lua" <<'LUA'
-- POSTs pre-signed Lemon Squeezy deliveries read from a file (one a line:
-- signature TAB event TAB webhook id TAB body), each thread cycling through
-- its own share, so concurrent requests carry distinct deliveries.
-- Arguments: FILE THREADS.
local count = 0
function setup(thread)
  thread:set("tid", count)
  count = count + 1
end
function init(args)
  local path, threads = args[1], tonumber(args[2])
  requests = {}
  local i = 0
  for line in io.lines(path) do
    if i % threads == tid then
      local signature, event, _, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
      requests[#requests + 1] = wrk.format("POST", nil,
        { ["Content-Type"] = "application/json", ["X-Event-Name"] = event, ["X-Signature"] = signature }, body)
    end
    i = i + 1
  end
  index = 0
end
function request()
  index = index % #requests + 1
  return requests[index]
end
LUA

# Runs wrk; prints "rps requests non2xx socket_errors p50_ms p99_ms".
run_wrk() { # duration url [deliveries-file]
  local duration=$1 url=$2 file=${3:-} out
  if [ -n "$file" ]; then
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$duration" --timeout "$WRK_TIMEOUT" --latency -s "$W/webhooks.lua" "$url" -- "$file" "$THREADS")
  else
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$duration" --timeout "$WRK_TIMEOUT" --latency "$url")
  fi
  { echo "### wrk $duration $url ${file:+(deliveries $file)}"; echo "$out"; } >>"$W/wrk.log"
  printf '%s\n' "$out" | awk '
    function ms(t) { if (t ~ /us$/) return t * 0.001; if (t ~ /ms$/) return t + 0; if (t ~ /m$/) return t * 60000; if (t ~ /s$/) return t * 1000; return t }
    / requests in / { requests = $1 }
    /^Requests\/sec:/ { rps = $2 }
    /Non-2xx or 3xx responses:/ { non2xx = $NF }
    /Socket errors:/ { gsub(/,/, ""); errors = $4 + $6 + $8 + $10 }
    $1 == "50%" { p50 = ms($2) }
    $1 == "99%" { p99 = ms($2) }
    END { printf "%s %d %d %d %s %s\n", rps, requests, non2xx, errors, p50, p99 }'
}

# --- the stack and the static server ------------------------------------------
cores=$(nproc)
m0=$(machine_ticks); sleep 2; m1=$(machine_ticks)
BUSY_START=$(awk -v a="$m0" -v b="$m1" -v t="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / t / 2 }')
LOAD_START=$(loadavg)
say "==> machine: $cores cores, load average $LOAD_START, $BUSY_START cores busy (2 s sample) before the bench"

say "==> starting the stack (release binaries, free ports, LOG_LEVEL=$LOG_LEVEL)"
if ! STACK_FREE_PORTS=1 STOREFRONT_BIN=$BIN LOG_LEVEL=$LOG_LEVEL STACK_OWNER_PID=$$ GATEWAY_APP_RATE=$GATEWAY_APP_RATE \
    "$root/scripts/stack.sh" up "$W/stack" >"$W/logs/stack-up.log" 2>&1; then
  cat "$W/logs/stack-up.log" >&2
  exit 1
fi
# shellcheck disable=SC1091
. "$W/stack/stack.env"
# The stack's OWNERSHIP_PROOF_KEY (exported by stack.env): the bench's deliveries
# sign their custom data with it, and its catch-up projectors check with it.
[ -n "${OWNERSHIP_PROOF_KEY:-}" ] || { echo "error: $W/stack/stack.env has no OWNERSHIP_PROOF_KEY" >&2; exit 1; }
stack_pid() { cat "$W/stack/pids/$1.pid" 2>/dev/null || echo 0; }
STACK_SERVICES=$(cd "$W/stack/pids" && ls -- *.pid | sed 's/\.pid$//' | tr '\n' ' ')

NGINX_PORT=$("$root/scripts/free-port.sh")
mkdir -p "$W/nginx/tmp"
# The baseline writes an access line per request when the services do (at info and below).
case "$LOG_LEVEL" in
  trace | debug | info) NGINX_ACCESS_LOG="$W/logs/static-nginx-access.log" ;;
  *) NGINX_ACCESS_LOG=off ;;
esac
"$root/scripts/static-nginx-conf.sh" "$W/nginx" "$NGINX_PORT" "$W/www" "$W/logs/static-nginx.log" "$NGINX_ACCESS_LOG" >"$W/nginx/nginx.conf"
echo '{}' >"$W/www/ping.json"
start_bg static-nginx "$NGINX" -p "$W/nginx" -c "$W/nginx/nginx.conf"
wait_http "http://127.0.0.1:$NGINX_PORT/ping.json" "the static nginx"
STATIC=http://127.0.0.1:$NGINX_PORT

declare -A RSS  # service -> peak MB, with the load it was under
declare -A RSS_LOAD
note_rss() { RSS[$1]=$2; RSS_LOAD[$1]=$3; }

# --- 3. catalog -----------------------------------------------------------------
if phase catalog; then
  say "==> catalog: GET /api/products direct, through the gateway, and nginx serving the same bytes"
  for _ in $(seq 1 100); do curl -fsS -o "$W/www/products.json" "$CATALOG_URL/api/products" 2>/dev/null && break; sleep 0.2; done
  [ -s "$W/www/products.json" ] || { echo "error: the catalog never answered /api/products" >&2; exit 1; }
  cmp -s <(curl -fsS "$GATEWAY_URL/api/products") "$W/www/products.json" || { echo "error: the gateway's /api/products differs from the catalog's" >&2; exit 1; }
  cmp -s <(curl -fsS "$STATIC/products.json") "$W/www/products.json" || { echo "error: nginx does not serve the same bytes" >&2; exit 1; }
  PRODUCTS_BYTES=$(stat -c %s "$W/www/products.json")
  for url in "$CATALOG_URL/api/products" "$GATEWAY_URL/api/products" "$STATIC/products.json"; do run_wrk "$WARMUP" "$url" >/dev/null; done
  : >"$W/results/catalog"; : >"$W/results/gateway"; : >"$W/results/catalog-nginx"; : >"$W/results/catalog-cpu"
  for round in $(seq 1 "$ROUNDS"); do
    k0=$(cpu_ticks "$(stack_pid catalog)"); m0=$(machine_ticks); children_ticks w0
    c=$(run_wrk "$DURATION" "$CATALOG_URL/api/products"); echo "$c" >>"$W/results/catalog"
    k1=$(cpu_ticks "$(stack_pid catalog)"); m1=$(machine_ticks); children_ticks w1
    n2xx=$(echo "$c" | awk '{ print $2 - $3 }')
    echo "$(us_per "$k0" "$k1" "$n2xx") $(us_per "$w0" "$w1" "$n2xx") $(others_cores "$m0" "$m1" "$DURATION_S" $((k1 - k0)) $((w1 - w0)))" >>"$W/results/catalog-cpu"
    g=$(run_wrk "$DURATION" "$GATEWAY_URL/api/products"); echo "$g" >>"$W/results/gateway"
    n=$(run_wrk "$DURATION" "$STATIC/products.json"); echo "$n" >>"$W/results/catalog-nginx"
    printf '    round %d: catalog %s req/s (CPU per request: catalog %s us, wrk %s us; rest of the machine %s cores), gateway %s req/s, nginx %s req/s (non-2xx or failed: %s %s %s)\n' "$round" \
      "$(num "${c%% *}")" $(tail -n 1 "$W/results/catalog-cpu") "$(num "${g%% *}")" "$(num "${n%% *}")" \
      "$(echo "$c" | awk '{print $3 + $4}')" "$(echo "$g" | awk '{print $3 + $4}')" "$(echo "$n" | awk '{print $3 + $4}')"
  done
  note_rss catalog "$(hwm_mb "$(stack_pid catalog)")" "GET /api/products"
fi

# --- 1. receiver ----------------------------------------------------------------
# A webhook-receiver of the bench's own on a fresh broker: NAME BROKER_DIR -> its URL in $RECEIVER_URL.
start_receiver() {
  local name=$1 broker=$2 port
  "$root/scripts/tansu.sh" start "$broker" >/dev/null
  RECEIVER_BROKERS=$(sed -n 's/^export KAFKA_BROKERS=//p' "$broker/kafka.env")
  port=$("$root/scripts/free-port.sh")
  PORT=$port HOST=127.0.0.1 LOG_LEVEL=$LOG_LEVEL KAFKA_BROKERS=$RECEIVER_BROKERS KAFKA_CLIENT_ID=$name \
    LEMONSQUEEZY_API_KEY=ls_test_sandbox_key LEMONSQUEEZY_STORE_ID=1 LEMONSQUEEZY_WEBHOOK_SECRET=$SECRET \
    LEMONSQUEEZY_API_BASE_URL="$SANDBOX_URL/lemonsqueezy" LEMONSQUEEZY_TEST_MODE=true \
    start_bg "$name" "$BIN/webhook-receiver"
  RECEIVER_URL=http://127.0.0.1:$port
  wait_http "$RECEIVER_URL/readyz" "$name"
}

# The Python baseline receiver on a fresh broker with Storefront's topics: NAME BROKER_DIR -> $RECEIVER_URL.
start_python_receiver() {
  local name=$1 broker=$2 port level
  "$root/scripts/tansu.sh" start "$broker" >/dev/null
  RECEIVER_BROKERS=$(sed -n 's/^export KAFKA_BROKERS=//p' "$broker/kafka.env")
  "$TOOL" topics --brokers "$RECEIVER_BROKERS" >/dev/null
  port=$("$root/scripts/free-port.sh")
  # uvicorn has no notice level: at notice the Swift services drop their info access lines, as uvicorn does at warning.
  level=$(echo "$LOG_LEVEL" | tr '[:upper:]' '[:lower:]'); [ "$level" != notice ] || level=warning
  KAFKA_BROKERS=$RECEIVER_BROKERS WEBHOOK_SECRET=$SECRET \
    start_bg "$name" "$PYTHON_VENV/bin/uvicorn" --app-dir "$root/scripts" bench_python_receiver:app \
      --host 127.0.0.1 --port "$port" --workers "$PYTHON_WORKERS" --log-level "$level"
  RECEIVER_URL=http://127.0.0.1:$port
  wait_http "$RECEIVER_URL/readyz" "$name"
}

if phase receiver; then
  PYTHON_VENV=$root/.vendor/bench-python
  "$root/scripts/pinned-venv.sh" "$PYTHON_VENV" "$root/scripts/requirements-bench-python.txt" uvicorn "the Python baseline receiver"
  say "==> receiver: verified webhooks (${BODY_BYTES} B bodies, $WEBHOOK_DELIVERIES deliveries for $WEBHOOK_SUBSCRIPTIONS subscriptions) vs nginx serving a ${BODY_BYTES} B file"
  run_id=$(openssl rand -hex 4)
  r=$("$TOOL" deliveries --out "$W/webhooks.tsv" --count "$WEBHOOK_DELIVERIES" --subscriptions "$WEBHOOK_SUBSCRIPTIONS" \
        --body-bytes "$BODY_BYTES" --secret "$SECRET" --run-id "$run_id")
  WEBHOOK_BODY_RANGE="$(field min_body_bytes "$r")-$(field max_body_bytes "$r")"
  head -n 1 "$W/webhooks.tsv" | cut -f4 | tr -d '\n' >"$W/www/webhook.json"
  STATIC_WEBHOOK_BYTES=$(stat -c %s "$W/www/webhook.json")
  run_wrk "$WARMUP" "$STATIC/webhook.json" >/dev/null
  : >"$W/results/receiver"; : >"$W/results/receiver-nginx"; : >"$W/results/receiver-check"; : >"$W/results/receiver-cpu"
  : >"$W/results/receiver-python"; : >"$W/results/receiver-python-check"; : >"$W/results/receiver-python-cpu"
  receiver_hwm=(); python_hwm=()
  for round in $(seq 1 "$ROUNDS"); do
    start_receiver "receiver-$round" "$W/broker-receiver-$round"
    url="$RECEIVER_URL/api/webhooks/lemonsqueezy"
    warm=$(run_wrk "$WARMUP" "$url" "$W/webhooks.tsv")
    perf_pid=""
    if [ "${BENCH_PERF:-0}" = 1 ] && [ "$round" = "$ROUNDS" ] && command -v perf >/dev/null; then
      perf record -g -o "$W/receiver.perf.data" -p "$(pid_of "receiver-$round")" -- sleep "$DURATION_S" >"$W/logs/perf.log" 2>&1 &
      perf_pid=$!
      KEEP=1
    fi
    rpid=$(pid_of "receiver-$round") bpid=$(cat "$W/broker-receiver-$round/tansu.pid")
    r0=$(cpu_ticks "$rpid"); b0=$(cpu_ticks "$bpid"); m0=$(machine_ticks); children_ticks w0
    s=$(run_wrk "$DURATION" "$url" "$W/webhooks.tsv"); echo "$s" >>"$W/results/receiver"
    r1=$(cpu_ticks "$rpid"); b1=$(cpu_ticks "$bpid"); m1=$(machine_ticks); children_ticks w1
    n2xx=$(echo "$s" | awk '{ print $2 - $3 }')
    echo "$(us_per "$r0" "$r1" "$n2xx") $(us_per "$b0" "$b1" "$n2xx") $(us_per "$w0" "$w1" "$n2xx") $(others_cores "$m0" "$m1" "$DURATION_S" $((r1 - r0)) $((b1 - b0)) $((w1 - w0)))" >>"$W/results/receiver-cpu"
    [ -z "$perf_pid" ] || { wait "$perf_pid" || true; say "    perf profile of the receiver: perf report -g -i $W/receiver.perf.data"; }
    receiver_hwm+=("$(hwm_mb "$(pid_of "receiver-$round")")")
    stop_bg "receiver-$round"   # drains: every answered request is acknowledged by now
    ok=$(echo "$warm $s" | awk '{ print ($2 - $3) + ($8 - $9) }')
    c=$("$TOOL" topic-count --brokers "$RECEIVER_BROKERS" --expect "$ok")
    records=$(field records "$c")
    echo "$ok $records" >>"$W/results/receiver-check"
    "$root/scripts/tansu.sh" stop "$W/broker-receiver-$round" >/dev/null
    rm -rf "$W/broker-receiver-$round"
    # The Python baseline: same deliveries, same wrk, its own fresh broker; CPU of uvicorn and its workers.
    start_python_receiver "python-receiver-$round" "$W/broker-python-$round"
    url="$RECEIVER_URL/api/webhooks/lemonsqueezy"
    pwarm=$(run_wrk "$WARMUP" "$url" "$W/webhooks.tsv")
    pprocs=$(family "$(pid_of "python-receiver-$round")" | tr '\n' ' ') bpid=$(cat "$W/broker-python-$round/tansu.pid")
    # shellcheck disable=SC2086
    r0=$(cpu_ticks $pprocs); b0=$(cpu_ticks "$bpid"); m0=$(machine_ticks); children_ticks w0
    p=$(run_wrk "$DURATION" "$url" "$W/webhooks.tsv"); echo "$p" >>"$W/results/receiver-python"
    # shellcheck disable=SC2086
    r1=$(cpu_ticks $pprocs); b1=$(cpu_ticks "$bpid"); m1=$(machine_ticks); children_ticks w1
    n2xx=$(echo "$p" | awk '{ print $2 - $3 }')
    echo "$(us_per "$r0" "$r1" "$n2xx") $(us_per "$b0" "$b1" "$n2xx") $(us_per "$w0" "$w1" "$n2xx") $(others_cores "$m0" "$m1" "$DURATION_S" $((r1 - r0)) $((b1 - b0)) $((w1 - w0)))" >>"$W/results/receiver-python-cpu"
    hwms=(); for q in $pprocs; do hwms+=("$(hwm_mb "$q")"); done; python_hwm+=("$(max_of "${hwms[@]}")")
    stop_bg "python-receiver-$round"   # uvicorn waits for its open requests; each was acknowledged before its 200
    pok=$(echo "$pwarm $p" | awk '{ print ($2 - $3) + ($8 - $9) }')
    pc=$("$TOOL" topic-count --brokers "$RECEIVER_BROKERS" --expect "$pok")
    echo "$pok $(field records "$pc")" >>"$W/results/receiver-python-check"
    "$root/scripts/tansu.sh" stop "$W/broker-python-$round" >/dev/null
    rm -rf "$W/broker-python-$round"
    n=$(run_wrk "$DURATION" "$STATIC/webhook.json"); echo "$n" >>"$W/results/receiver-nginx"
    printf '    round %d: Python receiver %s req/s p50 %s ms p99 %s ms (non-2xx %s, socket errors %s; %s answered 2xx incl. warm-up, %s records in the topic; CPU per request: uvicorn workers %s us, broker %s us, wrk %s us; rest of the machine %s cores)\n' \
      "$round" "$(num "${p%% *}")" "$(echo "$p" | cut -d' ' -f5)" "$(echo "$p" | cut -d' ' -f6)" \
      "$(echo "$p" | cut -d' ' -f3)" "$(echo "$p" | cut -d' ' -f4)" "$pok" "$(field records "$pc")" \
      $(tail -n 1 "$W/results/receiver-python-cpu")
    printf '    round %d: receiver %s req/s p50 %s ms p99 %s ms (non-2xx %s, socket errors %s; %s answered 2xx incl. warm-up, %s records in the topic; CPU per request: receiver %s us, broker %s us, wrk %s us; rest of the machine %s cores), nginx %s req/s\n' \
      "$round" "$(num "${s%% *}")" "$(echo "$s" | cut -d' ' -f5)" "$(echo "$s" | cut -d' ' -f6)" \
      "$(echo "$s" | cut -d' ' -f3)" "$(echo "$s" | cut -d' ' -f4)" "$ok" "$records" \
      $(tail -n 1 "$W/results/receiver-cpu") "$(num "${n%% *}")"
  done
  note_rss webhook-receiver "$(max_of "${receiver_hwm[@]}")" "wrk -c$CONNECTIONS, verified webhooks (max of $ROUNDS rounds)"
  note_rss "Python baseline receiver (a worker)" "$(max_of "${python_hwm[@]}")" "the same load (max of $ROUNDS rounds; not a Storefront service)"
fi

if phase distinct; then
  say "==> receiver: $DISTINCT_DELIVERIES distinct deliveries for $DISTINCT_SUBSCRIPTIONS subscriptions, each sent once, $CONNECTIONS connections"
  run_id=$(openssl rand -hex 4)
  "$TOOL" deliveries --out "$W/distinct.tsv" --count "$DISTINCT_DELIVERIES" --subscriptions "$DISTINCT_SUBSCRIPTIONS" \
    --body-bytes "$BODY_BYTES" --secret "$SECRET" --run-id "$run_id" >/dev/null
  "$TOOL" deliveries --out "$W/warm.tsv" --count 2000 --body-bytes "$BODY_BYTES" --secret "$SECRET" --run-id "$(openssl rand -hex 4)" >/dev/null
  start_receiver receiver-distinct "$W/broker-distinct"
  # A warm-up with other deliveries, so the process and its broker connection are warm.
  "$TOOL" load --url "$RECEIVER_URL/api/webhooks/lemonsqueezy" --deliveries "$W/warm.tsv" --connections "$CONNECTIONS" >/dev/null
  DISTINCT=$("$TOOL" load --url "$RECEIVER_URL/api/webhooks/lemonsqueezy" --deliveries "$W/distinct.tsv" \
               --connections "$CONNECTIONS" --accepted-out "$W/distinct-accepted.txt")
  DISTINCT_HWM=$(hwm_mb "$(pid_of receiver-distinct)")
  stop_bg receiver-distinct
  DISTINCT_CHECK=$("$TOOL" topic-count --brokers "$RECEIVER_BROKERS" --ids "$W/distinct-accepted.txt" \
                     --expect "$(field accepted "$DISTINCT")")
  "$root/scripts/tansu.sh" stop "$W/broker-distinct" >/dev/null
  rm -rf "$W/broker-distinct"
  printf '    %s accepted of %s in %s s: %s/s, p50 %s ms, p99 %s ms (statuses %s, errors %s); topic: %s of the accepted ids missing\n' \
    "$(field accepted "$DISTINCT")" "$(field sent "$DISTINCT")" "$(field seconds "$DISTINCT")" "$(num "$(field accepted_per_second "$DISTINCT")")" \
    "$(field p50_ms "$DISTINCT")" "$(field p99_ms "$DISTINCT")" "$(field statuses "$DISTINCT")" "$(field errors "$DISTINCT")" \
    "$(field missing_ids "$DISTINCT_CHECK")"
  [ -n "${RSS[webhook-receiver]:-}" ] || note_rss webhook-receiver "$DISTINCT_HWM" "$DISTINCT_DELIVERIES distinct deliveries"
fi

# --- 2. projector: steady state through the gateway ----------------------------
if phase steady; then
  count=$(awk -v r="$STEADY_RATE" -v s="$STEADY_SECONDS" 'BEGIN { printf "%d", r * s }')
  say "==> steady state: $STEADY_RATE webhooks/s offered through the gateway for $STEADY_SECONDS s ($count deliveries, open loop, up to $STEADY_CONNECTIONS connections)"
  run_id=$(openssl rand -hex 4)
  "$TOOL" deliveries --out "$W/steady.tsv" --count "$count" --subscriptions "$(( count / 5 > 0 ? count / 5 : 1 ))" \
    --body-bytes "$BODY_BYTES" --secret "$SECRET" --run-id "$run_id" >/dev/null
  steady_procs=(webhook-receiver-1 subscription-projector-1 reconciler-1 gateway)
  declare -A s0
  for name in "${steady_procs[@]}"; do s0[$name]=$(cpu_ticks $(family "$(stack_pid "$name")")); done
  s0[postgres]=$(cpu_ticks $(pg_family)); s0[broker]=$(cpu_ticks "$(cat "$W/stack/tansu.pid" 2>/dev/null || echo 0)")
  steady_t0=$(date +%s.%N); sm0=$(machine_ticks)
  STEADY=$("$TOOL" load --url "$GATEWAY_URL/api/webhooks/lemonsqueezy" --deliveries "$W/steady.tsv" --rate "$STEADY_RATE" \
             --connections "$STEADY_CONNECTIONS" --visibility-db "$DATABASE_URL" --visibility-prefix "lemonsqueezy:$run_id-")
  printf '    accepted %s of %s offered (statuses %s, errors %s); client latency from the due time p50 %s ms, p99 %s ms; received -> visible p50 %s ms, p99 %s ms, max %s ms (%s of %s rows seen)\n' \
    "$(field accepted "$STEADY")" "$(field sent "$STEADY")" "$(field statuses "$STEADY")" "$(field errors "$STEADY")" \
    "$(field p50_ms "$STEADY")" "$(field p99_ms "$STEADY")" "$(field visible_p50_ms "$STEADY")" "$(field visible_p99_ms "$STEADY")" \
    "$(field visible_max_ms "$STEADY")" "$(field visible "$STEADY")" "$(field rows "$STEADY")"
  steady_t1=$(date +%s.%N); sm1=$(machine_ticks)
  STEADY_CPU=""
  for name in "${steady_procs[@]}"; do
    [ "$(stack_pid "$name")" != 0 ] || continue
    STEADY_CPU+="$name $(cores_used "${s0[$name]}" "$(cpu_ticks $(family "$(stack_pid "$name")"))" "$(awk -v a="$steady_t0" -v b="$steady_t1" 'BEGIN { print b - a }')"), "
  done
  STEADY_CPU+="postgres $(cores_used "${s0[postgres]}" "$(cpu_ticks $(pg_family))" "$(awk -v a="$steady_t0" -v b="$steady_t1" 'BEGIN { print b - a }')"), "
  STEADY_CPU+="broker $(cores_used "${s0[broker]}" "$(cpu_ticks "$(cat "$W/stack/tansu.pid" 2>/dev/null || echo 0)")" "$(awk -v a="$steady_t0" -v b="$steady_t1" 'BEGIN { print b - a }')"), "
  STEADY_CPU+="whole machine $(cores_used "$sm0" "$sm1" "$(awk -v a="$steady_t0" -v b="$steady_t1" 'BEGIN { print b - a }')") (load generator and other builds included)"
  say "    cores used while sending and draining ($(awk -v a="$steady_t0" -v b="$steady_t1" 'BEGIN { printf "%.1f", b - a }') s): $STEADY_CPU"
  note_rss "webhook-receiver (gateway)" "$(hwm_mb "$(stack_pid webhook-receiver-1)")" "$STEADY_RATE/s through the gateway"
  note_rss "subscription-projector (steady)" "$(hwm_mb "$(stack_pid subscription-projector-1)")" "$STEADY_RATE/s through the gateway"
fi

# --- 2. projector: catch-up vs COPY --------------------------------------------
if phase catchup; then
  say "==> projector catch-up: a backlog of $BACKLOG envelopes for $BACKLOG_SUBSCRIPTIONS subscriptions vs COPY of the same rows, $CATCHUP_ROUNDS alternating rounds"
  "$root/scripts/tansu.sh" start "$W/broker-backlog" >/dev/null
  BACKLOG_BROKERS=$(sed -n 's/^export KAFKA_BROKERS=//p' "$W/broker-backlog/kafka.env")
  migrate() { # database
    psql -q -X "$DATABASE_URL" -c "CREATE DATABASE $1" >/dev/null
    DATABASE_URL=$(db_url "$1") KAFKA_BROKERS=$BACKLOG_BROKERS LOG_LEVEL=warning "$BIN/storefront" migrate >>"$W/logs/migrate.log" 2>&1
  }
  migrate bench_catchup_1   # also creates the topics on the backlog broker
  BACKLOG_RESULT=$("$TOOL" backlog --brokers "$BACKLOG_BROKERS" --count "$BACKLOG" --subscriptions "$BACKLOG_SUBSCRIPTIONS" \
                     --body-bytes "$BACKLOG_BODY_BYTES" --run-id "$(openssl rand -hex 4)")
  printf '    backlog produced: %s records, mean record %s B (body %s B at the first), in %s s\n' "$(field records "$BACKLOG_RESULT")" \
    "$(field mean_record_bytes "$BACKLOG_RESULT")" "$(field mean_body_bytes "$BACKLOG_RESULT")" "$(field seconds "$BACKLOG_RESULT")"
  : >"$W/results/catchup"; : >"$W/results/copy"; : >"$W/results/catchup-cpu"; : >"$W/results/copy-cpu"
  projector_hwm=()
  for round in $(seq 1 "$CATCHUP_ROUNDS"); do
    db=bench_catchup_$round
    [ "$round" = 1 ] || migrate "$db"
    group=bench-catchup-$round-$(openssl rand -hex 3)
    port=$("$root/scripts/free-port.sh")
    started=$(date +%s.%N)
    PORT=$port HOST=127.0.0.1 LOG_LEVEL=$LOG_LEVEL DATABASE_URL=$(db_url "$db") KAFKA_BROKERS=$BACKLOG_BROKERS \
      OWNERSHIP_PROOF_KEY=$OWNERSHIP_PROOF_KEY ENTITLEMENT_SIGNING_KEY_FILE=$ENTITLEMENT_SIGNING_KEY_FILE KAFKA_GROUP_ID=$group KAFKA_CLIENT_ID=projector-catchup-$round start_bg "projector-catchup-$round" "$BIN/subscription-projector"
    ppid=$(pid_of "projector-catchup-$round") kpid=$(cat "$W/broker-backlog/tansu.pid")
    if [ "${BENCH_PERF:-0}" = 1 ] && [ "$round" = "$CATCHUP_ROUNDS" ] && command -v perf >/dev/null; then
      # The whole machine, not only the projector: PostgreSQL's backends do
      # most of a catch-up's work and are forked after this starts.
      perf record -a -g -o "$W/catchup.perf.data" -- sleep "$DURATION_S" >"$W/logs/perf-catchup.log" 2>&1 &
      KEEP=1
      say "    perf profile of the machine (first $DURATION_S s of round $round): perf report -g --comm postgres -i $W/catchup.perf.data (or --comm subscription-pr)"
    fi
    p0=$(cpu_ticks "$ppid"); g0=$(cpu_ticks $(pg_family)); q0=$(cpu_ticks "$kpid"); m0=$(machine_ticks); c0=$(date +%s.%N)
    c=$("$TOOL" catchup-wait --brokers "$BACKLOG_BROKERS" --group "$group" --expect "$BACKLOG" --database-url "$(db_url "$db")" \
          --started-at "$started" --timeout "$CATCHUP_TIMEOUT")
    p1=$(cpu_ticks "$ppid"); g1=$(cpu_ticks $(pg_family)); q1=$(cpu_ticks "$kpid"); m1=$(machine_ticks); c1=$(date +%s.%N)
    echo "$(us_per "$p0" "$p1" "$(field rows "$c")") $(us_per "$g0" "$g1" "$(field rows "$c")") $(us_per "$q0" "$q1" "$(field rows "$c")") $(others_cores "$m0" "$m1" "$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')" $((p1 - p0)) $((g1 - g0)) $((q1 - q0)))" >>"$W/results/catchup-cpu"
    catchup_cpu=$(tail -n 1 "$W/results/catchup-cpu" | awk '{ printf "projector %s us, PostgreSQL %s us, broker %s us; rest of the machine %s cores", $1, $2, $3, $4 }')
    projector_hwm+=("$(hwm_mb "$(pid_of "projector-catchup-$round")")")
    stop_bg "projector-catchup-$round"
    echo "$(field rate_apply "$c") $(field rate_total "$c") $(field seconds_total "$c") $(field seconds_to_first_commit "$c") $(field rows "$c") $(field complete "$c")" >>"$W/results/catchup"
    if [ "$round" = 1 ]; then
      # Every table the projector writes, not only the log: the baseline is
      # COPY of all the rows a catch-up leaves behind.
      mkdir -p "$W/copy"
      COPY_ROWS=0
      for table in $COPY_TABLES; do
        psql -q -X "$(db_url "$db")" -c "\\copy $table TO '$W/copy/$table'"
        COPY_ROWS=$((COPY_ROWS + $(wc -l <"$W/copy/$table")))
      done
      COPY_EVENTS=$(wc -l <"$W/copy/billing_events")
      COPY_MB=$(du -cm "$W/copy" | tail -n 1 | cut -f1)
    fi
    psql -q -X "$DATABASE_URL" -c "DROP DATABASE $db" >/dev/null
    migrate "bench_copy_$round"
    g0=$(cpu_ticks $(pg_family))
    t0=$(date +%s.%N)
    # One session, one transaction, as the projector's batches are; the
    # rate is per event (billing_events row) over the time for all tables.
    { echo "BEGIN;"; for table in $COPY_TABLES; do echo "\\copy $table FROM '$W/copy/$table'"; done; echo "COMMIT;"; } |
      psql -q -X -v ON_ERROR_STOP=1 "$(db_url "bench_copy_$round")"
    t1=$(date +%s.%N)
    g1=$(cpu_ticks $(pg_family))
    echo "$(us_per "$g0" "$g1" "$COPY_EVENTS")" >>"$W/results/copy-cpu"
    copied=$(psql -qtAX "$(db_url "bench_copy_$round")" -c "SELECT count(*) FROM billing_events")
    psql -q -X "$DATABASE_URL" -c "DROP DATABASE bench_copy_$round" >/dev/null
    copy_rate=$(awk -v n="$copied" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n / (b - a) }')
    echo "$copy_rate $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $copied" >>"$W/results/copy"
    printf '    round %d: projector %s events/s (applying; %s rows in %s s from start, first commit after %s s%s; CPU per event: %s), COPY %s events/s (%s in %s s; PostgreSQL %s us CPU per event)\n' "$round" \
      "$(num "$(field rate_apply "$c")")" "$(field rows "$c")" "$(field seconds_total "$c")" "$(field seconds_to_first_commit "$c")" \
      "$([ "$(field complete "$c")" = yes ] || echo ", INCOMPLETE after ${CATCHUP_TIMEOUT} s")" "$catchup_cpu" \
      "$(num "$copy_rate")" "$copied events, $COPY_ROWS rows in all" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" "$(us_per "$g0" "$g1" "$copied")"
  done
  "$root/scripts/tansu.sh" stop "$W/broker-backlog" >/dev/null
  rm -rf "$W/broker-backlog" "$W/copy"
  note_rss "subscription-projector (catch-up)" "$(max_of "${projector_hwm[@]}")" "catching up $BACKLOG envelopes (max of $CATCHUP_ROUNDS rounds)"
fi

note_rss checkout "$(hwm_mb "$(stack_pid checkout)")" "idle (no figure loads it)"
[ -f "$W/stack/pids/reconciler-1.pid" ] && note_rss reconciler "$(hwm_mb "$(stack_pid reconciler-1)")" "the stack's, through every phase (it follows the gateway's webhooks)"
LOAD_END=$(loadavg)

# --- summary --------------------------------------------------------------------------
col() { awk -v c="$1" '{ print $c }'; }
# " (N non-2xx or failed!)" when any round of a wrk figure had such answers, else nothing.
bad() { awk '{ n += $3 + $4 } END { if (n > 0) printf " (%d non-2xx or failed!)", n }' "$1"; }
say ""
say "================================================================================================================"
say "make bench — Storefront against its baselines, measured in this run (medians of alternating rounds; ratio = Storefront / baseline)"
say "  wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency --timeout $WRK_TIMEOUT, $WARMUP warm-up per target, $ROUNDS rounds; release build ($BIN)"
say "  machine: $cores cores shared by load generator, services, broker and database; load average $LOAD_START at the start, $LOAD_END at the end"
say "  stack (scripts/stack.sh, running throughout): $STACK_SERVICES; receivers and projectors of the bench's own on fresh brokers for the receiver and catch-up figures"
say "================================================================================================================"
line() { printf '%-56s | %-58s | %-42s | %s\n' "$@"; }
line "figure" "Storefront" "baseline" "ratio"
if phase receiver; then
  rps=$(col 1 <"$W/results/receiver" | median); p50=$(col 5 <"$W/results/receiver" | median); p99=$(col 6 <"$W/results/receiver" | median)
  nrps=$(col 1 <"$W/results/receiver-nginx" | median)
  line "receiver: verified LS webhook, 200 after ack (${STATIC_WEBHOOK_BYTES} B)" \
       "$(num "$rps") req/s, p50 $p50 ms, p99 $p99 ms$(bad "$W/results/receiver")" \
       "nginx static ${STATIC_WEBHOOK_BYTES} B file: $(num "$nrps") req/s$(bad "$W/results/receiver-nginx")" "$(ratio "$rps" "$nrps")"
  check=$(awk '{ ok += $1; rec += $2; if ($2 < $1) bad = 1 } END { printf "%s (%d answered 2xx, %d records in the topics)", bad ? "NO" : "yes", ok, rec }' "$W/results/receiver-check")
  line "  every 200 in the topic (count per round)" "$check" "" ""
  line "  CPU per verified webhook (median of rounds)" \
       "receiver $(col 1 <"$W/results/receiver-cpu" | median) us, broker $(col 2 <"$W/results/receiver-cpu" | median) us, wrk $(col 3 <"$W/results/receiver-cpu" | median) us" \
       "rest of the machine: $(col 4 <"$W/results/receiver-cpu" | median) cores" ""
  prps=$(col 1 <"$W/results/receiver-python" | median)
  line "receiver vs the Python receiver (same deliveries)" \
       "$(num "$rps") req/s, p99 $p99 ms" \
       "FastAPI+confluent-kafka, $PYTHON_WORKERS workers: $(num "$prps") req/s, p50 $(col 5 <"$W/results/receiver-python" | median) ms, p99 $(col 6 <"$W/results/receiver-python" | median) ms$(bad "$W/results/receiver-python")" \
       "$(ratio "$rps" "$prps")"
  pcheck=$(awk '{ ok += $1; rec += $2; if ($2 < $1) bad = 1 } END { printf "%s (%d answered 2xx, %d records in the topics)", bad ? "NO" : "yes", ok, rec }' "$W/results/receiver-python-check")
  line "  Python: every 200 in the topic; CPU per webhook" "$pcheck" \
       "workers $(col 1 <"$W/results/receiver-python-cpu" | median) us, broker $(col 2 <"$W/results/receiver-python-cpu" | median) us" ""
fi
if phase distinct; then
  line "receiver: $(num "$DISTINCT_DELIVERIES") distinct deliveries, $(num "$DISTINCT_SUBSCRIPTIONS") subscriptions" \
       "$(num "$(field accepted_per_second "$DISTINCT")") req/s, p50 $(field p50_ms "$DISTINCT") ms, p99 $(field p99_ms "$DISTINCT") ms" \
       "(storefront-bench load, c$CONNECTIONS, once each)" ""
  line "  every 200 in the topic (by webhook id)" \
       "$([ "$(field missing_ids "$DISTINCT_CHECK")" = 0 ] && echo yes || echo NO): $(field accepted "$DISTINCT") accepted, $(field missing_ids "$DISTINCT_CHECK") missing" "" ""
fi
if phase catchup; then
  crate=$(col 1 <"$W/results/catchup" | median); ctotal=$(col 3 <"$W/results/catchup" | median)
  copy=$(col 1 <"$W/results/copy" | median)
  line "projector: catch-up of $(num "$BACKLOG") envelopes" "$(num "$crate") events/s ($ctotal s from start)" \
       "COPY of the same rows into every table it writes: $(num "$copy") events/s" "$(ratio "$crate" "$copy")"
  line "  CPU per event (median of rounds)" \
       "projector $(col 1 <"$W/results/catchup-cpu" | median) us, PostgreSQL $(col 2 <"$W/results/catchup-cpu" | median) us, broker $(col 3 <"$W/results/catchup-cpu" | median) us" \
       "COPY: PostgreSQL $(median <"$W/results/copy-cpu") us per event" ""
  line "  rest of the machine during catch-up (median)" "$(col 4 <"$W/results/catchup-cpu" | median) cores (other builds, the idle stack, the bench's polling)" "" ""
fi
if phase steady; then
  line "projector: $STEADY_RATE webhooks/s offered via gateway, ${STEADY_SECONDS} s" \
       "accepted $(field accepted "$STEADY") of $(field sent "$STEADY") ($(field accepted_per_second "$STEADY")/s)" "offered: $(field sent "$STEADY")" \
       "$(ratio "$(field accepted "$STEADY")" "$(field sent "$STEADY")")"
  line "  client latency from due time" "p50 $(field p50_ms "$STEADY") ms, p99 $(field p99_ms "$STEADY") ms, max $(field max_ms "$STEADY") ms" "" ""
  line "  webhook received -> status visible (commit)" \
       "p50 $(field visible_p50_ms "$STEADY") ms, p99 $(field visible_p99_ms "$STEADY") ms, max $(field visible_max_ms "$STEADY") ms" "" ""
  line "  webhook received -> applied_at (transaction start)" \
       "p50 $(field applied_p50_ms "$STEADY") ms, p99 $(field applied_p99_ms "$STEADY") ms" "" ""
  say "  cores used during the steady run: $STEADY_CPU"
fi
if phase catalog; then
  crps=$(col 1 <"$W/results/catalog" | median); grps=$(col 1 <"$W/results/gateway" | median); nrps=$(col 1 <"$W/results/catalog-nginx" | median)
  line "catalog: GET /api/products ($PRODUCTS_BYTES B) direct" "$(num "$crps") req/s, p99 $(col 6 <"$W/results/catalog" | median) ms$(bad "$W/results/catalog")" \
       "nginx same bytes: $(num "$nrps") req/s$(bad "$W/results/catalog-nginx")" "$(ratio "$crps" "$nrps")"
  line "  CPU per GET /api/products (median of rounds)" "catalog $(col 1 <"$W/results/catalog-cpu" | median) us, wrk $(col 2 <"$W/results/catalog-cpu" | median) us" \
       "rest of the machine: $(col 3 <"$W/results/catalog-cpu" | median) cores" ""
  line "catalog: the same through the gateway" "$(num "$grps") req/s, p99 $(col 6 <"$W/results/gateway" | median) ms$(bad "$W/results/gateway")" \
       "nginx same bytes: $(num "$nrps") req/s" "$(ratio "$grps" "$nrps")"
fi
say ""
say "peak RSS (VmHWM from /proc) per service, under the load named:"
for service in catalog webhook-receiver "Python baseline receiver (a worker)" "webhook-receiver (gateway)" "subscription-projector (catch-up)" "subscription-projector (steady)" checkout reconciler; do
  [ -n "${RSS[$service]:-}" ] && printf '  %-36s %8s MB   %s\n' "$service" "${RSS[$service]}" "${RSS_LOAD[$service]}"
done
say ""
say "parameters:"
say "  webhook bodies ${WEBHOOK_BODY_RANGE:-$BODY_BYTES} B (BENCH_WEBHOOK_BODY_BYTES=$BODY_BYTES; Lemon Squeezy shapes padded with whitespace), X-Signature HMAC-SHA256 over the exact body"
phase receiver && say "  receiver: $WEBHOOK_DELIVERIES deliveries for $WEBHOOK_SUBSCRIPTIONS subscriptions cycled by a wrk Lua script, a fresh broker and receiver per round, 2xx vs records counted per round"
phase receiver && say "  Python baseline: scripts/bench_python_receiver.py, uvicorn --workers $PYTHON_WORKERS (uvloop, httptools), $(cd "$root/.vendor/bench-python" && bin/python -c 'import fastapi, uvicorn, confluent_kafka; print("FastAPI", fastapi.__version__, "uvicorn", uvicorn.__version__, "confluent-kafka", confluent_kafka.version(), "librdkafka", confluent_kafka.libversion()[0])'), librdkafka defaults but acks=all and idempotence; same deliveries, a fresh broker with the services' topics per round"
phase distinct && say "  distinct: $DISTINCT_DELIVERIES deliveries for $DISTINCT_SUBSCRIPTIONS subscriptions, each sent once by storefront-bench load over $CONNECTIONS keep-alive connections, after 2,000 warm-up deliveries"
phase catchup && say "  catch-up: $BACKLOG envelopes for $BACKLOG_SUBSCRIPTIONS subscriptions (bodies ${BACKLOG_BODY_BYTES/#0/natural size}), projector defaults, $CATCHUP_ROUNDS rounds, events/s from first to last commit;" \
  && say "    COPY: psql \\copy (text format, one transaction) of every table the projector wrote ($COPY_TABLES)${COPY_ROWS:+: $COPY_EVENTS events, $COPY_ROWS rows, ${COPY_MB} MB} into a fresh \`storefront migrate\`d database; events/s = billing_events rows / time for all tables"
phase steady && say "  steady: $STEADY_RATE/s for $STEADY_SECONDS s through the gateway, open loop, up to $STEADY_CONNECTIONS connections; visibility: pg_current_snapshot() sampled every 5 ms, row xmin vs received_at"
say "  services at LOG_LEVEL=$LOG_LEVEL (an access line per request at info), the static nginx with access_log $([ "$NGINX_ACCESS_LOG" = off ] && echo off || echo "on, a line per request"), PostgreSQL with fsync=off (scripts/pg.sh), Tansu memory storage. Raw wrk output: BENCH_KEEP_STATE=1, then $W/wrk.log."
