#!/usr/bin/env bash
# A TLS-terminating proxy in front of the gateway, the topology
# deploy/README.md requires in production: a second nginx with a self-signed
# certificate made here with openssl (valid for 127.0.0.1, one day), which
# appends the client's address to X-Forwarded-For as load balancers do and
# connects to the gateway from 127.0.0.1 (proxy_bind), the address the tests
# give the gateway in GATEWAY_TRUSTED_PROXIES. Used by the end-to-end tests of
# the gateway's real client addresses (GatewayEdgeEndToEndTests).
#
#   tls-front.sh start DIR UPSTREAM   UPSTREAM: the gateway's host:port; listens on a
#                                     free loopback port, writes DIR/tls-front.env
#                                     (TLS_FRONT_URL, TLS_FRONT_CA: the certificate to trust)
#   tls-front.sh stop DIR             stop it (safe to repeat)
#
# TLS_FRONT_PID_FILE (default DIR/nginx.pid): where nginx writes its pid; the
# tests put it in their stack's pids/ folder, so that `stack.sh down` (and the
# stack's watchdog, should the test process die) stops the front too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: tls-front.sh start DIR UPSTREAM | stop DIR"
cmd=${1:?$usage}
dir=${2:?$usage}
pid_file=${TLS_FRONT_PID_FILE:-$dir/nginx.pid}

stop() {
  [ -f "$pid_file" ] || return 0
  local pid; pid=$(cat "$pid_file")
  kill -QUIT "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}

start() {
  local upstream=${1:?$usage}
  mkdir -p "$dir/tmp"
  # P-256 rather than RSA: generated in milliseconds.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>"$dir/openssl.log" \
    || { cat "$dir/openssl.log" >&2; return 1; }
  local port; port=$("$root/scripts/free-port.sh")
  cat >"$dir/nginx.conf" <<NGINX
daemon on;
worker_processes 1;
pid $pid_file;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log $dir/access.log;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $dir/cert.pem;
        ssl_certificate_key $dir/key.pem;
        location / {
            proxy_pass http://$upstream;
            proxy_bind 127.0.0.1;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto https;
        }
    }
}
NGINX
  local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
  "$nginx" -c "$dir/nginx.conf" -g "user $(id -un);" 2>>"$dir/error.log" || { cat "$dir/error.log" >&2; return 1; }
  for _ in $(seq 1 100); do
    if curl -s -o /dev/null --cacert "$dir/cert.pem" "https://127.0.0.1:$port/healthz"; then
      printf 'export TLS_FRONT_URL=https://127.0.0.1:%s\nexport TLS_FRONT_CA=%s\n' "$port" "$dir/cert.pem" >"$dir/tls-front.env"
      return 0
    fi
    sleep 0.1
  done
  echo "error: the TLS front on port $port did not answer; its log:" >&2
  cat "$dir/error.log" >&2
  stop
  return 1
}

case "$cmd" in
  start) start "${3:-}" ;;
  stop) stop ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
