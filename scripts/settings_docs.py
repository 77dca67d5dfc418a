#!/usr/bin/env python3
"""The settings reference, generated from the binaries' declared settings.

    settings_docs.py collect FILE   read `--help-settings --format json` outputs (one JSON
                                    array per binary, concatenated) on stdin; write them to
                                    FILE as one array
    settings_docs.py write          rewrite docs/configuration.md's generated part from
                                    docs/settings.json
    settings_docs.py check          exit 1 when that part is stale (`make lint`)

scripts/settings-docs.sh runs all of it. The generated part lies between
BEGIN and END marker comments; everything around it is written by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_JSON = ROOT / "docs" / "settings.json"
CONFIGURATION = ROOT / "docs" / "configuration.md"
BEGIN = "<!-- BEGIN GENERATED: settings (scripts/settings-docs.sh; edit the Setting declarations, not this table) -->"
END = "<!-- END GENERATED: settings -->"


def collect(stream: str) -> list[dict]:
    """Every binary of the concatenated JSON arrays, in order."""
    decoder, binaries, index = json.JSONDecoder(), [], 0
    while index < len(stream):
        if stream[index].isspace():
            index += 1
            continue
        value, index = decoder.raw_decode(stream, index)
        binaries.extend(value)
    return binaries


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(binaries: list[dict]) -> str:
    """One table per setting group (the same group read by several binaries is shown
    once), then which binary reads which group."""
    groups: dict[str, list[dict]] = {}
    readers: dict[str, list[str]] = {}
    for binary in binaries:
        for group in binary["groups"]:
            if group["title"] in groups and groups[group["title"]] != group["settings"]:
                raise SystemExit(f"settings-docs: two different groups are called {group['title']!r}")
            groups[group["title"]] = group["settings"]
            readers.setdefault(group["title"], []).append(binary["binary"])
    lines = [BEGIN, ""]
    for title, settings in groups.items():
        lines += [f"### {title}", "", f"Read by: {', '.join(f'`{reader}`' for reader in readers[title])}.", "",
                  "| setting | default | meaning |", "| --- | --- | --- |"]
        for setting in settings:
            name = f"`{setting['name']}`" + (f" (or `{setting['file']}`)" if setting["file"] else "")
            if setting["required"]:
                default = "**required**"
            elif setting["default"] is None:
                default = "unset"
            else:
                default = f"`{cell(setting['default'])}`"
            secret = " Secret: never logged." if setting["secret"] else ""
            lines.append(f"| {name} | {default} | {cell(setting['summary'])}.{secret} |")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def rewritten(document: str, generated: str) -> str:
    if BEGIN not in document or END not in document:
        raise SystemExit(f"settings-docs: {CONFIGURATION.relative_to(ROOT)} has no BEGIN/END GENERATED markers")
    before, rest = document.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    return before + generated + after


def main() -> int:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "collect" and len(sys.argv) == 3:
        binaries = collect(sys.stdin.read())
        Path(sys.argv[2]).write_text(json.dumps(binaries, indent=2, ensure_ascii=False) + "\n")
        return 0
    if command in ("write", "check"):
        binaries = json.loads(SETTINGS_JSON.read_text())
        document = CONFIGURATION.read_text()
        expected = rewritten(document, render(binaries))
        if command == "write":
            CONFIGURATION.write_text(expected)
            return 0
        if expected != document:
            print(f"settings-docs: {CONFIGURATION.relative_to(ROOT)} is stale against {SETTINGS_JSON.relative_to(ROOT)}; "
                  "run scripts/settings-docs.sh", file=sys.stderr)
            return 1
        print("settings-docs: docs/configuration.md matches the declared settings")
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main())
