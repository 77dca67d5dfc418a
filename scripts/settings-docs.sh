#!/usr/bin/env bash
# Regenerates the settings reference from the declarations in Swift:
#   1. builds the executables and asks each for `--help-settings --format json`
#      (the storefront tool prints one list per command);
#   2. writes their lists, as one array, to docs/settings.json (checked in: the
#      compose check reads it, and SettingsDocsTests fails when it differs from
#      the declarations);
#   3. rewrites the generated part of docs/configuration.md from that file.
# After adding or changing a `Setting`, run this and commit what it changed.
#   scripts/settings-docs.sh           regenerate (builds first)
#   scripts/settings-docs.sh --check   only check that docs/configuration.md matches docs/settings.json (no build; `make lint`)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ "${1:-}" = "--check" ]; then
  exec python3 scripts/settings_docs.py check
fi
# Every executable that reads settings; a new one is added here.
binaries=(catalog checkout webhook-receiver subscription-projector reconciler webhook-sender provider-sandbox storefront)
for binary in "${binaries[@]}"; do swift build --quiet --product "$binary"; done
bin=$(swift build --show-bin-path)
for binary in "${binaries[@]}"; do
  "$bin/$binary" --help-settings --format json
done | python3 scripts/settings_docs.py collect docs/settings.json
python3 scripts/settings_docs.py write
