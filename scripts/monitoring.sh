#!/usr/bin/env bash
# Prometheus (Debian's package) watching a stack started by scripts/stack.sh
# (`make run`, the end-to-end tests), with the same alert rules as the
# compose monitoring profile (deploy/monitoring/prometheus/rules/).
#   monitoring.sh up STACK_DIR [PORT]   scrape the stack whose stack.env is in STACK_DIR;
#                                       writes STACK_DIR/monitoring/ (config, data, log, pid)
#                                       and prints Prometheus's URL
#   monitoring.sh down STACK_DIR        stops it by its recorded PID
# Settings: MONITORING_SCRAPE_INTERVAL (15s; also the rules' evaluation
# interval). Jobs are named as in compose (catalog, checkout, webhook-receiver,
# subscription-projector, reconciler, webhook-sender), one static target per replica, so
# the rules and the dashboards' queries read the same series. The stack must
# be running: its URLs come from stack.env. Grafana is not packaged here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: monitoring.sh up|down STACK_DIR [PORT]}
stack=${2:?usage: monitoring.sh up|down STACK_DIR [PORT]}
state="$stack/monitoring"

case "$cmd" in
up)
  command -v prometheus >/dev/null || { echo "error: prometheus not found (Debian package prometheus; scripts/install-deps.sh)" >&2; exit 1; }
  [ -f "$stack/stack.env" ] || { echo "error: $stack/stack.env is missing: start the stack with scripts/stack.sh up $stack" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$stack/stack.env"
  port=${3:-$("$root/scripts/free-port.sh")}
  interval=${MONITORING_SCRAPE_INTERVAL:-15s}
  mkdir -p "$state/data"
  targets() { # URLs separated by spaces -> a YAML list of host:port
    local out="" url
    for url in $1; do out+="${out:+, }\"${url#http://}\""; done
    printf '[%s]' "$out"
  }
  {
    printf 'global:\n  scrape_interval: %s\n  evaluation_interval: %s\n' "$interval" "$interval"
    printf 'rule_files:\n  - %s/deploy/monitoring/prometheus/rules/*.yml\n' "$root"
    printf 'scrape_configs:\n'
    for job in "catalog:$CATALOG_URL" "checkout:$CHECKOUT_URL" "webhook-receiver:$WEBHOOK_RECEIVER_URLS" \
      "subscription-projector:$PROJECTOR_URLS" "reconciler:$RECONCILER_URLS" "webhook-sender:${WEBHOOK_SENDER_URL:-}"; do
      name=${job%%:*} urls=${job#*:}
      [ -n "${urls// /}" ] || continue
      printf '  - job_name: %s\n    static_configs:\n      - targets: %s\n' "$name" "$(targets "$urls")"
    done
    printf '  - job_name: prometheus\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' "$port"
  } >"$state/prometheus.yml"
  promtool check config "$state/prometheus.yml" >/dev/null
  prometheus --config.file="$state/prometheus.yml" --storage.tsdb.path="$state/data" \
    --web.listen-address="127.0.0.1:$port" >"$state/prometheus.log" 2>&1 &
  echo $! >"$state/prometheus.pid"
  for _ in $(seq 1 100); do
    if curl --silent --fail --max-time 1 "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then
      echo "export PROMETHEUS_URL=http://127.0.0.1:$port" >"$state/monitoring.env"
      echo "Prometheus: http://127.0.0.1:$port (alerts: /alerts, targets: /targets)"
      exit 0
    fi
    kill -0 "$(cat "$state/prometheus.pid")" 2>/dev/null || break
    sleep 0.2
  done
  echo "error: Prometheus did not become ready; see $state/prometheus.log" >&2
  tail -n 20 "$state/prometheus.log" >&2 || true
  "$0" down "$stack" || true
  exit 1
  ;;
down)
  if [ -f "$state/prometheus.pid" ]; then
    pid=$(cat "$state/prometheus.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$state/prometheus.pid"
  fi
  ;;
*)
  echo "usage: monitoring.sh up|down STACK_DIR [PORT]" >&2
  exit 2
  ;;
esac
