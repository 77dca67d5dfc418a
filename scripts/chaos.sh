#!/usr/bin/env bash
# `make chaos`: the fault suite. The whole stack as plain processes (as
# `make scale-demo`: 2 webhook receivers behind the gateway, 3 projectors in
# one group, the reconciler), then signed Lemon Squeezy webhooks through the
# gateway while, one after another, each once its share of the webhooks was
# started and the previous fault recovered:
#   freeze    the Tansu broker is frozen (SIGSTOP) and continued (SIGCONT)
#   kill      one projector is killed with SIGKILL and a replacement started
#   postgres  PostgreSQL is restarted (same cluster, same port)
#   receiver  one webhook receiver gets SIGTERM, drains, and is started again
#             on its port (the gateway keeps using the other one meanwhile)
# The sender behaves like a provider: a webhook answered anything but 2xx
# (503 while the broker is frozen) is retried with backoff until it is
# answered 2xx or CHAOS_RETRY_DEADLINE has passed. Then PostgreSQL is checked
# against what the providers consider delivered (answered 2xx): every
# webhook's event stored exactly once in billing_events (its dedup key is
# lemonsqueezy:<meta.webhook_id>), each payment once, every subscription in
# the state of the last event sent for it. Prints what happened when (faults,
# 503s, retries, consumer lag, events applied per second), each fault's
# recovery time, and the checks; exits non-zero if a check fails or a fault
# did not recover.
#
# Settings from the environment (defaults in brackets):
#   CHAOS_SUBSCRIPTIONS [5000]  CHAOS_EVENTS_PER_SUBSCRIPTION [10]  (50,000 webhooks)
#   CHAOS_RATE [500 webhooks started per second]  CHAOS_CONCURRENCY [64 in flight]
#   CHAOS_FAULTS [freeze@0.1,kill@0.3,postgres@0.45,receiver@0.6,freeze@0.75]
#       which faults, in order, each at the share of webhooks started before it
#   CHAOS_FREEZE_SECONDS [30]       how long each freeze holds the broker
#   CHAOS_KILL_PROJECTOR [2]        which projector the kill takes (subscription-projector-N)
#   CHAOS_RESTART_RECEIVER [1]      which receiver is restarted (webhook-receiver-N)
#   CHAOS_RETRY_DEADLINE [300 s]    how long one webhook is retried at most
#   CHAOS_RECOVERY_TIMEOUT [180 s]  longest wait for recovery before the next fault
#   CHAOS_SETTLE_SECONDS [3]        recovered = lag at most one second of traffic (>= 50),
#                                   the group committing, for this long; and 2xx again
#   CHAOS_DRAIN_TIMEOUT [300 s]     longest wait, after sending, for PostgreSQL to hold everything
#   CHAOS_KEEP_STATE=1              keep the stack's logs (the folder is printed)
# STOREFRONT_BIN names the built executables (default .build/debug; built if missing).
# The stack (scripts/stack.sh) makes its own OWNERSHIP_PROOF_KEY; the webhooks are signed with it.
# `make test` runs it small (Tests/ScaleDemoEndToEndTests: 2,000 webhooks, 5 s freezes).
set -euo pipefail
exec "$(cd "$(dirname "$0")" && pwd)/scale-demo.sh" chaos
