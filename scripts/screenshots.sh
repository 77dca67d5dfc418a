#!/usr/bin/env bash
# Makes the README's pictures from a sandbox run; run by hand, never by
# `make test` (it needs Debian's chromium, which nothing else needs).
#   scripts/screenshots.sh [OUT_DIR]     default docs/images
# Starts a stack of its own on free ports (scripts/stack.sh), buys
# subscriptions of both providers through the gateway and the sandbox's
# hosted checkout as an app would, drives their lives through the
# sandbox's lifecycle controls (a trial that converts and one that does
# not, a cancel, a pause and unpause, a failed renewal, refunds, a
# dispute), then writes
#   OUT_DIR/revenue.svg               storefront report --by day --chart (this month)
#   OUT_DIR/prometheus-alerts.png     the local Prometheus's alerts page
#                                     (scripts/monitoring.sh), headless Chromium,
#                                     after the reconciler was stopped: its
#                                     StorefrontServiceDown alert pending
# and stops everything it started. Needs a build (swift build), and the
# Debian packages chromium and prometheus. SCREENSHOT_SIZE (1280,900) is the
# window Chromium renders.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "${1:-$root/docs/images}" 2>/dev/null && pwd || { mkdir -p "${1:-$root/docs/images}" && cd "${1:-$root/docs/images}" && pwd; })
bin=${STOREFRONT_BIN:-$root/.build/debug}
for tool in chromium prometheus curl python3; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (Debian package $tool)" >&2; exit 1; }
done
[ -x "$bin/storefront" ] || { echo "error: $bin/storefront is missing: run swift build first" >&2; exit 1; }

state=$(mktemp -d /tmp/storefront-screenshots.XXXXXX)
cleanup() {
  "$root/scripts/monitoring.sh" down "$state" >/dev/null 2>&1 || true
  "$root/scripts/stack.sh" down "$state" >/dev/null 2>&1 || true
  rm -rf "$state"
}
trap cleanup EXIT
STACK_FREE_PORTS=1 "$root/scripts/stack.sh" up "$state" >"$state/stack-up.log"
# shellcheck disable=SC1091
. "$state/stack.env"

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
settle() { curl -sf -X POST "$SANDBOX_URL/_sandbox/deliveries/settle" >/dev/null; }
control() { # provider subscription action [json]
  curl -sf -X POST -H 'Content-Type: application/json' -d "${4:-{\}}" "$SANDBOX_URL/_sandbox/$1/subscriptions/$2/$3" >/dev/null
  settle
}

curl -sf "$GATEWAY_URL/api/products" >"$state/products.json"
# The first subscription product of a provider, as "productId variantId".
product() {
  json "' '.join(next([p['id'], p['variantId']] for p in d['products']['data'] if p['attributes']['provider'] == '$1' and p['attributes'].get('interval')))" \
    <"$state/products.json"
}

# One app user buys a subscription of PROVIDER; TRIAL_DAYS (Lemon Squeezy)
# starts it in a trial. Prints its subscription code once the status shows it.
buy() { # provider user [trial_days]
  local provider=$1 user=$2 token ids url id code=""
  token=$(AUTH_JWT_SECRET=$AUTH_JWT_SECRET "$bin/storefront" dev-token --sub "$user" --email "$user@example.com" --email-verified)
  read -r -a ids <<<"$(product "$provider")"
  url=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"customerEmail\":\"$user@example.com\",\"productId\":\"${ids[0]}\",\"variantId\":\"${ids[1]}\"}" \
    "$GATEWAY_URL/api/create-checkout" | json "d['checkoutUrl']")
  id=${url%%\?*}
  id=${id##*/}
  curl -sf -X POST -H 'Content-Type: application/json' -d "{${3:+\"trial_days\":$3}}" \
    "$SANDBOX_URL/_sandbox/checkouts/$provider/$id/pay" >/dev/null
  settle
  for _ in $(seq 60); do
    code=$(curl -sf -H "Authorization: Bearer $token" "$GATEWAY_URL/api/subscription/status" | json "d.get('subscription_code') or ''")
    [ -n "$code" ] && break
    sleep 1
  done
  [ -n "$code" ] || { echo "error: $user's $provider subscription never showed" >&2; exit 1; }
  echo "$code"
}

ls1=$(buy lemonsqueezy report-ls-1)
ls2=$(buy lemonsqueezy report-ls-2)
ls3=$(buy lemonsqueezy report-ls-3)
ls4=$(buy lemonsqueezy report-ls-4 14)
ls5=$(buy lemonsqueezy report-ls-5 14)
ps1=$(buy paystack report-ps-1)
ps2=$(buy paystack report-ps-2)
ps3=$(buy paystack report-ps-3)
control lemonsqueezy "$ls2" cancel
control lemonsqueezy "$ls3" pause '{"mode":"void"}'
control lemonsqueezy "$ls3" unpause
control lemonsqueezy "$ls4" renew
control lemonsqueezy "$ls5" expire
control lemonsqueezy "$ls1" refund '{"amount":100}'
control paystack "$ps2" payment_failed
control paystack "$ps3" cancel
control paystack "$ps3" expire
control paystack "$ps1" refund '{"amount":50000}'
reference=$(curl -sf "$SANDBOX_URL/_sandbox/deliveries?provider=paystack&event=charge.success" \
  | json "next(json.loads(a['body'])['data']['reference'] for a in d['deliveries'])" 2>/dev/null || true)
if [ -n "$reference" ]; then
  curl -sf -X POST -H 'Content-Type: application/json' -d '{"action":"create"}' \
    "$SANDBOX_URL/_sandbox/paystack/transactions/$reference/dispute" >/dev/null && settle
fi
sleep 5 # the projectors' last batch

DATABASE_URL=$DATABASE_URL "$bin/storefront" report --by day --catalog "$state/products.json" --chart "$out/revenue.svg"

MONITORING_SCRAPE_INTERVAL=5s "$root/scripts/monitoring.sh" up "$state" >/dev/null
# shellcheck disable=SC1091
. "$state/monitoring/monitoring.env"
sleep 10 # every replica scraped and the rules evaluated while all are up
# One alert that is not quiet: the reconciler stops answering, so
# StorefrontServiceDown turns pending (it fires only after 2 minutes).
kill "$(cat "$state/pids/reconciler-1.pid")"
sleep 15
# Debian's prometheus ships the classic web UI only: /alerts is a 404 there.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000 \
  --window-size="${SCREENSHOT_SIZE:-1280,900}" --screenshot="$out/prometheus-alerts.png" "$PROMETHEUS_URL/classic/alerts" 2>"$state/chromium.log"
echo "wrote $out/revenue.svg and $out/prometheus-alerts.png"
