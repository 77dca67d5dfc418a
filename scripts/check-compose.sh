#!/usr/bin/env bash
# Checks docker-compose.yml without a Docker engine (`make check-compose`;
# also the first step of `make test`):
#   1. validates it against the Compose Specification's JSON schema
#      (check-jsonschema's bundled `vendor.compose-spec`);
#   2. proves that validation rejects a broken copy;
#   3. checks Storefront's own rules (scripts/check_compose.py), then runs
#      its self-test (each rule must catch a deliberately broken copy of the
#      file), so neither check can silently pass everything.
# The tools live in a venv under .vendor/compose-check, installed from the
# pinned, hash-checked scripts/requirements-compose-check.txt. Idempotent:
# with the venv in place this takes about a second.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compose=${1:-$root/docker-compose.yml}
requirements="$root/scripts/requirements-compose-check.txt"
venv="$root/.vendor/compose-check"

"$root/scripts/pinned-venv.sh" "$venv" "$requirements" check-jsonschema "the compose checker (check-jsonschema)"
python="$venv/bin/python"
# Through the venv's python, not its console script: a script's #! line holds
# the absolute path of the folder the venv was made in, which is wrong once
# .vendor is shared (a git worktree's .vendor linked to the main checkout's).
check_jsonschema() { "$python" -m check_jsonschema "$@"; }

scratch=$(mktemp -d /tmp/check-compose.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

echo "==> docker-compose.yml: Compose Specification schema"
check_jsonschema --builtin-schema vendor.compose-spec "$compose"

# The schema must reject what it should: a misspelt service key.
"$python" - "$compose" "$scratch/broken.yml" <<'PY'
import sys
text = open(sys.argv[1]).read()
marker = "\n  catalog:\n"
assert marker in text, "docker-compose.yml has no catalog service to break"
open(sys.argv[2], "w").write(text.replace(marker, marker + "    restart_policy: always\n", 1))
PY
if check_jsonschema --builtin-schema vendor.compose-spec "$scratch/broken.yml" >/dev/null 2>&1; then
  echo "error: the Compose Specification check accepted a file with an unknown service key" >&2
  exit 1
fi

echo "==> docker-compose.yml: Storefront's rules"
"$python" "$root/scripts/check_compose.py" --root "$root" --compose "$compose"
# The broker's TLS/SASL override: the schema on its own, the rules merged over the file.
override="$root/deploy/kafka-sasl-ssl.yml"
echo "==> deploy/kafka-sasl-ssl.yml: Compose Specification schema, then Storefront's rules merged over docker-compose.yml"
check_jsonschema --builtin-schema vendor.compose-spec "$override"
"$python" "$root/scripts/check_compose.py" --root "$root" --compose "$compose" --override "$override"
# The production broker (three KRaft brokers, SCRAM and ACLs): the schema on its own, the rules
# with the TLS override and it merged over the file, as it is run.
cluster="$root/deploy/kafka-cluster.yml"
echo "==> deploy/kafka-cluster.yml: Compose Specification schema, then Storefront's rules merged over docker-compose.yml and deploy/kafka-sasl-ssl.yml"
check_jsonschema --builtin-schema vendor.compose-spec "$cluster"
"$python" "$root/scripts/check_compose.py" --root "$root" --compose "$compose" --override "$override" --override "$cluster"
# Then prove the rules bite: the self-test breaks copies of this (passing) file.
"$python" "$root/scripts/check_compose.py" --root "$root" --compose "$compose" --self-test
