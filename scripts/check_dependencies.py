#!/usr/bin/env python3
"""Every target declares exactly the package modules its files import.

SwiftPM's --explicit-target-dependency-import-check accepts a module that
is reachable through another dependency, so it lets an undeclared import
through; and nothing flags a declared dependency no file imports. This
reads the manifest (`swift package dump-package`, no build) and each
target's import lines, and fails on either. Only the package's own modules
count: Foundation, Testing, SwiftUI and the like are the toolchain's.

It also holds the layers (docs/architecture.md, "Layers"), read from each
target's folder: the platform (Shared/Platform) imports only the platform;
each C library (Shared/Platform/C) is imported by one platform module (tests
aside); the domain (Shared/Domain) imports the platform and the domain; the
SDK (SDK/) imports none of the package; a service's targets import the two
layers and their own service folder's targets, never another service's.
Tools and tests may import anything but a test target.
"""
import glob
import os
import json
import re
import subprocess
import sys

IMPORT = re.compile(
    r"^(?:@testable\s+|@_exported\s+|@preconcurrency\s+|(?:internal|public|package|private|fileprivate)\s+)*"
    r"import\s+(?:(?:enum|struct|class|protocol|func|typealias|var|let)\s+)?(\w+)")


def files_of(target, path):
    """A target's Swift files: under `path`, or under each of its `sources` when it lists them
    (a domain module takes a subfolder of each provider's folder, see Package.swift), but not
    under its excluded folders (a nested target's own files)."""
    roots = [f"{path}/{source}" for source in target.get("sources") or []] or [path]
    skipped = tuple(path.rstrip("/") + "/" + folder.strip("/") + "/" for folder in target.get("exclude") or [])
    files = set()
    for root in roots:
        found = glob.glob(root + "/**/*.swift", recursive=True) if os.path.isdir(root) else [root]
        files.update(file for file in found if not (skipped and file.startswith(skipped)))
    return files


def imports_of(files):
    """Package-level import lines of the Swift `files` (column 0)."""
    found = set()
    for file in files:
        with open(file, encoding="utf-8") as handle:
            for line in handle:
                match = IMPORT.match(line)
                if match:
                    found.add(match.group(1))
    return found


def layer_of(path):
    """The layer a target's folder puts it in, and for services the service's folder."""
    parts = path.strip("/").split("/")
    if parts[:3] == ["Shared", "Platform", "C"]:
        return "c", None
    if parts[:2] == ["Shared", "Platform"]:
        return "platform", None
    if parts[:2] == ["Shared", "Domain"]:
        return "domain", None
    if parts[0] in ("SDK", "Tools", "Tests"):
        return parts[0].lower(), None
    if parts[0] == "Services":
        return "service", parts[1]
    return "unplaced", None


#: Which layers a layer's targets may import.
ALLOWED = {
    "platform": {"platform", "c"},
    "domain": {"platform", "domain"},
    "sdk": set(),
    "service": {"platform", "domain", "service"},
    "tools": {"platform", "domain", "service", "tools", "sdk", "c"},
    "tests": {"platform", "domain", "service", "tools", "sdk", "c", "tests"},
}


def layer_problems(targets, paths, imports):
    """Imports that run against the layers, and C libraries with more than one wrapper."""
    problems, c_importers = [], {}
    for name, imported in sorted(imports.items()):
        layer, service = layer_of(paths[name])
        if layer == "unplaced":
            problems.append(f"{name}: its folder {paths[name]} is in no layer (Shared/Platform, Shared/Domain, SDK, Services, Tools, Tests)")
            continue
        for module in sorted(imported):
            other, other_service = layer_of(paths[module])
            if other == "c" and layer == "platform":
                c_importers.setdefault(module, set()).add(name)
            if other not in ALLOWED.get(layer, set()):
                problems.append(f"{name} ({layer}) imports {module} ({other}): the layers forbid it")
            elif layer == "service" and other == "service" and other_service != service:
                problems.append(f"{name} (service {service}) imports {module} of service {other_service}: services talk through topics")
            elif layer == "tests" and other == "tests" and targets[module]["type"] == "test":
                problems.append(f"{name} imports the test target {module}")
    for module, importers in sorted(c_importers.items()):
        if len(importers) > 1:
            problems.append(f"{module} is imported by {', '.join(sorted(importers))}: one platform module wraps each C library")
    return problems


def main():
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    targets = {target["name"]: target for target in manifest["targets"]}
    problems = []
    paths = {name: target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
             for name, target in targets.items()}
    imports_by_target, owners = {}, {}
    for name, target in sorted(targets.items()):
        if target["type"] == "system":
            continue
        path = paths[name]
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        files = files_of(target, path)
        for file in files:
            owners.setdefault(os.path.normpath(file), []).append(name)
        imported = {module for module in imports_of(files) if module in targets and module != name}
        imports_by_target[name] = imported
        for module in sorted(imported - declared):
            problems.append(f"{name}: imports {module} but does not declare it in Package.swift")
        for module in sorted(declared - imported):
            problems.append(f"{name}: declares {module} but no file of it imports it")
    problems += layer_problems(targets, paths, imports_by_target)
    # A file no target takes is silently never compiled (a misnamed provider subfolder, say).
    for folder in ("Shared", "Services", "Tools", "SDK", "Tests"):
        for file in sorted(glob.glob(folder + "/**/*.swift", recursive=True)):
            owned_by = owners.get(os.path.normpath(file), [])
            if len(owned_by) != 1:
                problems.append(f"{file}: built by {len(owned_by)} targets ({', '.join(owned_by) or 'none'}); exactly one must build it")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-dependencies: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-dependencies: every target declares exactly what it imports, and the layers hold ({len(targets)} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
