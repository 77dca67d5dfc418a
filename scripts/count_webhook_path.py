#!/usr/bin/env python3
"""Derives, from the code, the files with logic that one Lemon Squeezy webhook
passes from the receiver's route handler to the projection's rows, for
docs/architecture.md ("The path of one Lemon Squeezy webhook"). `make lint`
(scripts/check_docs.py, through `--check`) fails when the path grows past the
count that document states; the document's marker is the one place the number
lives.

Method (a static approximation; no compiler, no hand list of files):

1. Scope: the Swift files of `Services/` and `Shared/Domain/`. Everything else
   is not walked: the platform layer (`Shared/Platform/`: HTTP server, Kafka,
   PostgreSQL, crypto, JSON wrappers) is where the walk stops, and tests,
   tools and the SDK never run on the path. Other providers' folders
   (`Shared/Domain/Providers/<Other>/`) are out of scope: a Lemon Squeezy
   delivery runs only Lemon Squeezy's conformances.
   Left out by kind, because they run at start-up or beside the path, never
   for one delivery: files named `*Metrics`, `*Gauges`, `*Settings`,
   `*Configuration*`, `*Binary`, `*Application`, `*Main`, `*Migrations`,
   `*Schema*`, `*Retention*`, and the executables' `main/` folders.
2. Tokens: comments and string literals are removed; what is left is split
   into identifiers.
3. Declarations: each file declares types (`struct`, `class`, `enum`,
   `protocol`, `actor`, `typealias`, nested ones too), extends types
   (`extension T`), declares free functions (`func f` outside any type) and
   declares members (`func`, `var`, `let`, `case`, `subscript`, `init`).
4. The walk starts at the entry files: the receiver's route handler
   (`WebhookRoutes.swift`) and the projector's consumer
   (`ProjectorConsumerService.swift`). From every file reached it follows
   each identifier that names a type or a free function declared in scope
   to the file that declares it. A type's extension in another file is
   reached when the type is and one of the members it adds is named in a
   file already reached (so `Projector+Visibility.swift` counts when its
   functions are called). A protocol reached brings every type that
   conforms to it (in its declaration or in an extension): calls through
   `any WebhookVerifier` run the conformances (`LemonSqueezyWebhookVerifier`)
   built at start-up. The walk repeats until nothing new is reached.
5. A file has logic when, comments and strings removed, it holds a body of
   code: a `func`, `init`, `deinit` or `subscript` with braces, an accessor
   (`get`/`set`/`willSet`/`didSet` with a body) or a computed property
   (`var x: T {` that is not a protocol's `{ get }`), or a string literal
   that starts with an SQL statement (`INSERT`, `UPDATE`, `DELETE`,
   `SELECT`, `WITH`: the store's merge rules are SQL). Files reached that
   only declare (stored properties, cases, protocol requirements) are listed
   but not counted.

It over-approximates (a name mentioned is taken as run; an extension counts
when any of its member names is mentioned anywhere on the path) and it can
under-approximate where code is reached only through a dictionary built at
start-up, unless a protocol stands between them (step 4 covers that case).

    count_webhook_path.py [--root DIR] [--why]   the files, with logic first, and the count
    count_webhook_path.py [--root DIR] --count   only the number of files with logic
    count_webhook_path.py [--root DIR] --check   fails when the count exceeds the documented one
    count_webhook_path.py --self-test            runs the walk on a small planted tree
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from swift_text import code_of

SCOPE = ("Services", "Shared/Domain")
PROVIDERS = "Shared/Domain/Providers"
PROVIDER = "LemonSqueezy"
ENTRIES = (
    "Services/webhook-receiver/WebhookReceiverService/WebhookRoutes.swift",
    "Services/subscription-projector/ProjectorService/ProjectorConsumerService.swift",
)
#: Start-up, telemetry and schema code: runs once or beside the path, never for one delivery.
NOT_PER_DELIVERY = re.compile(
    r"(Metrics|Gauges|Settings|Binary|Application|Main|Migrations)\.swift$|Configuration[^/]*\.swift$|Schema[^/]*\.swift$"
    r"|Retention[^/]*\.swift$|/main/")
DOC = "docs/architecture.md"
MARKER = re.compile(r"<!-- webhook-path-files: (\d+) \(scripts/count_webhook_path\.py\) -->")

TYPE_DECL = re.compile(r"\b(struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)([^{=]*)")
EXTENSION = re.compile(r"\bextension\s+([A-Za-z_][A-Za-z0-9_.]*)([^{]*)\{")
MEMBER = re.compile(r"\b(?:func|var|let|case|subscript)\s+`?([A-Za-z_][A-Za-z0-9_]*)")
#: A string literal that starts with an SQL statement: the merge rules the store runs.
SQL = re.compile(r'"(?:"")?\s*(?:INSERT|UPDATE|DELETE|SELECT|WITH)\b')
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FUNC_BODY = re.compile(r"\b(?:func\s+[^{;]*?|init[?!]?\s*(?:<[^>]*>)?\s*\([^{]*?|deinit\s*|subscript\s*\([^{]*?)\{")
ACCESSOR = re.compile(r"\b(?:get|set|willSet|didSet)\s*(?:\([A-Za-z_]*\)\s*)?\{")
COMPUTED = re.compile(r"\bvar\s+[A-Za-z_][A-Za-z0-9_]*\s*:\s*[^={]+\{(?!\s*(?:get|set|mutating|nonmutating|async|throws|\s)+\})")


def strip(source: str) -> str:
    """Source without comments and string literals (interpolations dropped with them)."""
    return code_of(source, keep_strings=False)


def has_logic(code: str) -> bool:
    return bool(FUNC_BODY.search(code) or ACCESSOR.search(code) or COMPUTED.search(code))


def top_level(code: str) -> str:
    """The code outside every pair of braces (headers of top-level declarations, free functions' signatures)."""
    out, depth = [], 0
    for char in code:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(char)
    return "".join(out)


def inherited(clause: str) -> set[str]:
    """The names after `:` in a declaration's header (`struct A: B, C where …`)."""
    clause = clause.split(" where ")[0]
    return set(IDENTIFIER.findall(clause.split(":", 1)[1])) if ":" in clause else set()


@dataclass
class SwiftFile:
    path: str
    tokens: set[str]
    declares: set[str] = field(default_factory=set)
    protocols: set[str] = field(default_factory=set)
    extends: set[str] = field(default_factory=set)
    conforms: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    members: set[str] = field(default_factory=set)
    module: str = ""
    #: Its own module and the ones it imports: the only places its names can resolve to.
    visible: set[str] = field(default_factory=set)
    logic: bool = False


def in_scope(relative: str, provider: str) -> bool:
    if not relative.startswith(tuple(f"{folder}/" for folder in SCOPE)) or NOT_PER_DELIVERY.search(relative):
        return False
    if relative.startswith(PROVIDERS + "/"):
        folder = relative[len(PROVIDERS) + 1:].split("/")[0]
        return folder in ("Core", "Transport", provider)
    return True


def provider_parts(root: Path) -> dict[str, str]:
    """Package.swift's `domain("Module", …, providerPart: "Part")`: the module each part of a provider folder is built into."""
    manifest = (root / "Package.swift").read_text() if (root / "Package.swift").exists() else ""
    parts = {part: module for module, part in
             re.findall(r'domain\(\s*"(\w+)"(?:(?!domain\().)*?providerPart:\s*"(\w+)"', manifest, re.S)}
    own = re.search(r'domain\(\s*"(\w+)"(?:(?!domain\().)*?own:\s*\[([^\]]*)\]', manifest, re.S)
    if own:
        for folder in re.findall(r'"Providers/(\w+)"', own.group(2)):
            parts[folder] = own.group(1)
    return parts


def module_of(relative: str, parts: dict[str, str]) -> str:
    """The Swift module a file is built into, from the folder conventions of Package.swift."""
    pieces = relative.split("/")
    if relative.startswith(PROVIDERS + "/"):
        folder = pieces[3]
        return parts.get(folder) or parts.get(pieces[4], folder) if len(pieces) > 4 else parts.get(folder, folder)
    if pieces[0] == "Services":
        return pieces[2]
    return pieces[2]


def read_tree(root: Path, provider: str) -> dict[str, SwiftFile]:
    files = {}
    parts = provider_parts(root)
    for folder in SCOPE:
        for path in sorted((root / folder).rglob("*.swift")):
            relative = path.relative_to(root).as_posix()
            if not in_scope(relative, provider):
                continue
            source = path.read_text(errors="replace")
            code = strip(source)
            file = SwiftFile(relative, set(IDENTIFIER.findall(code)), logic=has_logic(code) or bool(SQL.search(source)))
            outermost = top_level(code)
            for kind, name, rest in TYPE_DECL.findall(code):
                if kind == "protocol":
                    file.protocols.add(name)
                else:
                    file.conforms |= inherited(rest)
            file.declares = set(re.findall(r"\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)", outermost))
            for name, rest in EXTENSION.findall(code):
                file.extends.add(name.split(".")[0])
                file.conforms |= inherited(rest)
            file.functions = set(re.findall(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)", outermost))
            file.members = set(MEMBER.findall(code)) | ({"init"} if re.search(r"\binit\b", code) else set())
            file.module = module_of(relative, parts)
            file.visible = {file.module} | set(re.findall(r"^[ \t]*(?:@\w+[ \t]+)*import[ \t]+(?:(?:struct|class|enum|protocol|func|var|let|typealias)[ \t]+)?(\w+)", code, re.M))
            files[relative] = file
    return files


#: Why each file was reached (the first reason found), for `--why`.
via: dict[str, str] = {}


def walk(files: dict[str, SwiftFile], entries: tuple[str, ...]) -> list[str]:
    declared: dict[str, list[SwiftFile]] = {}
    for file in files.values():
        for name in file.declares | file.functions:
            declared.setdefault(name, []).append(file)
    protocols = {name for file in files.values() for name in file.protocols}
    extended = {name for file in files.values() for name in file.extends}
    reached: dict[str, None] = {}
    via.clear()
    types: set[str] = set()
    #: Per module: the names mentioned by reached files that can see it.
    mentioned: dict[str, set[str]] = {}
    queue = [entry for entry in entries if entry in files]
    while queue:
        while queue:
            path = queue.pop(0)
            if path in reached:
                continue
            reached[path] = None
            file = files[path]
            for module in file.visible:
                mentioned.setdefault(module, set()).update(file.tokens)
            for name in file.tokens:
                for target in declared.get(name, []):
                    if target.module in file.visible and target.path not in reached:
                        queue.append(target.path)
                        via.setdefault(target.path, f"{name} in {path}")
                        types.add(name)
            types |= file.tokens & extended
        reached_protocols = protocols & types
        linked = {module for path in reached for module in files[path].visible}
        for file in files.values():
            if file.path in reached:
                continue
            # A conformance runs through the protocol only where its module is linked: some file on the path imports it.
            conformer = file.conforms & reached_protocols if file.module in linked else set()
            extension = file.extends & types and (file.members - {"init"}) & mentioned.get(file.module, set())
            if conformer or extension:
                queue.append(file.path)
                via.setdefault(file.path, f"conforms to {sorted(conformer)}" if conformer else f"extends {sorted(file.extends & types)}")
    return list(reached)


def count(root: Path, provider: str = PROVIDER) -> tuple[list[str], list[str]]:
    """(files with logic, files that only declare), each in the order reached."""
    files = read_tree(root, provider)
    missing = [entry for entry in ENTRIES if entry not in files]
    if missing:
        raise SystemExit(f"count-webhook-path: entry file missing: {', '.join(missing)}")
    reached = walk(files, ENTRIES)
    return [p for p in reached if files[p].logic], [p for p in reached if not files[p].logic]


def platform_modules(root: Path) -> set[str]:
    return {path.name for path in (root / "Shared/Platform").iterdir() if path.is_dir()} if (root / "Shared/Platform").is_dir() else set()


def documented(root: Path) -> int | None:
    match = MARKER.search((root / DOC).read_text()) if (root / DOC).exists() else None
    return int(match.group(1)) if match else None


def self_test() -> int:
    """A planted tree: the walk must reach a conformance, an extension whose member is
    called and a free function, and must not reach platform code, a second provider,
    an unused extension, start-up code or a file that only declares as logic."""
    tree = {
        "Package.swift": 'domain("Webhooks", ["JSONCodec"], providerPart: "Webhooks")',
        ENTRIES[0]: "import Webhooks\nstruct WebhookRoutes { let v: any Verifier\n func handle() { v.verify(); Parser.read(); helper() } }",
        ENTRIES[1]: "import ProjectionStore\nfinal class ProjectorConsumerService { func run() { Store().write(); Statements.upsert } }",
        "Services/subscription-projector/ProjectorService/Statements.swift": 'enum Statements { static let upsert = """\n  INSERT INTO t VALUES ($1)\n  """ }',
        "Shared/Domain/Webhooks/Verifier.swift": "protocol Verifier { func verify() }",
        f"{PROVIDERS}/{PROVIDER}/Webhooks/PlantedVerifier.swift": "struct PlantedVerifier: Verifier { func verify() { } }",
        f"{PROVIDERS}/Other/Webhooks/OtherVerifier.swift": "struct OtherVerifier: Verifier { func verify() { } }",
        "Shared/Domain/Webhooks/Parser.swift": "enum Parser { static func read() { Kinds.all } }",
        "Shared/Domain/Webhooks/Kinds.swift": "enum Kinds { case all }",
        "Shared/Domain/Webhooks/Parser+Unused.swift": "extension Parser { static func neverCalled() { } }",
        "Shared/Domain/Webhooks/Helper.swift": "func helper() { // Store is named in a comment only\n }",
        "Shared/Domain/ProjectionStore/Store.swift": "import Postgres\nstruct Store { func write() { PlatformPool().run(); let s = \"Kinds\" } }",
        "Shared/Domain/ProjectionStore/Store+Write.swift": "extension Store { func write() { } }",
        "Shared/Domain/ProjectionStore/StoreSettings.swift": "struct StoreSettings { func read() { Store() } }",
        "Shared/Domain/Catalog/Unimported.swift": "struct Unimported: Verifier { func verify() { } }\nenum Kinds { case all }",
        "Shared/Platform/Postgres/PlatformPool.swift": "struct PlatformPool { func run() { } }",
    }
    expected_logic = {ENTRIES[0], ENTRIES[1], "Services/subscription-projector/ProjectorService/Statements.swift", f"{PROVIDERS}/{PROVIDER}/Webhooks/PlantedVerifier.swift",
                      "Shared/Domain/Webhooks/Parser.swift", "Shared/Domain/Webhooks/Helper.swift",
                      "Shared/Domain/ProjectionStore/Store.swift", "Shared/Domain/ProjectionStore/Store+Write.swift"}
    expected_declarations = {"Shared/Domain/Webhooks/Verifier.swift", "Shared/Domain/Webhooks/Kinds.swift"}
    with tempfile.TemporaryDirectory(prefix="count-webhook-path.") as scratch:
        root = Path(scratch)
        for relative, text in tree.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text + "\n")
        logic, declarations = count(root)
    failures = []
    if set(logic) != expected_logic:
        failures.append(f"files with logic: extra {sorted(set(logic) - expected_logic)}, "
                        f"missing {sorted(expected_logic - set(logic))}")
    if set(declarations) != expected_declarations:
        failures.append(f"declaration-only files: got {sorted(declarations)}")
    for failure in failures:
        print(f"count-webhook-path self-test: {failure}", file=sys.stderr)
    if not failures:
        print(f"count-webhook-path self-test: the planted tree's {len(expected_logic)} files with logic found, and nothing else")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--self-test", action="store_true")
    parser.add_argument("--why", action="store_true", help="name, for each file, the reference that reached it")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    logic, declarations = count(arguments.root)
    if arguments.count:
        print(len(logic))
        return 0
    if arguments.check:
        stated = documented(arguments.root)
        if stated is None:
            print(f"count-webhook-path: {DOC} has no `<!-- webhook-path-files: N (scripts/count_webhook_path.py) -->` line",
                  file=sys.stderr)
            return 1
        if len(logic) > stated:
            print(f"count-webhook-path: the webhook path has {len(logic)} files with logic; {DOC} allows {stated} "
                  f"(shrink the path, or raise the documented count with a reason): "
                  f"python3 scripts/count_webhook_path.py lists them", file=sys.stderr)
            return 1
        return 0
    files = read_tree(arguments.root, PROVIDER)
    reason = (lambda path: f"  <- {via.get(path, 'entry')}") if arguments.why else (lambda path: "")
    print(f"files with logic ({len(logic)}):")
    for path in sorted(logic):
        print(f"  {path}{reason(path)}")
    print(f"reached, declarations only ({len(declarations)}, not counted):")
    for path in sorted(declarations):
        print(f"  {path}{reason(path)}")
    platform = {module for path in logic + declarations for module in files[path].visible} & platform_modules(arguments.root)
    print(f"stops at the platform modules: {', '.join(sorted(platform))}")
    print(f"total: {len(logic)} files with logic")
    return 0


if __name__ == "__main__":
    sys.exit(main())
