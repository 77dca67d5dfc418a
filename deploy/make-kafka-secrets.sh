#!/usr/bin/env bash
# Creates what deploy/kafka-sasl-ssl.yml mounts: a private CA, the broker's
# TLS key and certificate (for the host names kafka, kafka-2, kafka-3 and
# localhost) in a PKCS12 keystore, and one SASL user per Storefront client
# (and the operator's dead-letter replay) with a random password: PLAIN for
# deploy/kafka-sasl-ssl.yml, SCRAM-SHA-512 for deploy/kafka-cluster.yml.
# Never overwrites an existing file (delete the folder to start over; see
# deploy/README.md, "Broker TLS and SASL").
#
#   sudo deploy/make-kafka-secrets.sh
#
# deploy/secrets/kafka/broker/   the broker's (uid 1000 in apache/kafka): keystore,
#                                its password, the JAAS file with every user,
#                                the healthcheck's client settings; for the
#                                cluster: its own JAAS file (the broker user
#                                only), the admin client settings (SCRAM) and
#                                the clients' SCRAM credentials (scram_credentials)
# deploy/secrets/kafka/ca.pem    the CA certificate the clients trust
# deploy/secrets/kafka/password_<client>
#                                each client's own password (uid 10001)
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)/secrets/kafka
broker_uid=1000 storefront_uid=10001
clients=(migrate checkout webhook_receiver subscription_projector reconciler webhook_sender operator)
umask 077
mkdir -p "$dir/broker"
chmod 0700 "$dir/.." 2>/dev/null || true

if [ -e "$dir/broker/kafka.keystore.p12" ]; then
  echo "kept     kafka/broker/kafka.keystore.p12 (delete deploy/secrets/kafka to start over)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:3072 -nodes -days 3650 -subj "/CN=Storefront Kafka CA" \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey rsa:3072 -nodes -subj "/CN=kafka" -keyout "$work/broker.key" -out "$work/broker.csr" 2>/dev/null
printf 'subjectAltName=DNS:kafka,DNS:kafka-2,DNS:kafka-3,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$work/broker.ext"
openssl x509 -req -in "$work/broker.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 825 -extfile "$work/broker.ext" -out "$work/broker.pem" 2>/dev/null
openssl rand -hex 24 | tr -d '\n' >"$dir/broker/keystore_password"
openssl pkcs12 -export -name kafka -in "$work/broker.pem" -inkey "$work/broker.key" -certfile "$work/ca.pem" \
  -passout "file:$dir/broker/keystore_password" -out "$dir/broker/kafka.keystore.p12"
cp "$work/ca.pem" "$dir/broker/ca.pem"
cp "$work/ca.pem" "$dir/ca.pem"

# SASL/PLAIN users: the broker's own (inter-broker and the healthcheck) and one per client.
broker_password=$(openssl rand -hex 24)
{
  echo "KafkaServer {"
  echo "  org.apache.kafka.common.security.plain.PlainLoginModule required"
  echo "  username=\"broker\" password=\"$broker_password\""
  echo "  user_broker=\"$broker_password\""
  for client in "${clients[@]}"; do
    password=$(openssl rand -hex 24)
    printf '%s' "$password" >"$dir/password_$client"
    # The cluster's ACL job sets each client's SCRAM credential from this list.
    printf '%s %s\n' "$client" "$password" >>"$dir/broker/scram_credentials"
    echo "  user_$client=\"$password\""
  done
  echo "  ;"
  echo "};"
} >"$dir/broker/kafka_server_jaas.conf"
cat >"$dir/broker/healthcheck.properties" <<PROPERTIES
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="$broker_password";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/kafka/secrets/ca.pem
PROPERTIES

# The cluster (deploy/kafka-cluster.yml): clients log in with SCRAM-SHA-512, whose
# credentials live in the cluster's metadata (the broker's own is added when a node's
# storage is formatted, the clients' by the kafka-acls job), so its JAAS file names the
# broker user only: PLAIN on the controller listener (KRaft controllers cannot check
# SCRAM, whose credentials they hold), SCRAM between brokers.
cat >"$dir/broker/kafka_cluster_jaas.conf" <<JAAS
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
  username="broker" password="$broker_password"
  user_broker="$broker_password";
  org.apache.kafka.common.security.scram.ScramLoginModule required
  username="broker" password="$broker_password";
};
JAAS
printf '%s' "$broker_password" >"$dir/broker/broker_password"
cat >"$dir/broker/admin-scram.properties" <<PROPERTIES
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="$broker_password";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/kafka/secrets/ca.pem
PROPERTIES

chmod 0755 "$dir"
chmod 0700 "$dir/broker"
chmod 0400 "$dir"/broker/* "$dir"/password_*
chmod 0444 "$dir/ca.pem" "$dir/broker/ca.pem"
chown -R "$broker_uid:$broker_uid" "$dir/broker" 2>/dev/null || echo "warning: could not chown kafka/broker to $broker_uid (run as root)" >&2
chown "$storefront_uid:$storefront_uid" "$dir"/password_* 2>/dev/null || echo "warning: could not chown the client passwords to $storefront_uid (run as root)" >&2
echo "created  kafka/ca.pem, kafka/broker/ (keystore, JAAS, healthcheck), kafka/password_{$(IFS=,; echo "${clients[*]}")}"
