#!/bin/sh
# The `db-users` job of docker-compose.yml: creates (or updates) each
# service's PostgreSQL login user, the operators' read-only one (`operator`,
# for `storefront status` in the cli service) and their admin one (`admin`,
# for `storefront api-keys` and `storefront endpoints` in the admin service),
# and grants it its group role. The roles and
# their grants come from the migrations (`storefront migrate`, the `migrate`
# job, which runs first); this only makes the login users, so it runs as the
# schema owner (PGUSER, PGPASSFILE) and again after every password change.
#
# Each password is the fifth field of the service's own passfile
# (SECRETS_DIR/pgpass_<user>, host:port:database:user:password), the file the
# service itself hands libpq; psql reads it with \set, so it never appears on
# a command line or in a log.
set -eu
secrets=${SECRETS_DIR:-/run/secrets}
for entry in checkout:storefront_checkout subscription_projector:storefront_projector reconciler:storefront_reconciler webhook_sender:storefront_webhook_sender operator:storefront_readonly \
    admin:storefront_admin; do
  user=${entry%%:*}
  role=${entry#*:}
  file="$secrets/pgpass_$user"
  [ -r "$file" ] || { echo "db-users: cannot read $file (deploy/make-secrets.sh creates it)" >&2; exit 1; }
  psql -X -q -v ON_ERROR_STOP=1 -v user="$user" -v role="$role" -v file="$file" <<'SQL'
\set password `cut -d: -f5- :'file'`
SELECT format('CREATE ROLE %I LOGIN', :'user') WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = :'user') \gexec
SELECT format('ALTER ROLE %I LOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %L', :'user', :'password') \gexec
SELECT format('GRANT %I TO %I', :'role', :'user') WHERE NOT pg_has_role(:'user', :'role', 'MEMBER') \gexec
SQL
  echo "db-users: $user is a member of $role"
done
