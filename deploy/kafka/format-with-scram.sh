#!/usr/bin/env bash
# The entrypoint of each cluster broker (deploy/kafka-cluster.yml): formats the
# node's storage with the broker user's SCRAM-SHA-512 credential, then runs the
# image's own start-up. Brokers talk to each other with SCRAM, whose credentials
# live in the cluster's metadata, so the broker's own must be there before the
# first broker starts: `kafka-storage.sh format --add-scram` (KIP-900) puts it
# in the bootstrap records. The image formats without it, and leaves a storage
# that is formatted already as it is, so this runs first. Idempotent: an
# existing storage is kept (--ignore-formatted); the clients' credentials come
# later, from the kafka-acls job (deploy/kafka/apply-acls.sh).
set -euo pipefail
password=$(cat /etc/kafka/secrets/broker_password)
# The format reads only these settings; the image renders the full file later.
properties=$(mktemp)
trap 'rm -f "$properties"' EXIT
cat >"$properties" <<PROPERTIES
process.roles=$KAFKA_PROCESS_ROLES
node.id=$KAFKA_NODE_ID
controller.quorum.voters=$KAFKA_CONTROLLER_QUORUM_VOTERS
controller.listener.names=$KAFKA_CONTROLLER_LISTENER_NAMES
listeners=$KAFKA_LISTENERS
listener.security.protocol.map=$KAFKA_LISTENER_SECURITY_PROTOCOL_MAP
inter.broker.listener.name=$KAFKA_INTER_BROKER_LISTENER_NAME
log.dirs=$KAFKA_LOG_DIRS
PROPERTIES
KAFKA_HEAP_OPTS=-Xmx128m /opt/kafka/bin/kafka-storage.sh format --ignore-formatted --cluster-id "$CLUSTER_ID" \
  --config "$properties" --add-scram "SCRAM-SHA-512=[name=broker,password=$password]"
exec /etc/kafka/docker/run
