#!/usr/bin/env bash
# `make chaos`: the fault suite, in two phases on one stack (as `make
# scale-demo`: 2 webhook receivers behind the gateway, 3 projectors in one
# group, the reconciler; here also a fault-injecting TCP proxy between the
# services and PostgreSQL, scripts/pg-blackhole-proxy.py).
#
# 1. Webhooks: signed Lemon Squeezy webhooks sent by the tool through the
#    gateway while, one after another, each once its share of the webhooks
#    was started and the previous fault recovered:
#      freeze    the Tansu broker is frozen (SIGSTOP) and continued (SIGCONT)
#      kill      one projector is killed with SIGKILL and a replacement started
#      postgres  PostgreSQL is restarted (same cluster, same port)
#      receiver  one webhook receiver gets SIGTERM, drains, and is started
#                again on its port (the gateway keeps using the other one)
#    The sender retries as Lemon Squeezy does: a webhook answered anything
#    but 2xx is tried again after 5 s, 25 s and 125 s, then given up on
#    (CHAOS_RETRY_SCHEDULE). Then PostgreSQL is checked against what the
#    provider considers delivered (answered 2xx): every webhook's event stored
#    exactly once in billing_events (dedup key lemonsqueezy:<meta.webhook_id>),
#    each payment once, every subscription in the state of its last event.
# 2. Providers: subscriptions bought in the provider sandbox, both providers
#    in turn (every third cancelled right after), so the sandbox itself signs
#    and delivers their webhooks on each provider's real retry schedule
#    (Lemon Squeezy 5 s, 25 s, 125 s; Paystack test mode hourly) and lists
#    them for the reconciler's sweep (every CHAOS_SWEEP_INTERVAL here), while:
#      brokerkill  the broker is SIGKILLed and started again, empty, on its
#                  port: everything it held is gone, only the sweep can bring
#                  back what was acknowledged and not yet projected
#      blackhole   the PostgreSQL proxy stops forwarding without closing a
#                  socket (a silent partition) for CHAOS_BLACKHOLE_SECONDS
#      race        CHAOS_RACE_SUBSCRIPTIONS recent subscriptions are cancelled
#                  and resumed at the provider at once (odd ones end cancelled,
#                  even ones active) while a projector is SIGKILLed and
#                  replaced: their webhooks race each other and the rebalance
#      commandrace  CHAOS_RACE_SUBSCRIPTIONS subscriptions (both providers)
#                  bought through Storefront's API, then cancelled and resumed
#                  through it at once while a projector is SIGKILLed and
#                  replaced: the checkout's commands race the webhooks
#      snapshotfirst  user A and user B (the same email) each open a checkout
#                  through the API; the sandbox holds back what A's produces,
#                  A pays, the sweep's snapshot is projected first, then the
#                  held webhooks are delivered late: A must own the purchase
#      outage      the broker is SIGKILLed and kept down for
#                  CHAOS_OUTAGE_SECONDS, longer than Lemon Squeezy's retries:
#                  the provider gives up, the sweep must recover it
#    After each fault it waits until every purchase made by the fault's end
#    is in PostgreSQL in the sandbox's status (the fault's recovery time);
#    at the end every purchase must be: 0 lost (a row absent or in another
#    status), 0 applied twice (more payments rows than charges).
# Prints what happened when (faults, 503s, retries, consumer lag, events
# applied per second), each fault's lost / applied twice / recovery time, the
# sandbox's delivery rate and outcomes, and the checks; exits non-zero if a
# check fails or a fault did not recover.
#
# Settings from the environment (defaults in brackets):
#   CHAOS_SUBSCRIPTIONS [5000]  CHAOS_EVENTS_PER_SUBSCRIPTION [10]  (50,000 webhooks)
#   CHAOS_RATE [500 webhooks started per second]  CHAOS_CONCURRENCY [64 in flight]
#   CHAOS_FAULTS [freeze@0.1,kill@0.3,postgres@0.45,receiver@0.6,freeze@0.75]
#       which faults of phase 1, in order, each at the share of webhooks started before it
#   CHAOS_FREEZE_SECONDS [30]       how long each freeze holds the broker
#   CHAOS_KILL_PROJECTOR [2]        which projector the kill takes (subscription-projector-N)
#   CHAOS_RESTART_RECEIVER [1]      which receiver is restarted (webhook-receiver-N)
#   CHAOS_RETRY_SCHEDULE [5,25,125] seconds between one webhook's attempts, then it is
#                                   given up on (Lemon Squeezy's); steady: a backoff up to
#                                   2 s until CHAOS_RETRY_DEADLINE (the old, kinder sender)
#   CHAOS_RETRY_DEADLINE [300 s]    how long one webhook is retried at most
#   CHAOS_RECOVERY_TIMEOUT [180 s]  longest wait for recovery before the next fault (both phases)
#   CHAOS_SETTLE_SECONDS [3]        recovered = lag at most one second of traffic (>= 50),
#                                   the group committing, for this long; and 2xx again
#   CHAOS_DRAIN_TIMEOUT [300 s]     longest wait, after sending, for PostgreSQL to hold everything (both phases)
#   CHAOS_PROVIDER_FAULTS [brokerkill,blackhole,race,commandrace,snapshotfirst,outage]  phase 2's faults in order; none skips phase 2
#   CHAOS_RACE_SUBSCRIPTIONS [20]   how many subscriptions the race cancels and resumes at once
#   CHAOS_PROVIDER_RATE [2]         sandbox purchases per second in phase 2 (each 3-4 webhooks)
#   CHAOS_PROVIDER_LEAD [15 s]      purchases before each phase-2 fault
#   CHAOS_PROVIDER_PROBE [200]      Lemon Squeezy purchases bought at once first, to time the
#                                   sandbox's webhook deliveries (0: none)
#   CHAOS_OUTAGE_SECONDS [170]      how long the outage keeps the broker down (> 155 s)
#   CHAOS_BLACKHOLE_SECONDS [30]    how long the PostgreSQL proxy forwards nothing
#   CHAOS_SANDBOX_RETRY_TIME_SCALE [1]  the sandbox's retry delays times this (1: real)
#   CHAOS_SWEEP_INTERVAL [10s]      the reconciler's sweep interval (and first sweep)
#   CHAOS_PROVIDER_BUDGET [6000]    the provider budgets per minute (the sandbox has no limit;
#                                   at the real 300 phase 1's 5,000 made-up subscriptions queue
#                                   targeted fetches that hold the sweep back for the whole run)
#   CHAOS_KEEP_STATE=1              keep the stack's logs (the folder is printed)
# Phase 2 is smaller than phase 1 on purpose: the sandbox sends one webhook at a
# time (its rate is printed), and the reconciler's sweep and fetches spend the
# providers' real request budgets.
# STOREFRONT_BIN names the built executables (default .build/debug; built if missing).
# The stack (scripts/stack.sh) makes its own OWNERSHIP_PROOF_KEY; phase 1's webhooks are signed with it.
# `make test` runs it small (Tests/ScaleDemoEndToEndTests: 2,000 webhooks, 8 s
# freezes; phase 2 at a tenth of the sandbox's retry delays with blackhole,
# race, commandrace and snapshotfirst; brokerkill and a 20 s outage in a test of their own:
# docs/testing-and-benchmarks.md).
set -euo pipefail
exec "$(cd "$(dirname "$0")" && pwd)/scale-demo.sh" chaos
