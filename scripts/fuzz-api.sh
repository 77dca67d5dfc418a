#!/usr/bin/env bash
# Fuzzes the API as apps and providers reach it: schemathesis generates
# requests from deploy/api/openapi.json (valid and invalid ones, boundary
# values, undeclared methods, missing or broken auth, chains of calls) and
# sends them to a live stack's gateway, started here on free ports
# (scripts/stack.sh) and stopped afterwards, also on failure or Ctrl-C.
#
# It fails when any answer is a 5xx, or does not conform to the document
# (status code, content type, headers, schema), or when a schema-valid
# request is refused / an invalid one accepted; when a forged webhook reached
# the webhooks topic (the receivers' `webhooks_received_total{result="published"}`
# may grow only by what the sandbox itself signed and delivered meanwhile: the
# fuzzer's cancel and resume calls make it send real webhooks), or when none
# of the fuzzer's webhooks was refused as unsigned (it never reached a receiver);
# and when one of the raw probes of scripts/fuzz_api.py (what an HTTP client
# library cannot send: oversized header blocks, malformed request lines,
# TRACE) is answered with anything but the API's JSON error.
#
# Two users: an owner (fuzz-owner, owner@example.com) and the fuzz user
# (fuzz-user, fuzz@example.com). Before fuzzing it buys one subscription per
# provider for each, so cancel, resume and the portal reach the providers with
# codes that exist; the fuzz user's requests draw subscription codes from both
# users' purchases and emails from both users. The run fails on any answer to
# the fuzz user that shows the owner's subscription codes, email, user id,
# email token or portal URLs (unless the request itself carried them:
# scripts/fuzz_api_hooks.py, a schemathesis check), and when the owner's
# purchases changed at the provider or in the owner's status answer (a cancel
# or resume by the fuzz user: fuzz_api.py owner, compared before and after).
# Issue 33's routes too (the stack runs with CHECKOUT_ANONYMOUS=on and
# APPLE_APP_IDS): it buys three purchases without a token and reads their
# redemption links off the completion page. The owner redeems the one paid
# with its email (the fuzz user, drawing that link, must get 409 and nothing
# else); one paid with a bystander's email (unclaimed@example.com) stays
# without an owner and its link is never shown to the fuzz user (after the run
# the bystander's verified email must still find it unowned); the fuzz user's
# own gives redeem its 200s. One anonymous user is merged into the owner
# (alias must answer the fuzz user 409) and one is the fuzz user's
# (fuzz_api.py seed-redemptions).
# Exceptions to schemathesis' checks, each with its reason:
# scripts/schemathesis.toml. What the runs found and how each was fixed:
# deploy/api/FUZZING.md.
#
# `make test` runs it bounded (scripts/test.sh, FUZZ_API_EXAMPLES=10);
# `make fuzz` runs it longer. Settings (defaults):
#   FUZZ_API_EXAMPLES   test cases per operation and phase (25)
#   FUZZ_API_SEED       hypothesis seed; the same seed replays the same run (20261201)
#   FUZZ_API_MAX_TIME   seconds for the whole schemathesis run (unset: until
#                       the examples are used up); with it, fuzzing repeats until spent
#   FUZZ_API_PHASES     examples,coverage,fuzzing,stateful
#   FUZZ_API_WORKERS    concurrent schemathesis workers (1)
#   FUZZ_API_REPORT     a folder to copy schemathesis' JSON and JUnit reports to
#   FUZZ_KEEP_STATE=1   keep the stack's folder (logs, reports) under /tmp
# schemathesis lives in a venv under .vendor/fuzz, installed from the pinned,
# hash-checked scripts/requirements-fuzz.txt (idempotent: about a second when
# it is in place). The services must be built (swift build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
requirements="$root/scripts/requirements-fuzz.txt"
venv="$root/.vendor/fuzz"
examples=${FUZZ_API_EXAMPLES:-25}
seed=${FUZZ_API_SEED:-20261201}
phases=${FUZZ_API_PHASES:-examples,coverage,fuzzing,stateful}
workers=${FUZZ_API_WORKERS:-1}
started=$(date +%s)

"$root/scripts/pinned-venv.sh" "$venv" "$requirements" schemathesis "the API fuzzer (schemathesis)"

for binary in storefront catalog checkout webhook-receiver subscription-projector reconciler provider-sandbox; do
  [ -x "${STOREFRONT_BIN:-$root/.build/debug}/$binary" ] || { echo "error: $binary is not built (run: swift build)" >&2; exit 1; }
done

state=$(mktemp -d /tmp/storefront-fuzz-api.XXXXXX)
cleanup() {
  "$root/scripts/stack.sh" down "$state" >/dev/null 2>&1 || true
  if [ "${FUZZ_KEEP_STATE:-0}" = 1 ]; then echo "==> kept $state"; else rm -rf "$state"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "==> fuzz-api: starting a stack on free ports"
# The gateway's per-address rate limit would answer most of the fuzzer's
# requests 429 (documented, but it tests nothing): lift it for this stack.
# No reconciler: it only talks to the sandbox and the broker, never to the API.
# Anonymous checkouts, the paywall and the association file are on, so they are
# fuzzed as served (the app ids are made up).
if ! STACK_FREE_PORTS=1 STACK_OWNER_PID=$$ GATEWAY_APP_RATE=100000r/s RECONCILER_REPLICAS=0 LOG_LEVEL=warning \
  CHECKOUT_ANONYMOUS=on APPLE_APP_IDS=ABCDE12345.com.example.storefront.fuzz APP_STORE_URL=https://apps.apple.com/app/id0000000000 \
  "$root/scripts/stack.sh" up "$state" >"$state/stack.out" 2>&1; then
  cat "$state/stack.out" >&2
  echo "error: the stack did not start (logs: $state/logs; FUZZ_KEEP_STATE=1 keeps them)" >&2
  exit 1
fi
# shellcheck disable=SC1091
. "$state/stack.env"
dev_token() { # subject email
  AUTH_JWT_SECRET=$AUTH_JWT_SECRET "${STOREFRONT_BIN:-$root/.build/debug}/storefront" dev-token --sub "$1" \
    --iss "$AUTH_JWT_ISSUER" --aud "$AUTH_JWT_AUDIENCE" --email "$2" --email-verified true --ttl 86400
}
owner_user=fuzz-owner owner_email=owner@example.com
owner_token=$(dev_token "$owner_user" "$owner_email")
token=$(dev_token fuzz-user fuzz@example.com)
bystander_email=unclaimed@example.com
python="$venv/bin/python"
helper="$root/scripts/fuzz_api.py"
# Real subscriptions (one per provider) for the owner and for the fuzz user, so
# cancel, resume and the portal also reach the provider with codes that exist:
# the fuzzer draws subscription_code from both users' purchases half the time.
"$python" "$helper" seed --gateway "$GATEWAY_URL" --token "$owner_token" >"$state/owner-subscriptions" || true
"$python" "$helper" seed --gateway "$GATEWAY_URL" --token "$token" >"$state/subscriptions" || true
# Purchases without an owner and anonymous users, for redeem, restore and alias
# (what it could not seed is left out of the file, and the check fails on it).
echo '{}' >"$state/redemptions.json"
echo "==> fuzz-api: seeded for issue 33's routes: $("$python" "$helper" seed-redemptions --gateway "$GATEWAY_URL" \
  --owner-token "$owner_token" --owner-email "$owner_email" --email fuzz@example.com --bystander-email "$bystander_email" \
  --out "$state/redemptions.json")"
owner_state() { # file
  "$python" "$helper" owner --gateway "$GATEWAY_URL" --sandbox "$SANDBOX_URL" --token "$owner_token" \
    --codes "$state/owner-subscriptions" --email "$owner_email" --user "$owner_user" \
    --redemptions "$state/redemptions.json" >"$1"
}
owner_state "$state/owner.before"
cp "$root/scripts/schemathesis.toml" "$state/schemathesis.toml"
echo "==> fuzz-api: the owner's subscription(s) $(tr '\n' ' ' <"$state/owner-subscriptions"); the fuzz user's $(tr '\n' ' ' <"$state/subscriptions")"
# The fuzz user draws both users' subscription codes and emails, the owner's
# redeemed link and its own, and both anonymous tokens, half the time each.
"$python" "$helper" dictionaries --subscriptions "$state/owner-subscriptions" "$state/subscriptions" \
  --emails "$owner_email" fuzz@example.com --redemptions "$state/redemptions.json" >>"$state/schemathesis.toml"
"$python" "$helper" metrics --sandbox "$SANDBOX_URL" $WEBHOOK_RECEIVER_URLS >"$state/metrics.before"

echo "==> fuzz-api: schemathesis, $examples example(s) per operation, seed $seed, phases $phases (ready after $(( $(date +%s) - started )) s)"
extra=()
[ -n "${FUZZ_API_MAX_TIME:-}" ] && extra+=(--max-time "$FUZZ_API_MAX_TIME")
# Run from the state folder: schemathesis and hypothesis write their caches
# into the working directory.
status=0
(
  cd "$state"
  SCHEMATHESIS_HOOKS="$root/scripts/fuzz_api_hooks.py" FUZZ_OWNER_SECRETS="$state/owner.before" \
  "$venv/bin/schemathesis" --config-file "$state/schemathesis.toml" run "$GATEWAY_URL/api/openapi.json" --url "$GATEWAY_URL" \
    --header "Authorization: Bearer $token" \
    --checks all \
    --max-examples "$examples" --seed "$seed" --phases "$phases" --workers "$workers" \
    --generation-database none --request-timeout 30 --no-color \
    --report json,junit --report-json-path "$state/report/report.json" --report-junit-path "$state/report/junit.xml" \
    "${extra[@]}"
) || status=$?

echo "==> fuzz-api: webhook publication, the owner's purchases and raw probes"
"$python" "$helper" metrics --sandbox "$SANDBOX_URL" $WEBHOOK_RECEIVER_URLS >"$state/metrics.after"
owner_state "$state/owner.after"
"$python" "$helper" check --gateway "$GATEWAY_URL" --before "$state/metrics.before" --after "$state/metrics.after" \
  --owner-before "$state/owner.before" --owner-after "$state/owner.after" \
  --bystander-token "$(dev_token fuzz-bystander "$bystander_email")" --redemptions "$state/redemptions.json" \
  --report "$state/report/report.json" --schemathesis-status "$status" || status=1

if [ -n "${FUZZ_API_REPORT:-}" ]; then mkdir -p "$FUZZ_API_REPORT"; cp -r "$state/report/." "$FUZZ_API_REPORT/"; fi
if [ "$status" -ne 0 ]; then
  echo "error: the API fuzz run failed (seed $seed; FUZZ_KEEP_STATE=1 keeps the stack's logs and reports)" >&2
  for log in "$state"/logs/*.log; do
    if grep -q '"level":"error"\|fatal\|panic' "$log" 2>/dev/null; then echo "--- $(basename "$log") (errors)"; grep '"level":"error"\|fatal\|panic' "$log" | tail -n 5; fi
  done >&2
fi
echo "==> fuzz-api: done in $(( $(date +%s) - started )) s"
exit "$status"
