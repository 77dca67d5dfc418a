#!/usr/bin/env bash
# `make run`: installs what is missing, builds, starts the whole stack
# locally against the provider sandbox, waits until every /readyz is green,
# and prints the gateway URL, a dev token and a curl walk-through. Ctrl-C
# stops everything it started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

"$root/scripts/install-deps.sh"
echo "==> building (debug)"
swift build

state=$(mktemp -d /tmp/storefront-run.XXXXXX)
cleanup() {
  echo; echo "==> stopping everything"
  # A Prometheus started beside the stack (scripts/monitoring.sh up $state) goes too.
  "$root/scripts/monitoring.sh" down "$state" || true
  "$root/scripts/stack.sh" down "$state" || true
  rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

echo "==> starting PostgreSQL, the broker, the provider sandbox, the services and the gateway"
# stack.sh generates the stack's secrets, among them the OWNERSHIP_PROOF_KEY the
# checkout signs each checkout's custom data with and the projector checks.
"$root/scripts/stack.sh" up "$state"
# shellcheck disable=SC1091
. "$state/stack.env"
user_email=ada@example.com
# stack.env exported the stack's secret, issuer and audience; dev-token reads them.
token=$("$root/.build/debug/storefront" dev-token --sub app-user-1 --email "$user_email" --email-verified \
  --iss "$AUTH_JWT_ISSUER" --aud "$AUTH_JWT_AUDIENCE" --ttl 86400)

cat <<MSG

Storefront is up.
  gateway (the URL apps use):  $GATEWAY_URL
  web paywall (buy first):     $GATEWAY_URL/paywall  (no sign-in; after paying, the page shows the app's redemption link)
  app association file:        $GATEWAY_URL/.well-known/apple-app-site-association
  provider sandbox:            $SANDBOX_URL  (checkout pages, /_sandbox/deliveries)
  reconciler:                  ${RECONCILER_URLS%% *}/metrics  (snapshots, sweeps every 30 s)
  webhook-sender:              $WEBHOOK_SENDER_URL/metrics  (webhooks out: STOREFRONT_ADMIN_DATABASE_URL=$STOREFRONT_ADMIN_DATABASE_URL .build/debug/storefront endpoints add --url URL)
  PostgreSQL:                  $DATABASE_URL
  broker:                      $KAFKA_BROKERS
  logs:                        $state/logs/
  monitoring (optional):       scripts/monitoring.sh up $state   (Prometheus with the alert rules)
  dev token (sub app-user-1, $user_email (verified), iss $AUTH_JWT_ISSUER, aud $AUTH_JWT_AUDIENCE, valid 24 h):
    $token

Walk-through (copy and paste):

  TOKEN=$token
  # 1. list products (both providers)
  curl -s $GATEWAY_URL/api/products | python3 -m json.tool | head -40
  # 2. open a checkout for a subscription variant (pick a variantId from step 1)
  VARIANT=\$(curl -s $GATEWAY_URL/api/products | python3 -c 'import json,sys; d=json.load(sys.stdin)["products"]["data"]; print([p for p in d if p["attributes"].get("interval")][0]["variantId"])')
  curl -s -X POST $GATEWAY_URL/api/create-checkout -H "Authorization: Bearer \$TOKEN" \\
       -H 'Content-Type: application/json' -d "{\"customerEmail\":\"$user_email\",\"variantId\":\"\$VARIANT\"}"; echo
  # 3. pay: open checkoutUrl from step 2 in a browser and press Pay, or from the shell:
  URL=\$(curl -s -X POST $GATEWAY_URL/api/create-checkout -H "Authorization: Bearer \$TOKEN" \\
       -H 'Content-Type: application/json' -d "{\"customerEmail\":\"$user_email\",\"variantId\":\"\$VARIANT\"}" \\
       | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkoutUrl"])')
  curl -s -X POST "\${URL%%\?*}/pay" -o /dev/null -w '%{http_code}\n'
  # 4. the signed webhooks the sandbox delivered through the gateway
  curl -s $SANDBOX_URL/_sandbox/deliveries | python3 -m json.tool | head -40
  # 5. subscription status (active within a second or two), and the entitlements behind it
  curl -s $GATEWAY_URL/api/subscription/status -H "Authorization: Bearer \$TOKEN" | python3 -m json.tool
  curl -s $GATEWAY_URL/api/entitlements -H "Authorization: Bearer \$TOKEN" | python3 -m json.tool
  # 6. cancel it (subscription_code from step 5), then look again
  CODE=\$(curl -s $GATEWAY_URL/api/subscription/status -H "Authorization: Bearer \$TOKEN" | python3 -c 'import json,sys; print(json.load(sys.stdin)["subscription_code"])')
  curl -s -X POST $GATEWAY_URL/api/subscription/cancel -H "Authorization: Bearer \$TOKEN" \\
       -H 'Content-Type: application/json' -d "{\"subscription_code\":\"\$CODE\"}"; echo
  sleep 1   # the provider's webhook reaches the projection a moment later
  curl -s $GATEWAY_URL/api/subscription/status -H "Authorization: Bearer \$TOKEN" | python3 -m json.tool

Press Ctrl-C to stop everything.
MSG
# `wait` (unlike a foreground sleep) lets the INT/TERM trap run at once.
while true; do sleep 3600 & wait $!; done
