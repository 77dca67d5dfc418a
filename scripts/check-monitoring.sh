#!/usr/bin/env bash
# Checks the monitoring files without a Prometheus or Grafana server
# (`make check-monitoring`; also an early step of `make test`), with
# `promtool` from Debian's prometheus package (scripts/install-deps.sh):
#   1. deploy/monitoring/prometheus/prometheus.yml (`promtool check config`,
#      with its rule_files pointed at the repository's rules, so they are
#      checked with it);
#   2. the alert rules (`promtool check rules`) and their unit tests
#      (`promtool test rules`, deploy/monitoring/prometheus/tests/);
#   3. the Grafana dashboards (scripts/check_monitoring.py: structure, data
#      source, every metric documented in docs/metrics.md), whose queries
#      promtool then parses as recording rules; and that both checks reject
#      a broken copy, so neither can silently pass everything.
# The services' own /metrics pages are checked with `promtool check metrics`
# by the end-to-end suite (Tests/EndToEndTests/MetricsExpositionTests.swift).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
monitoring="$root/deploy/monitoring"

command -v promtool >/dev/null || { echo "error: promtool not found (Debian package prometheus; scripts/install-deps.sh installs it)" >&2; exit 1; }

scratch=$(mktemp -d /tmp/check-monitoring.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

echo "==> prometheus.yml (promtool check config, with the rules)"
sed "s|/etc/prometheus/rules/|$monitoring/prometheus/rules/|" "$monitoring/prometheus/prometheus.yml" >"$scratch/prometheus.yml"
grep -q "$monitoring/prometheus/rules/" "$scratch/prometheus.yml" || { echo "error: prometheus.yml no longer loads /etc/prometheus/rules/" >&2; exit 1; }
promtool check config "$scratch/prometheus.yml"

echo "==> alert rules (promtool check rules, promtool test rules)"
promtool check rules "$monitoring"/prometheus/rules/*.yml
promtool test rules "$monitoring"/prometheus/tests/*.yml

echo "==> Grafana dashboards (structure, metrics, every query parsed by promtool)"
python3 "$root/scripts/check_monitoring.py" --rules-out "$scratch/dashboard-queries.yml"
promtool check rules "$scratch/dashboard-queries.yml" >/dev/null
python3 "$root/scripts/check_monitoring.py" --self-test
printf 'groups:\n  - name: broken\n    rules:\n      - record: broken:query\n        expr: sum by (job (up)\n' >"$scratch/broken.yml"
if promtool check rules "$scratch/broken.yml" >/dev/null 2>&1; then
  echo "error: promtool accepted a query that does not parse" >&2
  exit 1
fi
echo "monitoring files: OK"
