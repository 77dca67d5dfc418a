#!/usr/bin/env bash
# Benchmarks the Swift HTTPServer against nginx serving the same 2 KB JSON
# document, with the same wrk parameters, in one run. Prints requests/s for
# each, the Swift/nginx ratio and the Swift server's RSS.
# Usage: scripts/bench-http.sh   (env: THREADS=2 CONNECTIONS=64 DURATION=10s WARMUP=2s ROUNDS=3)
# The two servers take turns, ROUNDS times, and the medians are compared:
# on a shared 2-core machine one back-to-back pair varies by tens of percent.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
ROUNDS=${ROUNDS:-3}

if ! command -v wrk >/dev/null 2>&1; then
    echo "==> installing wrk"
    apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx not found: run scripts/install-deps.sh (installs nginx-light)" >&2; exit 1; }

echo "==> building http-bench-server (release)"
swift build -c release --product http-bench-server >/dev/null
SERVER_BIN=$(swift build -c release --show-bin-path)/http-bench-server

WORK=$(mktemp -d)
SWIFT_PID=""
NGINX_PID=""
cleanup() {
    [ -n "$SWIFT_PID" ] && kill "$SWIFT_PID" 2>/dev/null && wait "$SWIFT_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# One fixed document of exactly 2048 bytes, identical for both servers.
mkdir -p "$WORK/www"
python3 - "$WORK/www/bench.json" <<'PY'
import json, sys
items = [{"id": i, "sku": "SKU-%05d" % i, "name": "Product %d" % i, "price_cents": 1000 + i * 7, "in_stock": i % 3 != 0} for i in range(40)]
doc = {"success": True, "items": items}
text = json.dumps(doc, separators=(",", ":"))
while len(text.encode()) > 2048 - 12:
    items.pop(); text = json.dumps(doc, separators=(",", ":"))
doc["pad"] = ""
text = json.dumps(doc, separators=(",", ":"))
doc["pad"] = "x" * (2048 - len(text.encode()))
text = json.dumps(doc, separators=(",", ":"))
assert len(text.encode()) == 2048, len(text.encode())
open(sys.argv[1], "w").write(text)
PY

# Swift server on a free port (it prints the bound port).
"$SERVER_BIN" "$WORK/www/bench.json" 0 "$(nproc)" >"$WORK/swift.out" 2>"$WORK/swift.err" &
SWIFT_PID=$!
for _ in $(seq 1 100); do grep -q '^PORT ' "$WORK/swift.out" 2>/dev/null && break; sleep 0.05; done
SWIFT_PORT=$(awk '/^PORT /{print $2}' "$WORK/swift.out")
[ -n "$SWIFT_PORT" ] || { echo "swift server did not start:" >&2; cat "$WORK/swift.err" >&2; exit 1; }

# nginx with a private config: loopback, free port, static file, no access log.
NGINX_PORT=$(./scripts/free-port.sh)
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
"./scripts/static-nginx-conf.sh" "$WORK/nginx" "$NGINX_PORT" "$WORK/www" "$WORK/nginx/logs/error.log" >"$WORK/nginx/nginx.conf"
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" >"$WORK/nginx/stdout" 2>&1 &
NGINX_PID=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$NGINX_PORT/bench.json" -o /dev/null 2>/dev/null && break; sleep 0.05; done

# Both must serve the same bytes.
cmp <(curl -fsS "http://127.0.0.1:$SWIFT_PORT/bench.json") "$WORK/www/bench.json"
cmp <(curl -fsS "http://127.0.0.1:$NGINX_PORT/bench.json") "$WORK/www/bench.json"

run_wrk() {  # url duration -> prints requests/s
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" "$1" | tee -a "$WORK/wrk.log" | awk '/^Requests\/sec:/{print $2}'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "==> wrk -t$THREADS -c$CONNECTIONS -d$DURATION (after a $WARMUP warm-up), $ROUNDS alternating rounds, $(nproc) cores shared by client and server"
run_wrk "http://127.0.0.1:$SWIFT_PORT/bench.json" "$WARMUP" >/dev/null
run_wrk "http://127.0.0.1:$NGINX_PORT/bench.json" "$WARMUP" >/dev/null
: >"$WORK/swift.rps"; : >"$WORK/nginx.rps"
for round in $(seq 1 "$ROUNDS"); do
    s=$(run_wrk "http://127.0.0.1:$SWIFT_PORT/bench.json" "$DURATION"); echo "$s" >>"$WORK/swift.rps"
    n=$(run_wrk "http://127.0.0.1:$NGINX_PORT/bench.json" "$DURATION"); echo "$n" >>"$WORK/nginx.rps"
    printf '    round %d: swift %.0f req/s, nginx %.0f req/s\n' "$round" "$s" "$n"
done
SWIFT_RPS=$(median <"$WORK/swift.rps")
NGINX_RPS=$(median <"$WORK/nginx.rps")
SWIFT_RSS_KB=$(ps -o rss= -p "$SWIFT_PID" | tr -d ' ')
ERRORS=$(grep -c "Non-2xx\|Socket errors" "$WORK/wrk.log" || true)

printf 'swift  (HTTPServer/libmicrohttpd): %12.0f req/s (median)\n' "$SWIFT_RPS"
printf 'nginx  (static file)            : %12.0f req/s (median)\n' "$NGINX_RPS"
awk -v s="$SWIFT_RPS" -v n="$NGINX_RPS" 'BEGIN { printf "ratio swift/nginx               : %12.2f\n", s / n }'
printf 'swift server RSS after load     : %9.1f MB\n' "$(awk -v k="$SWIFT_RSS_KB" 'BEGIN { print k / 1024 }')"
[ "$ERRORS" = "0" ] || { echo "wrk reported errors or non-2xx responses:"; grep "Non-2xx\|Socket errors" "$WORK/wrk.log"; }
