#!/usr/bin/env python3
"""Docs that cannot drift: what the docs name exists, and what exists is documented.

    check_docs.py [--root DIR]   check; exit 1 on any finding (`make lint`)
    check_docs.py --self-test    plant one drift of each kind in a copy; each must be caught

The docs are README.md, CONTRIBUTING.md, deploy/README.md and docs/*.md. Checked:
  [make]     every `make TARGET` they name is a Makefile target, and every
             Makefile target is named in them;
  [cli]      every `storefront COMMAND` they name is a command of the operator
             tool (Tools/storefront/StorefrontCLIMain.swift), and every command
             is named in them;
  [topic]    every storefront.*.vN topic they name is one Shared/Domain/BillingModel/Topics.swift
             declares, and every declared topic is named in them;
  [setting]  every backticked UPPER_CASE variable they name is a declared setting
             (docs/settings.json) or a variable the tooling itself uses (named in
             scripts/, deploy/, Makefile, Dockerfile, docker-compose.yml or the
             test support); every declared setting is in docs/configuration.md;
  [metric]   every backticked metric name (ending in _total, _seconds, _bytes,
             _info or _bucket) is one docs/metrics.md lists (the list
             scripts/check_monitoring.py and MetricsExpositionTests keep equal
             to what the services publish);
  [count]    the webhook path's files with logic, as scripts/count_webhook_path.py
             derives them from the code, are no more than docs/architecture.md states.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

DOCS = ("README.md", "CONTRIBUTING.md", "deploy/README.md")
#: Where the tooling's own variables are named (anything here is a real variable, not a Storefront setting).
TOOLING = ("scripts", "deploy", "Makefile", "Dockerfile", "docker-compose.yml", "Tests/TestSupport", ".ci")
BACKTICKED = re.compile(r"`([^`\n]+)`")
VARIABLE = re.compile(r"^\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?(?:=.*)?$")
#: How a metric's name ends (docs/metrics.md's conventions); `_count`/`_sum` alone would also match libpq keywords.
METRIC_SUFFIXES = ("_total", "_seconds", "_bytes", "_info", "_bucket")
#: Variables the docs name that belong to other programs, with whose they are.
FOREIGN_VARIABLES = {
    "COMPOSE_FILE": "docker compose's own",
    "EX_CONFIG": "sysexits.h's name of exit code 78",
    "KAFKA_AUTHORIZER_CLASS_NAME": "the apache/kafka image's (an ACL setup the deploy guide describes)",
    "MALLOC_ARENA_MAX": "glibc's own (HeapPolicy leaves the arena cap to it when set)",
}
#: Names shaped like topics that are not topics, with what they are.
NOT_TOPICS = {
    "storefront.ownership-proof.v1": "the ownership proof's HMAC domain tag (OwnershipProof.domainTag)",
    "storefront.anonymous-checkout-proof.v1": "an anonymous checkout's proof's HMAC domain tag (OwnershipProof.anonymousDomainTag)",
}
COUNT_LINE = re.compile(r"<!-- webhook-path-files: (\d+) \(scripts/count_webhook_path\.py\) -->")


def doc_files(root: Path) -> list[Path]:
    files = [root / name for name in DOCS if (root / name).exists()]
    return files + sorted((root / "docs").glob("*.md"))


def makefile_targets(root: Path) -> set[str]:
    return set(re.findall(r"^([a-z][a-z0-9-]*):", (root / "Makefile").read_text(), re.MULTILINE))


def cli_commands(root: Path) -> set[str]:
    text = (root / "Tools/storefront/StorefrontCLIMain.swift").read_text()
    # `case "grant", "revoke":` names two commands.
    lists = re.findall(r'case ((?:"[a-z][a-z-]*",? ?)+)(?:,|:)', text)
    return {name for names in lists for name in re.findall(r'"([a-z][a-z-]*)"', names)}


def declared_topics(root: Path) -> set[str]:
    return set(re.findall(r'"(storefront\.[a-z][a-z-]*\.v\d+)"', (root / "Shared/Domain/BillingModel/Topics.swift").read_text()))


def declared_settings(root: Path) -> set[str]:
    binaries = json.loads((root / "docs/settings.json").read_text())
    names = set()
    for binary in binaries:
        for group in binary["groups"]:
            for setting in group["settings"]:
                names.add(setting["name"])
                if setting["file"]:
                    names.add(setting["file"])
    return names


def tooling_text(root: Path) -> str:
    parts = []
    for entry in TOOLING:
        path = root / entry
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
        for file in files:
            # The docs themselves, and this checker (its self-test names made-up variables), are no evidence.
            if file.suffix in (".md",) or file.name in ("settings.json", "check_docs.py"):
                continue
            try:
                parts.append(file.read_text(errors="replace"))
            except OSError:
                continue
    return "\n".join(parts)


def documented_metrics(root: Path) -> set[str]:
    text = (root / "docs/metrics.md").read_text()
    return set(re.findall(r"^\| `([a-z_:][a-z0-9_:]*)`", text, re.MULTILINE))


def check(root: Path) -> list[str]:
    errors: list[str] = []
    texts = {path.relative_to(root).as_posix(): path.read_text() for path in doc_files(root)}
    everything = "\n".join(texts.values())

    # [make]
    targets = makefile_targets(root)
    spans = BACKTICKED.findall(everything) + re.findall(r"```[a-z]*\n(.*?)```", everything, re.DOTALL)
    named_targets = set()
    for span in spans:
        named_targets |= set(re.findall(r"\bmake ([a-z][a-z0-9-]*)", span))
    for target in sorted(named_targets - targets):
        errors.append(f"[make] the docs name `make {target}`, which the Makefile does not have")
    for target in sorted(targets - named_targets):
        errors.append(f"[make] the Makefile target {target} is named nowhere in the docs")

    # [cli]
    commands = cli_commands(root)
    named_commands = set()
    for span in spans:
        named_commands |= set(re.findall(r"\bstorefront ([a-z][a-z-]*)", span))
    for command in sorted(named_commands - commands):
        errors.append(f"[cli] the docs name `storefront {command}`, which is not a command of the operator tool")
    for command in sorted(commands - named_commands - {"help"}):
        errors.append(f"[cli] `storefront {command}` is named nowhere in the docs")

    # [topic]
    topics = declared_topics(root)
    # Hyphens too: storefront.purchase-events.v1.
    named_topics = set(re.findall(r"\bstorefront\.[a-z][a-z-]*\.v\d+\b", everything)) - set(NOT_TOPICS)
    for topic in sorted(named_topics - topics):
        errors.append(f"[topic] the docs name {topic}, which Shared/Domain/BillingModel/Topics.swift does not declare")
    for topic in sorted(topics - named_topics):
        errors.append(f"[topic] {topic} is named nowhere in the docs")

    # [setting]
    settings = declared_settings(root)
    tooling = tooling_text(root)
    for where, text in texts.items():
        for span in BACKTICKED.findall(text):
            match = VARIABLE.match(span.strip())
            if not match:
                continue
            name = match.group(1)
            if name in settings or name in FOREIGN_VARIABLES or re.search(rf"\b{re.escape(name)}\b", tooling):
                continue
            errors.append(f"[setting] {where} names {name}, which no executable declares and no script uses")
    configuration = texts.get("docs/configuration.md", "")
    for name in sorted(settings):
        if f"`{name}`" not in configuration:
            errors.append(f"[setting] {name} is declared but docs/configuration.md does not show it (run scripts/settings-docs.sh)")

    # [metric]
    metrics = documented_metrics(root)
    for where, text in texts.items():
        if where == "docs/metrics.md":
            continue
        for span in BACKTICKED.findall(text):
            name = span.strip().split("{")[0]
            if not re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", name):
                continue
            if not name.endswith(METRIC_SUFFIXES):
                continue
            base = re.sub(r"_(bucket|sum|count)$", "", name)
            if name not in metrics and base not in metrics:
                errors.append(f"[metric] {where} names {name}, which docs/metrics.md does not list")

    # [count]
    counted = subprocess.run([sys.executable, str(root / "scripts/count_webhook_path.py"), "--root", str(root), "--check"],
                             capture_output=True, text=True)
    if counted.returncode != 0:
        errors.append(f"[count] {counted.stderr.strip()}")
    return errors


def self_test(root: Path) -> int:
    """Each planted drift, in a copy of the docs and their sources, must be caught by its rule."""
    plants = {
        "[setting] declared but not shown": (
            "docs/configuration.md", lambda text: "\n".join(line for line in text.split("\n") if "`CHECKOUT_EXPIRY`" not in line)),
        "[setting] shown but not declared": ("docs/operations.md", lambda text: text + "\nSet `CHECKOUT_NO_SUCH_SETTING=1`.\n"),
        "[make]": ("docs/operations.md", lambda text: text + "\nRun `make nosuchtarget`.\n"),
        "[cli]": ("docs/operations.md", lambda text: text + "\n`storefront nosuchcommand`\n"),
        "[topic]": ("docs/operations.md", lambda text: text + "\nstorefront.nosuchtopic.v1\n"),
        "[metric]": ("docs/operations.md", lambda text: text + "\n`storefront_nosuch_total`\n"),
        "[count]": ("docs/architecture.md", lambda text: COUNT_LINE.sub("<!-- webhook-path-files: 1 (scripts/count_webhook_path.py) -->", text)),
    }
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-docs.") as scratch:
        copy = Path(scratch) / "repo"
        _copy_tree(root, copy)
        clean = check(copy)
        if clean:
            failures.append("the unmodified copy must pass:\n    " + "\n    ".join(clean))
        for rule, (file, plant) in plants.items():
            original = (copy / file).read_text()
            (copy / file).write_text(plant(original))
            caught = [error for error in check(copy) if error.startswith(rule.split(" ")[0])]
            (copy / file).write_text(original)
            if not caught:
                failures.append(f"{rule}: a drift planted in {file} was not caught")
    for failure in failures:
        print(f"check-docs self-test: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"check-docs self-test: {len(plants)} planted drifts each caught")
    return 0


def _copy_tree(root: Path, copy: Path) -> None:
    """A copy of the docs and the tooling the checks read; the sources, which
    the plants never touch, are linked."""
    for entry in DOCS + TOOLING + ("docs",):
        source = root / entry
        if not source.exists():
            continue
        target = copy / entry
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("secrets", "__pycache__"), symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
    for name in ("Services", "Shared", "Tools"):
        (copy / name).symlink_to(root / name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=SCRIPTS.parent)
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test(arguments.root)
    errors = check(arguments.root)
    for error in errors:
        print(f"check-docs: {error}", file=sys.stderr)
    if errors:
        return 1
    print(f"check-docs: every make target, command, topic, setting and metric the docs name exists, and each is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
