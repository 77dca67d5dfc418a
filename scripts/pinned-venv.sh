#!/usr/bin/env bash
# Usage: pinned-venv.sh VENV REQUIREMENTS EXECUTABLE WHAT
# Makes sure VENV holds exactly the wheels of REQUIREMENTS (every package
# pinned with its sha256: pip install --require-hashes --only-binary=:all:),
# rebuilding it when EXECUTABLE (a program the venv must provide, e.g.
# schemathesis) is missing or the requirements file changed since the last
# install. WHAT names the tool in the progress line. Idempotent: about a
# second when nothing changed. Used by check-compose.sh and fuzz-api.sh.
set -euo pipefail
venv=${1:?usage: pinned-venv.sh VENV REQUIREMENTS EXECUTABLE WHAT}
requirements=${2:?usage: pinned-venv.sh VENV REQUIREMENTS EXECUTABLE WHAT}
executable=${3:?usage: pinned-venv.sh VENV REQUIREMENTS EXECUTABLE WHAT}
what=${4:-$executable}
stamp="$venv/.requirements.sha256"

want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ -x "$venv/bin/$executable" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
echo "==> installing $what (pinned and hash-checked) into ${venv#"$(pwd)/"}"
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  # Debian ships venv's pip bootstrap separately.
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  else
    echo "error: python3 cannot create virtual environments; install python3-venv" >&2
    exit 1
  fi
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  --require-hashes --only-binary=:all: -r "$requirements"
echo "$want" >"$stamp"
