#!/usr/bin/env python3
"""Every target declares exactly the package modules its files import.

SwiftPM's --explicit-target-dependency-import-check accepts a module that
is reachable through another dependency, so it lets an undeclared import
through; and nothing flags a declared dependency no file imports. This
reads the manifest (`swift package dump-package`, no build) and each
target's import lines, and fails on either. Only the package's own modules
count: Foundation, Testing, SwiftUI and the like are the toolchain's.
"""
import glob
import json
import re
import subprocess
import sys

IMPORT = re.compile(
    r"^(?:@testable\s+|@_exported\s+|@preconcurrency\s+|(?:internal|public|package|private|fileprivate)\s+)*"
    r"import\s+(?:(?:enum|struct|class|protocol|func|typealias|var|let)\s+)?(\w+)")


def imports_of(path):
    """Package-level import lines of every Swift file under `path` (column 0)."""
    found = set()
    for file in glob.glob(path + "/**/*.swift", recursive=True):
        with open(file, encoding="utf-8") as handle:
            for line in handle:
                match = IMPORT.match(line)
                if match:
                    found.add(match.group(1))
    return found


def main():
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    targets = {target["name"]: target for target in manifest["targets"]}
    problems = []
    for name, target in sorted(targets.items()):
        if target["type"] == "system":
            continue
        path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        imported = {module for module in imports_of(path) if module in targets and module != name}
        for module in sorted(imported - declared):
            problems.append(f"{name}: imports {module} but does not declare it in Package.swift")
        for module in sorted(declared - imported):
            problems.append(f"{name}: declares {module} but no file of it imports it")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-dependencies: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-dependencies: every target declares exactly what it imports ({len(targets)} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
