#!/usr/bin/env bash
# Starts and stops the whole Storefront stack as plain processes: PostgreSQL,
# the Tansu broker, the provider sandbox, the services (the five of the
# purchase path and the webhook-sender) and the nginx gateway. Used by `make run`, the end-to-end tests and the scale demo.
#
#   stack.sh up STATE_DIR     start everything; writes STATE_DIR/stack.env
#   stack.sh down STATE_DIR   stop everything it started (safe to repeat)
#   stack.sh add-projector STATE_DIR
#                             start one more subscription-projector in a
#                             running stack (same settings as the others, a
#                             free port, the next free number); prints
#                             "subscription-projector-N URL" (scale demo)
#   stack.sh restart-receiver STATE_DIR [N]
#                             SIGTERM webhook-receiver-N (default 1), wait
#                             for it to drain and exit (SIGKILL after 30 s),
#                             start it again on the same port with the same
#                             settings, and return once it is ready (chaos)
#   stack.sh restart-webhook-sender STATE_DIR
#                             the same for the webhook-sender
#   stack.sh restart-postgres STATE_DIR
#                             stop and start the same PostgreSQL cluster on
#                             the same port, data kept (chaos)
#
# Ports come from the environment (defaults: docs/architecture.md, "Processes"): GATEWAY_PORT
# 8080, CATALOG_PORT 8081, CHECKOUT_PORT 8082, WEBHOOK_RECEIVER_PORT 8083,
# PROJECTOR_PORT 8084, RECONCILER_PORT 8085, WEBHOOK_SENDER_PORT 8086, SANDBOX_PORT 8090, PG_PORT
# 55432, KAFKA_PORT 19092. STACK_FREE_PORTS=1 picks free ports for all of
# them instead (tests). STACK_PG_PROXY=1 (chaos) puts a fault-injecting TCP
# proxy (scripts/pg-blackhole-proxy.py, pid in pids/pg-proxy.pid) between the
# services and PostgreSQL; migrations and stack.env's DATABASE_URL stay direct.
# WEBHOOK_RECEIVER_REPLICAS / PROJECTOR_REPLICAS / RECONCILER_REPLICAS start
# more than one of each (extra replicas take free ports; the gateway balances
# across receivers; RECONCILER_REPLICAS=0 starts none).
# The reconciler sweeps the sandbox often, for tests and demos:
# RECONCILER_SWEEP_INTERVAL (default 30s), RECONCILER_SWEEP_INITIAL_DELAY
# (5s), RECONCILER_COMMAND_DELAY (1s), and computes the revenue gauges every
# RECONCILER_REVENUE_INTERVAL (5s); any other RECONCILER_* setting in the
# environment reaches it as well.
# The webhook-sender retries fast, for tests (WEBHOOK_SENDER_RETRY_SCHEDULE,
# default 1s,1s,2s,2s,5s; the service's own default spans a day); any other
# WEBHOOK_SENDER_* setting in the environment reaches it as well. It reports
# external purchase tokens to the sandbox's emulated Apple every
# APP_STORE_REPORTS_INTERVAL (default 1s), signed with a fresh App Store
# Connect key per stack (STATE_DIR/keys/app-store-connect.p8), which the
# sandbox checks.
# The checkout accepts app tokens with iss AUTH_JWT_ISSUER (default
# storefront-dev) and aud AUTH_JWT_AUDIENCE (default storefront-app), the
# values `storefront dev-token` uses by default; it runs with
# STOREFRONT_MODE=test. All three land in STATE_DIR/stack.env, and so does
# OWNERSHIP_PROOF_KEY: a fresh random key per stack, given to the checkout
# (which signs each checkout's user and checkout ids in the provider's custom
# data) and to every projector (which checks them; add-projector reads it
# back from stack.env), so tools that publish webhooks of their own (the
# scale demo) can sign their custom data too.
# The entitlement changes' key pair: a fresh P-256 key per stack in
# STATE_DIR/keys/, the private key given to every projector only
# (ENTITLEMENT_SIGNING_KEY_FILE), the public key to the webhook-sender and
# the checkout (ENTITLEMENT_VERIFY_KEYS_FILE); stack.env names both files, so
# tests can sign a change as the projector does, or forge one.
# Least privilege, as in docker-compose.yml: `storefront migrate` applies the
# schema as the cluster's superuser (it also creates the services' group
# roles), then each service connects as its own login user
# (subscription_projector, checkout, reconciler: members of
# storefront_projector, storefront_checkout, storefront_reconciler), and each gets only the provider secrets it uses
# (catalog, checkout and the reconciler the API keys, the receivers the
# webhook secrets; Paystack signs webhooks with its API key, so both get
# that). stack.env keeps the superuser's DATABASE_URL (tests read and seed
# with it) and adds each service's URL.
# The gateway: GATEWAY_APP_RATE (default 50r/s) and GATEWAY_TRUSTED_PROXIES
# (default empty: nothing is in front of a local gateway, so X-Forwarded-For
# is ignored; the TLS-front tests set the front's address), as in README's
# gateway settings.
# STOREFRONT_BIN names the folder with the built executables (default
# .build/debug). The services log JSON to STATE_DIR/logs/<name>.log.
# STACK_OWNER_PID: when that process ends, the stack stops itself (tests set
# it to their own PID, so even a crashed test run leaves nothing behind).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: stack.sh up|down|add-projector|restart-receiver|restart-webhook-sender|restart-postgres STATE_DIR"
cmd=${1:?$usage}
state=${2:?$usage}
bin=${STOREFRONT_BIN:-$root/.build/debug}

port_for() { # name default
  if [ "${STACK_FREE_PORTS:-0}" = 1 ]; then "$root/scripts/free-port.sh"; else echo "$2"; fi
}

# A zombie (its parent gone, nobody reaping) still answers kill -0: count it as stopped.
alive() { kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

stop_pid_file() { # file
  [ -f "$1" ] || return 0
  local pid; pid=$(cat "$1")
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$1"
}

down() {
  [ -d "$state" ] || return 0
  # SIGKILL: a stack started by the test process inherits SIGTERM ignored, and
  # the watchdog would otherwise wait on until that process exits.
  if [ -f "$state/watchdog.pid" ]; then kill -KILL "$(cat "$state/watchdog.pid")" 2>/dev/null || true; rm -f "$state/watchdog.pid"; fi
  # Every process drains on its own: stop them all at once, not one by one.
  for f in "$state"/pids/*.pid; do [ -e "$f" ] && stop_pid_file "$f" & done
  wait
  "$root/scripts/tansu.sh" stop "$state" &
  "$root/scripts/pg.sh" stop "$state" &
  wait
}

wait_ready() { # name url
  # The process must stay alive while it gets ready: one that exits (its port
  # taken, say) fails the start at once, never a stranger on its port answering.
  local pid=""; [ -f "$state/pids/$1.pid" ] && pid=$(cat "$state/pids/$1.pid")
  for _ in $(seq 1 600); do
    if [ -n "$pid" ] && ! alive "$pid"; then
      echo "error: $1 exited while starting; last log lines:" >&2
      tail -n 20 "$state/logs/$1.log" >&2 || true
      return 1
    fi
    if curl -fsS -o /dev/null "$2" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "error: $1 did not become ready at $2; it answers:" >&2
  # The readiness report names the failing check; the log lines come after it.
  curl -sS --max-time 5 "$2" >&2 2>&1 || true
  echo >&2
  echo "last log lines (but the readiness probes' own):" >&2
  grep -v '"http.route":"/readyz"' "$state/logs/$1.log" | tail -n 20 >&2 || true
  return 1
}

start_process() { # name port command... (env comes from the caller)
  local name=$1 port=$2; shift 2
  [ -x "$1" ] || { echo "error: $1 is not built (run: swift build)" >&2; return 1; }
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "error: port $port for $name is already taken; set another port (see scripts/stack.sh)" >&2
    return 1
  fi
  PORT=$port HOST=127.0.0.1 "$@" >>"$state/logs/$name.log" 2>&1 &
  echo $! >"$state/pids/$name.pid"
}

# The sandbox's credentials: it accepts these keys and signs with them.
sandbox_ls_api_key=ls_test_sandbox_key
sandbox_ls_webhook_secret=ls_sandbox_webhook_secret
sandbox_ps_secret_key=sk_test_sandbox_secret
sandbox_stripe_secret_key=sk_test_sandbox_stripe
sandbox_stripe_webhook_secret=whsec_sandbox_stripe
# Each service is started with only the secrets it uses: none is exported,
# whatever the caller's environment or a sourced pg.env / stack.env holds.
secret_variables=(DATABASE_URL PROJECTOR_DATABASE_URL CHECKOUT_DATABASE_URL RECONCILER_DATABASE_URL WEBHOOK_SENDER_DATABASE_URL AUTH_JWT_SECRET
  LEMONSQUEEZY_API_KEY LEMONSQUEEZY_WEBHOOK_SECRET PAYSTACK_SECRET_KEY STRIPE_SECRET_KEY STRIPE_WEBHOOK_SECRET OWNERSHIP_PROOF_KEY
  AUTH_JWT_SECRET_FILE LEMONSQUEEZY_API_KEY_FILE LEMONSQUEEZY_WEBHOOK_SECRET_FILE PAYSTACK_SECRET_KEY_FILE STRIPE_SECRET_KEY_FILE
  STRIPE_WEBHOOK_SECRET_FILE OWNERSHIP_PROOF_KEY_FILE ENTITLEMENT_SIGNING_KEY ENTITLEMENT_SIGNING_KEY_FILE)
unexport_secrets() { export -n "${secret_variables[@]}"; }
with_api_keys() {
  LEMONSQUEEZY_API_KEY=$sandbox_ls_api_key PAYSTACK_SECRET_KEY=$sandbox_ps_secret_key STRIPE_SECRET_KEY=$sandbox_stripe_secret_key "$@"
}
with_webhook_secrets() {
  LEMONSQUEEZY_WEBHOOK_SECRET=$sandbox_ls_webhook_secret PAYSTACK_SECRET_KEY=$sandbox_ps_secret_key \
    STRIPE_WEBHOOK_SECRET=$sandbox_stripe_webhook_secret "$@"
}

# The login user of each service that uses PostgreSQL, and its group role;
# `admin` is the operators' (`storefront api-keys` and `endpoints`).
db_users=(subscription_projector:storefront_projector checkout:storefront_checkout reconciler:storefront_reconciler
  webhook_sender:storefront_webhook_sender admin:storefront_admin)
database_url_for() { # login user (needs PG_PORT from pg.env; PG_SERVICE_PORT: the chaos proxy's port)
  echo "postgresql://$1@127.0.0.1:${PG_SERVICE_PORT:-$PG_PORT}/postgres?application_name=$1"
}

# STACK_PG_PROXY=1: the services reach PostgreSQL through
# scripts/pg-blackhole-proxy.py (its pid in pids/pg-proxy.pid; SIGUSR1 makes
# it a black hole, SIGUSR2 forwards again), so `make chaos` can cut them off
# without closing a socket. Migrations and stack.env's DATABASE_URL stay direct.
start_pg_proxy() {
  [ "${STACK_PG_PROXY:-0}" = 1 ] || return 0
  local p; p=$("$root/scripts/free-port.sh")
  local python; python=$(command -v python3) || { echo "error: STACK_PG_PROXY=1 needs python3" >&2; return 1; }
  start_process pg-proxy "$p" "$python" "$root/scripts/pg-blackhole-proxy.py" "$p" "$PG_PORT"
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.1; done
  echo "export PG_SERVICE_PORT=$p" >"$state/pg-proxy.env"
  PG_SERVICE_PORT=$p
}

# The schema and roles (as the superuser), then one login user per service
# (pg.sh's cluster trusts loopback, so they need no password).
migrate_and_create_users() {
  DATABASE_URL=$DATABASE_URL KAFKA_BROKERS=$KAFKA_BROKERS LOG_LEVEL=warning \
    "$bin/storefront" migrate >>"$state/logs/migrate.log" 2>&1 \
    || { echo "error: storefront migrate failed; log:" >&2; cat "$state/logs/migrate.log" >&2; return 1; }
  local psql; psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | tail -n 1); psql=${psql:-psql}
  local sql="" pair
  for pair in "${db_users[@]}"; do sql+="CREATE ROLE ${pair%%:*} LOGIN IN ROLE ${pair##*:}; "; done
  "$psql" -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -c "$sql" >>"$state/logs/migrate.log" 2>&1 \
    || { echo "error: creating the services' database users failed; log:" >&2; cat "$state/logs/migrate.log" >&2; return 1; }
}

start_projector() { # name port (needs $ownership_proof_key and the key pair of make_signing_keys)
  DATABASE_URL=$(database_url_for subscription_projector) KAFKA_CLIENT_ID=$1 OWNERSHIP_PROOF_KEY=$ownership_proof_key \
    ENTITLEMENT_SIGNING_KEY_FILE="$(keys_dir)/entitlement-signing.pem" \
    start_process "$1" "$2" "$bin/subscription-projector"
}

# The projector signs each entitlement change with the private key; the
# webhook-sender and the checkout verify with the public one.
keys_dir() { echo "$(cd "$state" && pwd)/keys"; } # absolute: stack.env is read from anywhere
make_signing_keys() {
  mkdir -p "$state/keys"
  chmod 0700 "$state/keys"
  ( umask 077
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$state/keys/entitlement-signing.pem" 2>/dev/null )
  openssl pkey -in "$state/keys/entitlement-signing.pem" -pubout -out "$state/keys/entitlement-verify.pem"
  # An App Store Connect API key (P-256, PKCS#8, as Apple's .p8): the
  # webhook-sender signs its reports to Apple with it, the sandbox's emulated
  # Apple checks them with its public half.
  ( umask 077
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$state/keys/app-store-connect.p8" 2>/dev/null )
}
# The App Store Connect key's ids and the app, for the sandbox and the webhook-sender alike.
with_app_store_connect_key() {
  APP_STORE_CONNECT_ISSUER_ID=sandbox-issuer APP_STORE_CONNECT_KEY_ID=SANDBOXKEY APP_STORE_BUNDLE_ID=${APP_STORE_BUNDLE_ID:-com.example.storefront} \
    APP_STORE_CONNECT_PRIVATE_KEY_FILE="$(keys_dir)/app-store-connect.p8" "$@"
}

# Webhooks out, and the reports to the sandbox's Apple (retried after 1s, for tests).
start_sender() { # port sandbox-url (restart-webhook-sender has sourced stack.env)
  WEBHOOK_SENDER_RETRY_SCHEDULE=${WEBHOOK_SENDER_RETRY_SCHEDULE:-1s,1s,2s,2s,5s} WEBHOOK_SENDER_MIGRATE=false \
    KAFKA_CLIENT_ID=webhook-sender DATABASE_URL=$(database_url_for webhook_sender) \
    ENTITLEMENT_VERIFY_KEYS_FILE="$(keys_dir)/entitlement-verify.pem" \
    APP_STORE_REPORTS_BASE_URL=$2 APP_STORE_REPORTS_INTERVAL=${APP_STORE_REPORTS_INTERVAL:-1s} \
    APP_STORE_REPORTS_RETRY_SCHEDULE=${APP_STORE_REPORTS_RETRY_SCHEDULE:-1s} with_app_store_connect_key \
    start_process webhook-sender "$1" "$bin/webhook-sender"
}

start_receiver() { # number port (in a subshell: restart-receiver has sourced stack.env)
  ( unexport_secrets
    WEBHOOK_TRUST_FORWARDED_FOR=true with_webhook_secrets start_process "webhook-receiver-$1" "$2" "$bin/webhook-receiver" )
}

millis() { echo $(( $(date +%s%N) / 1000000 )); }
elapsed() { # since-millis -> seconds with one decimal
  local ms=$(( $(millis) - $1 )); printf '%d.%d' $(( ms / 1000 )) $(( ms % 1000 / 100 ))
}

up() {
  mkdir -p "$state/logs" "$state/pids" "$state/nginx"
  local gateway_port catalog_port checkout_port sandbox_port
  gateway_port=$(port_for gateway "${GATEWAY_PORT:-8080}")
  catalog_port=$(port_for catalog "${CATALOG_PORT:-8081}")
  checkout_port=$(port_for checkout "${CHECKOUT_PORT:-8082}")
  sandbox_port=$(port_for sandbox "${SANDBOX_PORT:-8090}")
  local receivers=${WEBHOOK_RECEIVER_REPLICAS:-1} projectors=${PROJECTOR_REPLICAS:-1}

  "$root/scripts/pg.sh" start "$state" "$(port_for pg "${PG_PORT:-55432}")"
  "$root/scripts/tansu.sh" start "$state" "$(port_for kafka "${KAFKA_PORT:-19092}")"
  # shellcheck disable=SC1091
  . "$state/pg.env"; . "$state/kafka.env"
  unexport_secrets
  start_pg_proxy

  local gateway="http://127.0.0.1:$gateway_port" sandbox="http://127.0.0.1:$sandbox_port"
  local jwt_secret; jwt_secret=$(openssl rand -hex 32)
  # The checkout signs ownership proofs with it, the projectors check them.
  ownership_proof_key=$(openssl rand -hex 32)
  make_signing_keys
  # App tokens must carry this issuer and audience (`storefront dev-token`
  # puts the same values in by default); override both from the environment.
  local jwt_issuer=${AUTH_JWT_ISSUER:-storefront-dev} jwt_audience=${AUTH_JWT_AUDIENCE:-storefront-app}
  # Behind the gateway every request comes from one address; the gateway caps per address.
  export HTTP_MAX_CONNECTIONS_PER_IP=0
  # The providers' settings that are not secrets (the secrets: with_api_keys,
  # with_webhook_secrets); DATABASE_URL per service (database_url_for).
  export LEMONSQUEEZY_STORE_ID=1
  export LEMONSQUEEZY_API_BASE_URL="$sandbox/lemonsqueezy" PAYSTACK_API_BASE_URL="$sandbox/paystack" STRIPE_API_BASE_URL="$sandbox/stripe"
  export LEMONSQUEEZY_TEST_MODE=true
  export KAFKA_BROKERS LOG_LEVEL=${LOG_LEVEL:-info}
  # What a service restarted later (restart-receiver) must get again: the
  # settings above and whatever service settings the caller exported.
  export -p | grep -E '^declare -x (HTTP_|WEBHOOK_|KAFKA_|LEMONSQUEEZY_|PAYSTACK_|STRIPE_|DATABASE_URL=|LOG_LEVEL=)' \
    | sed 's/^declare -x /export /' >"$state/services.env"

  SANDBOX_PORT=$sandbox_port SANDBOX_PUBLIC_URL=$sandbox \
    LEMONSQUEEZY_WEBHOOK_URL="$gateway/api/webhooks/lemonsqueezy" PAYSTACK_WEBHOOK_URL="$gateway/api/webhooks/paystack" \
    STRIPE_WEBHOOK_URL="$gateway/api/webhooks/stripe" STRIPE_WEBHOOK_SECRET=$sandbox_stripe_webhook_secret \
    SANDBOX_RETRY_TIME_SCALE=${SANDBOX_RETRY_TIME_SCALE:-0.01} \
    LEMONSQUEEZY_WEBHOOK_SECRET=$sandbox_ls_webhook_secret with_api_keys with_app_store_connect_key \
    start_process provider-sandbox "$sandbox_port" "$bin/provider-sandbox"
  wait_ready provider-sandbox "$sandbox/healthz"

  # The schema and the roles first, as the superuser; the projector (which
  # checks at start-up that the schema is current) before the others.
  migrate_and_create_users
  local projector_ports=() receiver_ports=()
  for i in $(seq 1 "$projectors"); do
    local p; if [ "$i" = 1 ]; then p=$(port_for projector "${PROJECTOR_PORT:-8084}"); else p=$("$root/scripts/free-port.sh"); fi
    projector_ports+=("$p")
    start_projector "subscription-projector-$i" "$p"
  done
  for i in "${!projector_ports[@]}"; do wait_ready "subscription-projector-$((i + 1))" "http://127.0.0.1:${projector_ports[$i]}/readyz"; done

  # The reconciler reads the sandbox as the other services do, and the
  # projection (read only) for its drift figures and revenue gauges.
  local reconciler_ports=()
  for i in $(seq 1 "${RECONCILER_REPLICAS:-1}"); do
    local p; if [ "$i" = 1 ]; then p=$(port_for reconciler "${RECONCILER_PORT:-8085}"); else p=$("$root/scripts/free-port.sh"); fi
    reconciler_ports+=("$p")
    RECONCILER_SWEEP_INTERVAL=${RECONCILER_SWEEP_INTERVAL:-30s} RECONCILER_SWEEP_INITIAL_DELAY=${RECONCILER_SWEEP_INITIAL_DELAY:-5s} \
      RECONCILER_COMMAND_DELAY=${RECONCILER_COMMAND_DELAY:-1s} RECONCILER_REVENUE_INTERVAL=${RECONCILER_REVENUE_INTERVAL:-5s} \
      KAFKA_CLIENT_ID="reconciler-$i" \
      DATABASE_URL=$(database_url_for reconciler) with_api_keys \
      start_process "reconciler-$i" "$p" "$bin/reconciler"
  done

  # Webhooks out: no provider secret; its own database user.
  local sender_port; sender_port=$(port_for webhook-sender "${WEBHOOK_SENDER_PORT:-8086}")
  start_sender "$sender_port" "$sandbox"

  with_api_keys start_process catalog "$catalog_port" "$bin/catalog"
  # STOREFRONT_MODE=test: the sandbox's keys are test keys (sk_test_…).
  AUTH_JWT_SECRET=$jwt_secret AUTH_JWT_ISSUER=$jwt_issuer AUTH_JWT_AUDIENCE=$jwt_audience STOREFRONT_MODE=test \
    OWNERSHIP_PROOF_KEY=$ownership_proof_key CHECKOUT_REDIRECT_URL="$gateway/checkout/complete" DATABASE_URL=$(database_url_for checkout) \
    CHECKOUT_ANONYMOUS=${CHECKOUT_ANONYMOUS:-on} APPLE_APP_IDS=${APPLE_APP_IDS:-ABCDE12345.com.example.storefront} \
    APP_STORE_URL=${APP_STORE_URL:-https://apps.apple.com/app/id000000000} CHECKOUT_TRUST_FORWARDED_FOR=true \
    APP_STORE_POLICY_FILE=${APP_STORE_POLICY_FILE:-$root/deploy/config/app-store-policy.json} \
    APP_STORE_BUNDLE_ID=${APP_STORE_BUNDLE_ID:-com.example.storefront} \
    ENTITLEMENT_VERIFY_KEYS_FILE="$(keys_dir)/entitlement-verify.pem" \
    with_api_keys start_process checkout "$checkout_port" "$bin/checkout"
  for i in $(seq 1 "$receivers"); do
    local p; if [ "$i" = 1 ]; then p=$(port_for receiver "${WEBHOOK_RECEIVER_PORT:-8083}"); else p=$("$root/scripts/free-port.sh"); fi
    receiver_ports+=("$p")
    start_receiver "$i" "$p"
  done

  # nginx gateway from the template shared with docker compose.
  local receiver_upstream="" ; for p in "${receiver_ports[@]}"; do receiver_upstream+="server 127.0.0.1:$p; "; done
  sed -e "s|\${CATALOG_UPSTREAM}|127.0.0.1:$catalog_port|" \
      -e "s|\${CHECKOUT_UPSTREAM}|127.0.0.1:$checkout_port|" \
      -e "s|server \${WEBHOOK_RECEIVER_UPSTREAM};|$receiver_upstream|" \
      -e "s|\${GATEWAY_LISTEN}|127.0.0.1:$gateway_port|" \
      -e "s|\${GATEWAY_APP_RATE}|${GATEWAY_APP_RATE:-50r/s}|" \
      -e "s|\${OPENAPI_FILE}|$root/deploy/api/openapi.json|" \
      "$root/deploy/nginx/gateway.conf.template" >"$state/nginx/gateway.conf"
  # The realip directives the template includes, beside nginx.conf (as the
  # nginx image's entrypoint writes them in compose). Nothing is in front of
  # the gateway here: empty by default, so clients cannot pick their address.
  GATEWAY_TRUSTED_PROXIES=${GATEWAY_TRUSTED_PROXIES:-} \
    "$root/deploy/nginx/trusted-proxies.sh" "$state/nginx/storefront-trusted-proxies.conf"
  # Workers, connections and file limit: the project's budget, as in compose.
  cat >"$state/nginx/nginx.conf" <<NGINX
include $root/deploy/nginx/limits.conf;
pid $state/nginx/nginx.pid;
error_log $state/logs/gateway.log warn;
http {
    access_log $state/logs/gateway-access.log;
    client_body_temp_path $state/nginx/body;
    proxy_temp_path $state/nginx/proxy;
    fastcgi_temp_path $state/nginx/fastcgi;
    uwsgi_temp_path $state/nginx/uwsgi;
    scgi_temp_path $state/nginx/scgi;
    include $state/nginx/gateway.conf;
}
NGINX
  local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
  "$nginx" -t -q -c "$state/nginx/nginx.conf" -g "user $(id -un);" 2>>"$state/logs/gateway.log" || { cat "$state/logs/gateway.log" >&2; return 1; }
  "$nginx" -c "$state/nginx/nginx.conf" -g "daemon off; user $(id -un);" >>"$state/logs/gateway.log" 2>&1 &
  echo $! >"$state/pids/gateway.pid"

  wait_ready catalog "http://127.0.0.1:$catalog_port/readyz"
  wait_ready checkout "http://127.0.0.1:$checkout_port/readyz"
  for i in "${!receiver_ports[@]}"; do wait_ready "webhook-receiver-$((i + 1))" "http://127.0.0.1:${receiver_ports[$i]}/readyz"; done
  for i in "${!reconciler_ports[@]}"; do wait_ready "reconciler-$((i + 1))" "http://127.0.0.1:${reconciler_ports[$i]}/readyz"; done
  wait_ready webhook-sender "http://127.0.0.1:$sender_port/readyz"
  wait_ready gateway "$gateway/healthz"

  if [ -n "${STACK_OWNER_PID:-}" ]; then
    (
      while kill -0 "$STACK_OWNER_PID" 2>/dev/null; do sleep 1; done
      rm -f "$state/watchdog.pid"
      [ -f "$state/stack.env" ] && "$root/scripts/stack.sh" down "$state"
    ) >/dev/null 2>&1 &
    echo $! >"$state/watchdog.pid"
  fi

  cat >"$state/stack.env" <<ENV
export GATEWAY_URL=$gateway
export SANDBOX_URL=$sandbox
export CATALOG_URL=http://127.0.0.1:$catalog_port
export CHECKOUT_URL=http://127.0.0.1:$checkout_port
export WEBHOOK_RECEIVER_URLS="$(printf 'http://127.0.0.1:%s ' "${receiver_ports[@]}")"
export PROJECTOR_URLS="$(printf 'http://127.0.0.1:%s ' "${projector_ports[@]}")"
export RECONCILER_URLS="$([ ${#reconciler_ports[@]} -gt 0 ] && printf 'http://127.0.0.1:%s ' "${reconciler_ports[@]}")"
export DATABASE_URL=$DATABASE_URL
export PROJECTOR_DATABASE_URL=$(database_url_for subscription_projector)
export CHECKOUT_DATABASE_URL=$(database_url_for checkout)
export RECONCILER_DATABASE_URL=$(database_url_for reconciler)
export WEBHOOK_SENDER_URL=http://127.0.0.1:$sender_port
export WEBHOOK_SENDER_DATABASE_URL=$(database_url_for webhook_sender)
export STOREFRONT_ADMIN_DATABASE_URL=postgresql://admin@127.0.0.1:$PG_PORT/postgres?application_name=storefront-admin
export KAFKA_BROKERS=$KAFKA_BROKERS
export AUTH_JWT_SECRET=$jwt_secret
export AUTH_JWT_ISSUER=$jwt_issuer
export AUTH_JWT_AUDIENCE=$jwt_audience
export OWNERSHIP_PROOF_KEY=$ownership_proof_key
export ENTITLEMENT_SIGNING_KEY_FILE=$(keys_dir)/entitlement-signing.pem
export ENTITLEMENT_VERIFY_KEYS_FILE=$(keys_dir)/entitlement-verify.pem
export STOREFRONT_MODE=test
export STACK_STATE=$state
ENV
}

add_projector() {
  [ -f "$state/stack.env" ] || { echo "error: no running stack in $state (run: stack.sh up $state)" >&2; return 1; }
  # shellcheck disable=SC1091
  . "$state/pg.env"; . "$state/kafka.env"
  # shellcheck disable=SC1091
  [ -f "$state/pg-proxy.env" ] && . "$state/pg-proxy.env"
  unexport_secrets
  export KAFKA_BROKERS LOG_LEVEL=${LOG_LEVEL:-info}
  # The stack's key, as the other projectors and the checkout have it.
  ownership_proof_key=$(sed -n 's/^export OWNERSHIP_PROOF_KEY=//p' "$state/stack.env")
  [ -n "$ownership_proof_key" ] || { echo "error: $state/stack.env has no OWNERSHIP_PROOF_KEY" >&2; return 1; }
  # Numbers are never reused (a killed projector keeps its log), so logs stay apart.
  local n=1; while [ -e "$state/logs/subscription-projector-$n.log" ]; do n=$((n + 1)); done
  local name="subscription-projector-$n" p; p=$("$root/scripts/free-port.sh")
  start_projector "$name" "$p"
  wait_ready "$name" "http://127.0.0.1:$p/readyz"
  sed -i "s|^export PROJECTOR_URLS=\"|&http://127.0.0.1:$p |" "$state/stack.env"
  echo "$name http://127.0.0.1:$p"
}

restart_receiver() { # number
  local n=${1:-1}
  local name="webhook-receiver-$n"
  [ -f "$state/stack.env" ] && [ -f "$state/services.env" ] \
    || { echo "error: no running stack in $state (run: stack.sh up $state)" >&2; return 1; }
  # shellcheck disable=SC1091
  . "$state/stack.env"
  local urls url
  read -r -a urls <<<"$WEBHOOK_RECEIVER_URLS"
  url=${urls[$((n - 1))]:-}
  [ "$n" -ge 1 ] && [ -n "$url" ] || { echo "error: the stack in $state has no $name" >&2; return 1; }
  # shellcheck disable=SC1091
  . "$state/services.env"
  local began; began=$(millis)
  stop_service "$name"
  echo "$name stopped after $(elapsed "$began") s"
  start_receiver "$n" "${url##*:}"
  wait_ready "$name" "$url/readyz"
  echo "$name $url ready after $(elapsed "$began") s"
}

stop_service() { # name: SIGTERM, SIGKILL after 30 s
  local name=$1
  [ -f "$state/pids/$name.pid" ] || return 0
  local pid; pid=$(cat "$state/pids/$name.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    echo "$name did not exit within 30 s of SIGTERM; SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$state/pids/$name.pid"
}

restart_sender() {
  [ -f "$state/stack.env" ] && [ -f "$state/services.env" ] \
    || { echo "error: no running stack in $state (run: stack.sh up $state)" >&2; return 1; }
  # shellcheck disable=SC1091
  . "$state/stack.env"; . "$state/services.env"; . "$state/pg.env"
  unexport_secrets
  local began; began=$(millis)
  stop_service webhook-sender
  echo "webhook-sender stopped after $(elapsed "$began") s"
  ( start_sender "${WEBHOOK_SENDER_URL##*:}" "$SANDBOX_URL" )
  wait_ready webhook-sender "$WEBHOOK_SENDER_URL/readyz"
  echo "webhook-sender ready after $(elapsed "$began") s"
}

restart_postgres() {
  [ -f "$state/pg.env" ] || { echo "error: no PostgreSQL in $state" >&2; return 1; }
  local began; began=$(millis)
  "$root/scripts/pg.sh" restart "$state"
  echo "postgres restarted in $(elapsed "$began") s"
}

case "$cmd" in
  up) up ;;
  down) down ;;
  add-projector) add_projector ;;
  restart-receiver) restart_receiver "${3:-1}" ;;
  restart-webhook-sender) restart_sender ;;
  restart-postgres) restart_postgres ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
