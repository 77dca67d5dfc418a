#!/usr/bin/env bash
# The cluster's kafka-acls job (deploy/kafka-cluster.yml): sets every client's
# SCRAM-SHA-512 credential from deploy/secrets/kafka/broker/scram_credentials
# (made by deploy/make-kafka-secrets.sh), then adds the ACLs of
# deploy/kafka/acls.txt, logged in as the broker user (the one super user).
# Idempotent: setting a credential again replaces it (that is how a password
# is rotated), and adding an ACL that exists changes nothing. It only adds:
# an ACL deleted from the table stays until removed with kafka-acls.sh --remove
# (deploy/README.md, "Broker ACLs").
#
# Runs in the apache/kafka image, with the broker's secrets at /etc/kafka/secrets
# and this folder at /etc/storefront-kafka; KAFKA_BOOTSTRAP names the brokers.
set -euo pipefail
secrets=/etc/kafka/secrets
table=${KAFKA_ACL_TABLE:-/etc/storefront-kafka/acls.txt}
bin=/opt/kafka/bin
admin=(--bootstrap-server "${KAFKA_BOOTSTRAP:?KAFKA_BOOTSTRAP names the brokers}" --command-config "$secrets/admin-scram.properties")
export KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xmx128m}

# The password goes through a file, so it never shows in a process list.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
while read -r user password; do
  [ -n "$user" ] || continue
  printf 'SCRAM-SHA-512=[iterations=8192,password=%s]\n' "$password" >"$scratch/credential"
  "$bin/kafka-configs.sh" "${admin[@]}" --alter --entity-type users --entity-name "$user" --add-config-file "$scratch/credential" >/dev/null
  echo "credential  $user"
done <"$secrets/scram_credentials"
rm -f "$scratch/credential"

while read -r principal operation resource pattern name; do
  case "$principal" in '' | '#'*) continue ;; esac
  case "$resource" in
    topic) target=(--topic "$name") ;;
    group) target=(--group "$name") ;;
    cluster) target=(--cluster) ;;
    *) echo "apply-acls: $table: unknown resource type $resource" >&2; exit 1 ;;
  esac
  "$bin/kafka-acls.sh" "${admin[@]}" --add --allow-principal "User:$principal" --operation "$operation" \
    --resource-pattern-type "$pattern" "${target[@]}" >/dev/null
  echo "acl         $principal $operation $resource $pattern $name"
done <"$table"
