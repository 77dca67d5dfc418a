#!/usr/bin/env bash
# `make scale-demo`: the whole stack as plain processes (the reconciler
# included) with 2 webhook receivers behind the gateway and 3 projectors in
# one consumer group; 20,000
# signed Lemon Squeezy webhooks for 2,000 subscriptions through the gateway
# at a steady rate; one projector SIGKILLed midway and a fourth started; then
# PostgreSQL is checked against what was sent. Prints throughput, consumer
# lag over time and the rebalance time; exits non-zero if a check fails.
#
# Sizes come from the environment (defaults in brackets):
#   SCALE_DEMO_SUBSCRIPTIONS [2000]  SCALE_DEMO_EVENTS_PER_SUBSCRIPTION [10]
#   SCALE_DEMO_RATE [500 per second] SCALE_DEMO_CONCURRENCY [64]
#   SCALE_DEMO_KILL_PROJECTOR [2; 0 = no failover]  SCALE_DEMO_DRAIN_TIMEOUT [120 s]
#   SCALE_DEMO_KEEP_STATE=1 keeps the stack's logs (the folder is printed).
# STOREFRONT_BIN names the built executables (default .build/debug; built if missing).
# The webhooks' custom data carries the ownership proof the checkout would
# have made, under the stack's OWNERSHIP_PROOF_KEY (stack.sh writes it to
# stack.env, where the tool reads it), so every subscription has a proven owner.
# `scale-demo.sh chaos` is `make chaos` (settings: the header of scripts/chaos.sh);
# both start the same stack and drive it with the same tool.
set -euo pipefail
mode=${1:-scale}
case "$mode" in scale | chaos) ;; *) echo "usage: scale-demo.sh [scale|chaos]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${STOREFRONT_BIN:-$root/.build/debug}
export STOREFRONT_BIN=$bin

need_build=0
for exe in scale-demo subscription-projector webhook-receiver catalog checkout reconciler provider-sandbox; do
  [ -x "$bin/$exe" ] || need_build=1
done
if [ "$need_build" = 1 ]; then
  echo "==> building (debug)"
  (cd "$root" && swift build)
fi

if [ "$mode" = chaos ]; then keep=${CHAOS_KEEP_STATE:-0}; else keep=${SCALE_DEMO_KEEP_STATE:-0}; fi
state=$(mktemp -d "/tmp/storefront-$mode.XXXXXX")
cleanup() {
  "$root/scripts/stack.sh" down "$state" >/dev/null 2>&1 || true
  if [ "$keep" = 1 ]; then echo "==> stack logs kept in $state/logs"; else rm -rf "$state"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "==> starting the stack: 2 webhook receivers, 3 projectors ($state)"
started=$(date +%s)
stack_settings=()
if [ "$mode" = chaos ]; then
  # The provider phase: a PostgreSQL proxy to black-hole, the sandbox's retry
  # schedules at their real pace, and sweeps often enough to recover within a run.
  # The provider budgets at 100 calls a second (CHAOS_PROVIDER_BUDGET, per
  # minute; the sandbox sets no limit): phase 1's webhooks name 5,000 made-up
  # subscriptions the reconciler fetches in vain, and at the real 300 a minute
  # that queue of targeted fetches would hold the sweep back (it yields first)
  # for the whole provider phase, so a broker kill could never be recovered.
  stack_settings=(STACK_PG_PROXY=1
    SANDBOX_RETRY_TIME_SCALE="${CHAOS_SANDBOX_RETRY_TIME_SCALE:-1}"
    RECONCILER_SWEEP_INTERVAL="${CHAOS_SWEEP_INTERVAL:-10s}"
    RECONCILER_SWEEP_INITIAL_DELAY="${CHAOS_SWEEP_INTERVAL:-10s}"
    PROVIDER_BUDGET_LEMONSQUEEZY_PER_MINUTE="${CHAOS_PROVIDER_BUDGET:-6000}"
    PROVIDER_BUDGET_PAYSTACK_PER_MINUTE="${CHAOS_PROVIDER_BUDGET:-6000}"
    RECONCILER_LEMONSQUEEZY_REQUESTS_PER_MINUTE="${CHAOS_PROVIDER_BUDGET:-6000}"
    RECONCILER_PAYSTACK_REQUESTS_PER_MINUTE="${CHAOS_PROVIDER_BUDGET:-6000}")
fi
# STACK_OWNER_PID: should this script be killed outright, the stack stops itself.
if ! env "${stack_settings[@]}" STACK_OWNER_PID=$$ STACK_FREE_PORTS=1 WEBHOOK_RECEIVER_REPLICAS=2 PROJECTOR_REPLICAS=3 LOG_LEVEL=${LOG_LEVEL:-warning} \
    "$root/scripts/stack.sh" up "$state" >"$state/stack-up.out" 2>&1; then
  cat "$state/stack-up.out" >&2
  exit 1
fi
echo "==> stack up after $(( $(date +%s) - started )) s"

# shellcheck disable=SC1091
. "$state/stack.env"
if [ "$mode" = chaos ]; then
  args=(--mode chaos
    --subscriptions "${CHAOS_SUBSCRIPTIONS:-5000}"
    --events-per-subscription "${CHAOS_EVENTS_PER_SUBSCRIPTION:-10}"
    --rate "${CHAOS_RATE:-500}"
    --concurrency "${CHAOS_CONCURRENCY:-64}"
    --faults "${CHAOS_FAULTS:-freeze@0.1,kill@0.3,postgres@0.45,receiver@0.6,freeze@0.75}"
    --freeze-seconds "${CHAOS_FREEZE_SECONDS:-30}"
    --kill-projector "${CHAOS_KILL_PROJECTOR:-2}"
    --restart-receiver "${CHAOS_RESTART_RECEIVER:-1}"
    --retry-deadline "${CHAOS_RETRY_DEADLINE:-300}"
    --retry-schedule "${CHAOS_RETRY_SCHEDULE:-5,25,125}"
    --recovery-timeout "${CHAOS_RECOVERY_TIMEOUT:-180}"
    --settle-seconds "${CHAOS_SETTLE_SECONDS:-3}"
    --drain-timeout "${CHAOS_DRAIN_TIMEOUT:-300}"
    --provider-faults "${CHAOS_PROVIDER_FAULTS:-brokerkill,blackhole,race,commandrace,snapshotfirst,outage}"
    --race-subscriptions "${CHAOS_RACE_SUBSCRIPTIONS:-20}"
    --provider-rate "${CHAOS_PROVIDER_RATE:-2}"
    --provider-lead "${CHAOS_PROVIDER_LEAD:-15}"
    --provider-probe "${CHAOS_PROVIDER_PROBE:-200}"
    --outage-seconds "${CHAOS_OUTAGE_SECONDS:-170}"
    --blackhole-seconds "${CHAOS_BLACKHOLE_SECONDS:-30}")
else
  args=(--subscriptions "${SCALE_DEMO_SUBSCRIPTIONS:-2000}"
    --events-per-subscription "${SCALE_DEMO_EVENTS_PER_SUBSCRIPTION:-10}"
    --rate "${SCALE_DEMO_RATE:-500}"
    --concurrency "${SCALE_DEMO_CONCURRENCY:-64}"
    --kill-projector "${SCALE_DEMO_KILL_PROJECTOR:-2}"
    --drain-timeout "${SCALE_DEMO_DRAIN_TIMEOUT:-120}")
fi
"$bin/scale-demo" --state-dir "$state" --stack-script "$root/scripts/stack.sh" "${args[@]}"
