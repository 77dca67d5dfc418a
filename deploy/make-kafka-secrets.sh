#!/usr/bin/env bash
# Creates what deploy/kafka-sasl-ssl.yml mounts: a private CA, the broker's
# TLS key and certificate (for the host names kafka and localhost) in a
# PKCS12 keystore, and one SASL/PLAIN user per Storefront client with a
# random password. Never overwrites an existing file (delete the folder to
# start over; see deploy/README.md, "Broker TLS and SASL").
#
#   sudo deploy/make-kafka-secrets.sh
#
# deploy/secrets/kafka/broker/   the broker's (uid 1000 in apache/kafka): keystore,
#                                its password, the JAAS file with every user,
#                                the healthcheck's client settings
# deploy/secrets/kafka/ca.pem    the CA certificate the clients trust
# deploy/secrets/kafka/password_<client>
#                                each client's own password (uid 10001)
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)/secrets/kafka
broker_uid=1000 storefront_uid=10001
clients=(migrate checkout webhook_receiver subscription_projector reconciler webhook_sender)
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
printf 'subjectAltName=DNS:kafka,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$work/broker.ext"
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

chmod 0755 "$dir"
chmod 0700 "$dir/broker"
chmod 0400 "$dir"/broker/* "$dir"/password_*
chmod 0444 "$dir/ca.pem" "$dir/broker/ca.pem"
chown -R "$broker_uid:$broker_uid" "$dir/broker" 2>/dev/null || echo "warning: could not chown kafka/broker to $broker_uid (run as root)" >&2
chown "$storefront_uid:$storefront_uid" "$dir"/password_* 2>/dev/null || echo "warning: could not chown the client passwords to $storefront_uid (run as root)" >&2
echo "created  kafka/ca.pem, kafka/broker/ (keystore, JAAS, healthcheck), kafka/password_{$(IFS=,; echo "${clients[*]}")}"
