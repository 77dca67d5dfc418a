#!/usr/bin/env bash
# Creates the secret files docker-compose.yml mounts, with random values,
# owners and modes the containers can read. Never overwrites an existing
# file (delete one to rotate it; see deploy/README.md).
#
#   deploy/make-secrets.sh          PostgreSQL passwords and passfiles (the
#                                   schema owner's, one per service and the
#                                   operators' read-only one), JWT
#                                   secret, ownership proof key, the
#                                   entitlement signing key pair
#   deploy/make-secrets.sh --demo   also provider keys for the sandbox demo
#
# Run as root (or with sudo): the files the Storefront containers read are
# owned by their user, uid 10001, because libpq ignores a passfile that group
# or others may read.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)/secrets
uid=10001
umask 077
# One folder per provider secret, each mounted only into the services that use it.
provider_folders="lemonsqueezy-api lemonsqueezy-webhook paystack stripe-api stripe-webhook"
for folder in $provider_folders; do mkdir -p "$dir/providers/$folder"; done
# The folder guards the files on the host; the provider folders are
# bind-mounted and the container user must be able to enter them.
chmod 0700 "$dir"
chmod 0755 "$dir/providers"
for folder in $provider_folders; do chmod 0755 "$dir/providers/$folder"; done

new() { # file mode owner value
  local file=$1 mode=$2 owner=$3 value=$4
  if [ -e "$file" ]; then echo "kept     ${file#"$dir"/}"; return; fi
  printf '%s' "$value" >"$file"
  chmod "$mode" "$file"
  chown "$owner" "$file" 2>/dev/null || echo "warning: could not chown ${file#"$dir"/} to $owner (run as root)" >&2
  echo "created  ${file#"$dir"/}"
}

if [ -e "$dir/postgres_password" ]; then
  password=$(cat "$dir/postgres_password")
else
  password=$(openssl rand -hex 24)   # hex: nothing to escape in pgpass
fi
# Read by the postgres image's entrypoint (root, then uid 999): world-readable
# inside the 0700 folder.
new "$dir/postgres_password" 0444 0:0 "$password"
new "$dir/pgpass" 0400 "$uid:$uid" "postgres:5432:storefront:storefront:$password"
# Each service's login user, the operators' read-only one (the cli service)
# and their admin one (the admin service); the db-users job sets these passwords.
for user in checkout subscription_projector reconciler webhook_sender operator admin; do
  new "$dir/pgpass_$user" 0400 "$uid:$uid" "postgres:5432:storefront:$user:$(openssl rand -hex 24)"
done
new "$dir/auth_jwt_secret" 0400 "$uid:$uid" "$(openssl rand -hex 32)"
# The checkout signs each checkout's user and checkout ids with it, the projector checks them.
new "$dir/ownership_proof_key" 0400 "$uid:$uid" "$(openssl rand -hex 32)"
# The keys it replaced, still accepted (empty until the first rotation).
new "$dir/ownership_proof_previous_keys" 0400 "$uid:$uid" ""
# The projector signs each entitlement change with the private key (P-256);
# the webhook-sender and the checkout hold only the public half, so they can
# check a change but never make one. A rotation appends the new public key to
# entitlement_verify_keys first (deploy/README.md, "Signed entitlement changes").
if [ ! -e "$dir/entitlement_signing_key" ]; then
  new "$dir/entitlement_signing_key" 0400 "$uid:$uid" "$(openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 2>/dev/null)"
else
  echo "kept     entitlement_signing_key"
fi
new "$dir/entitlement_verify_keys" 0444 "$uid:$uid" "$(openssl pkey -in "$dir/entitlement_signing_key" -pubout)"

if [ "${1:-}" = "--demo" ]; then
  # Any values work: the sandbox and the services read the same files.
  new "$dir/providers/lemonsqueezy-api/lemonsqueezy_api_key" 0400 "$uid:$uid" "ls_demo_$(openssl rand -hex 16)"
  new "$dir/providers/lemonsqueezy-webhook/lemonsqueezy_webhook_secret" 0400 "$uid:$uid" "$(openssl rand -hex 24)"
  new "$dir/providers/paystack/paystack_secret_key" 0400 "$uid:$uid" "sk_test_$(openssl rand -hex 20)"
  # Stripe's shapes: the services refuse a key that is not sk_test_/sk_live_.
  new "$dir/providers/stripe-api/stripe_secret_key" 0400 "$uid:$uid" "sk_test_$(openssl rand -hex 24)"
  new "$dir/providers/stripe-webhook/stripe_webhook_secret" 0400 "$uid:$uid" "whsec_$(openssl rand -hex 24)"
  # An App Store Connect API key's shape (P-256, PKCS#8 PEM, as Apple's .p8
  # files): the webhook-sender signs its reports with it, the sandbox's
  # emulated Apple checks them with its public half.
  new "$dir/providers/app-store-connect/app_store_connect_private_key" 0400 "$uid:$uid" \
    "$(openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 2>/dev/null)"
fi
