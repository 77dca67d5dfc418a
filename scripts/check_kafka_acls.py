"""Rule [kafka-acls] of scripts/check_compose.py: the production broker's ACLs
(deploy/kafka/acls.txt, applied by the cluster's kafka-acls job) against what
each service's code uses.

What a service uses is read from its Swift sources (the folder of its binary,
or the file of a `storefront` command), with the topic names of
Shared/Domain/BillingModel/Topics.swift, the names the code itself uses:

- it consumes the topics of a `topics: [...]` / `topics = [...]` list (what a
  `KafkaConsumer` subscribes to);
- it produces the topics named as `topic: Topics.x` (a `KafkaProducerMessage`,
  a `publish(…, topic:)`, a publisher's default), except a metadata probe
  (`partitionCount(topic:)`) or a partition (`KafkaTopicPartition(topic:)`);
- it creates topics where it calls `ensureTopics(…)` or declares them to a
  producer (`declaring: …`, the topic keeper);
- its consumer groups are its `KAFKA_GROUP_ID` (the compose value, else the
  declared default) and the group names its code spells (`groupID: "…"`).

The operator principal runs `storefront deadletter`: it reads what that command
reads and writes back to the topics whose records become dead letters (what the
producers of the dead-letter topic consume).

Every grant must be used and every use granted: a Write on a topic the service
does not produce (a receiver able to write commands, a checkout able to write
webhooks) fails, as does a missing Read, group, Create or IdempotentWrite. No
`*` principal or resource, no `All` or other operation, no prefixed topic, a
prefixed group only as the common prefix of the groups the code names. The
brokers run the StandardAuthorizer with allow.everyone.if.no.acl.found off and
only the broker user as super user; every client logs in with SCRAM-SHA-512
over TLS as its own user, with a password file, never a password in the YAML,
and starts only after the kafka-acls job succeeded.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

TOPICS_SWIFT = "Shared/Domain/BillingModel/Topics.swift"
#: The job that applies the table, the script it runs, and where it finds the table.
ACL_JOB = "kafka-acls"
ACL_SCRIPT = "apply-acls.sh"
ACL_TABLE_DEFAULT = "/etc/storefront-kafka/acls.txt"
#: The brokers' own user: the only super user, and never a client's.
BROKER_USER = "broker"
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
MECHANISM = "SCRAM-SHA-512"
#: The operator's principal and the command it runs (no compose service holds it).
OPERATOR = "operator"
OPERATOR_COMMAND = "Tools/StorefrontCLI/DeadLetterCommand.swift"
#: The operations Storefront's clients need; any other is refused.
OPERATIONS = {"Read", "Write", "Create", "IdempotentWrite"}

TOPIC_CONSTANT = re.compile(r'static let (\w+) = "([^"]+)"')
TOPIC_ALL = re.compile(r"static let all = \[([^\]]*)\]")
CONSUMED = re.compile(r"\btopics\s*[:=]\s*\[([^\]]*)\]")
PRODUCED = re.compile(r"\btopic(?:\s*:\s*String)?\s*[:=]\s*Topics\.(\w+)")
NOT_PRODUCED = ("partitionCount(", "KafkaTopicPartition(", "lag(")
CREATED = re.compile(r"(?:ensureTopics\(|declaring:\s*)(Topics\.all|\[[^\]]*\])")
GROUP_LITERAL = re.compile(r'\b(?:groupID|group|replayGroup)\s*[:=]\s*"([A-Za-z0-9._-]+)')
REFERENCE = re.compile(r"Topics\.(\w+)")


@dataclass
class Uses:
    """What one principal's code does with the broker."""
    consumes: set[str] = field(default_factory=set)
    produces: set[str] = field(default_factory=set)
    creates: set[str] = field(default_factory=set)
    groups: set[str] = field(default_factory=set)
    #: Group names the code builds at run time from this prefix (a replica's own group).
    group_prefixes: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Grant:
    principal: str
    operation: str
    resource: str
    pattern: str
    name: str
    line: int

    def __str__(self) -> str:
        return f"{self.operation} {self.resource} {self.pattern} {self.name} (line {self.line})"


def topic_names(root: Path) -> tuple[dict[str, str], set[str]]:
    """`Topics.x` -> its name, and the names of `Topics.all`."""
    text = (root / TOPICS_SWIFT).read_text()
    names = dict(TOPIC_CONSTANT.findall(text))
    listed = TOPIC_ALL.search(text)
    every = {names[n.strip()] for n in listed.group(1).split(",") if n.strip() in names} if listed else set()
    return names, every


def scan_sources(paths: list[Path], names: dict[str, str], every: set[str]) -> Uses:
    """The topics and groups the Swift files under `paths` use (see the module's doc)."""
    uses = Uses()

    def resolve(text: str) -> set[str]:
        return {names[n] for n in REFERENCE.findall(text) if n in names and n != "all"} | (every if "Topics.all" in text else set())

    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*.swift")))]
    for file in files:
        text = file.read_text()
        for match in CONSUMED.finditer(text):
            uses.consumes |= resolve(match.group(1))
        for match in PRODUCED.finditer(text):
            call = text[text.rfind("\n", 0, match.start()) + 1:match.start()]
            if not call.rstrip().endswith(NOT_PRODUCED) and match.group(1) in names:
                uses.produces.add(names[match.group(1)])
        for match in CREATED.finditer(text):
            uses.creates |= resolve(match.group(1))
        for match in GROUP_LITERAL.finditer(text):
            value, rest = match.group(1), text[match.end():match.end() + 2]
            (uses.group_prefixes if rest.startswith("\\(") else uses.groups).add(value)
    return uses


def read_table(path: Path) -> tuple[list[Grant], list[str]]:
    """The grants of the ACL table, and what is wrong with its lines."""
    grants, problems = [], []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 5:
            problems.append(f"line {number}: {len(words)} columns, wants principal operation resource pattern name")
            continue
        grants.append(Grant(*words, line=number))
    return grants, problems


def source_paths(root: Path, command: list[str]) -> list[Path]:
    """The Swift sources behind a compose service's command: a service's folder, or a CLI command's file."""
    if not command:
        return []
    if command[0] == "storefront" and len(command) > 1:
        file = root / "Tools/StorefrontCLI" / f"{command[1].replace('-', ' ').title().replace(' ', '')}Command.swift"
        return [file] if file.exists() else []
    folder = root / "Services" / command[0]
    return [folder] if folder.is_dir() else []


def needed_grants(uses: Uses, every: set[str]) -> set[tuple[str, str, str, str]]:
    """(operation, resource, pattern, name) each use needs."""
    needed = {("Write", "topic", "literal", t) for t in uses.produces}
    needed |= {("Read", "topic", "literal", t) for t in uses.consumes}
    needed |= {("Create", "topic", "literal", t) for t in uses.creates}
    needed |= {("Read", "group", "literal", g) for g in uses.groups if not uses.group_prefixes}
    if uses.group_prefixes:
        # Groups built at run time (a replica's own) need one prefixed grant covering every group the code names.
        needed.add(("Read", "group", "prefixed", os.path.commonprefix(sorted(uses.groups | uses.group_prefixes))))
    if uses.produces:
        needed.add(("IdempotentWrite", "cluster", "literal", "kafka-cluster"))
    return needed


def check_kafka_acls(services: dict, brokers: dict[str, dict], root: Path, compose_dir: Path, report, helpers) -> None:
    """Rule [kafka-acls]; `helpers` is check_compose (environment_of, default_value, command_of)."""
    def setting(env: dict, name: str) -> str:
        return helpers.default_value(env.get(name, "")).strip()

    # The brokers: nothing allowed without an ACL, one super user, SCRAM over TLS only.
    for name, env in sorted(brokers.items()):
        if setting(env, "KAFKA_AUTHORIZER_CLASS_NAME") != AUTHORIZER:
            report.error("kafka-acls", name, f"KAFKA_AUTHORIZER_CLASS_NAME must be {AUTHORIZER} (KRaft's ACLs)")
        if setting(env, "KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND").lower() != "false":
            report.error("kafka-acls", name, "KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND must be \"false\": a resource without ACLs is open otherwise")
        if setting(env, "KAFKA_SUPER_USERS") != f"User:{BROKER_USER}":
            report.error("kafka-acls", name, f"KAFKA_SUPER_USERS is {setting(env, 'KAFKA_SUPER_USERS') or 'unset'}; "
                                             f"only the brokers' own User:{BROKER_USER} may bypass the ACLs")
        protocols = {entry.split(":", 1)[-1] for entry in setting(env, "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").split(",") if entry}
        if protocols != {"SASL_SSL"}:
            report.error("kafka-acls", name, f"listeners use {sorted(protocols)}; every listener must be SASL_SSL (authenticated, encrypted)")
        if setting(env, "KAFKA_SASL_ENABLED_MECHANISMS") != MECHANISM:
            report.error("kafka-acls", name, f"KAFKA_SASL_ENABLED_MECHANISMS must be {MECHANISM} for the clients' listener")
        for variable, value in env.items():
            if re.search(r"password\s*=", str(value), re.IGNORECASE):
                report.error("kafka-acls", name, f"{variable} holds a password; keep it in deploy/secrets/kafka/broker")

    names, every = topic_names(root)
    # The clients: each its own user, SCRAM, a password file, after the ACL job.
    uses_of: dict[str, Uses] = {}
    for name, service in sorted(services.items()):
        env = helpers.environment_of(service or {})
        if "KAFKA_BROKERS" not in env:
            continue
        user = setting(env, "KAFKA_SASL_USERNAME")
        if not user or user in (BROKER_USER, OPERATOR):
            report.error("kafka-acls", name, f"KAFKA_SASL_USERNAME is {user or 'unset'}; each client logs in as its own user")
            continue
        if user in uses_of:
            report.error("kafka-acls", name, f"logs in as {user}, which another service uses too; ACLs are per service")
        if setting(env, "KAFKA_SASL_MECHANISM") != MECHANISM or setting(env, "KAFKA_SECURITY_PROTOCOL").lower() != "sasl_ssl":
            report.error("kafka-acls", name, f"must log in with {MECHANISM} over TLS (KAFKA_SECURITY_PROTOCOL sasl_ssl)")
        if "KAFKA_SASL_PASSWORD" in env or not setting(env, "KAFKA_SASL_PASSWORD_FILE").startswith("/run/secrets/"):
            report.error("kafka-acls", name, "its broker password must come from a secret file (KAFKA_SASL_PASSWORD_FILE), never the YAML")
        after = (service or {}).get("depends_on") or {}
        condition = (after.get(ACL_JOB) or {}).get("condition") if isinstance(after, dict) else None
        if condition != "service_completed_successfully":
            report.error("kafka-acls", name, f"must depend on {ACL_JOB} (service_completed_successfully): without its ACLs it is refused")
        paths = source_paths(root, helpers.command_of(service or {}))
        if not paths:
            report.error("kafka-acls", name, f"runs {helpers.command_of(service or {})}, whose sources this rule cannot find")
            continue
        uses = scan_sources(paths, names, every)
        if uses.consumes and "KAFKA_GROUP_ID" in env:
            # The compose value replaces the setting's default, which the code spells too.
            uses.groups.discard(group_default(root, helpers.command_of(service or {})[0]))
            uses.groups.add(setting(env, "KAFKA_GROUP_ID"))
        uses_of[user] = uses

    # The operator: reads the dead letters, writes them back where they came from.
    operator = scan_sources([root / OPERATOR_COMMAND], names, every)
    dead_letters = operator.consumes
    operator.produces = {t for uses in uses_of.values() if uses.produces & dead_letters for t in uses.consumes}
    uses_of[OPERATOR] = operator

    table_path = acl_table(services, compose_dir, report, helpers)
    if table_path is None:
        return
    grants, problems = read_table(table_path)
    for problem in problems:
        report.error("kafka-acls", str(table_path.name), problem)
    given: dict[str, set[tuple[str, str, str, str]]] = {}
    for grant in grants:
        subject = f"{table_path.name} {grant.principal}"
        if "*" in grant.principal or "*" in grant.name or grant.operation.lower() == "all":
            report.error("kafka-acls", subject, f"{grant}: no wildcard principal or resource, no All operation")
            continue
        if grant.principal not in uses_of:
            report.error("kafka-acls", subject, f"{grant}: no service logs in as {grant.principal}")
            continue
        if grant.operation not in OPERATIONS:
            report.error("kafka-acls", subject, f"{grant}: {grant.operation} is not an operation Storefront needs ({sorted(OPERATIONS)})")
            continue
        given.setdefault(grant.principal, set()).add((grant.operation, grant.resource, grant.pattern, grant.name))
    for principal, uses in sorted(uses_of.items()):
        needed = needed_grants(uses, every)
        have = given.get(principal, set())
        for operation, resource, pattern, name in sorted(have - needed):
            why = "a topic it does not produce" if operation == "Write" else "nothing its code does"
            report.error("kafka-acls", f"{table_path.name} {principal}", f"{operation} {resource} {pattern} {name}: {why} "
                                                                         f"(its code: {describe(uses)})")
        for operation, resource, pattern, name in sorted(needed - have):
            report.error("kafka-acls", f"{table_path.name} {principal}", f"misses {operation} {resource} {pattern} {name}, "
                                                                         f"which its code needs ({describe(uses)})")


def group_default(root: Path, binary: str) -> str | None:
    """The declared default of the binary's KAFKA_GROUP_ID (docs/settings.json)."""
    for declared in json.loads((root / "docs/settings.json").read_text()):
        if declared["binary"] == binary:
            for group in declared["groups"]:
                for entry in group["settings"]:
                    if entry["name"] == "KAFKA_GROUP_ID":
                        return entry.get("default")
    return None


def describe(uses: Uses) -> str:
    parts = [f"{label} {', '.join(sorted(values))}" for label, values in
             (("produces", uses.produces), ("consumes", uses.consumes), ("groups", uses.groups | {p + "*" for p in uses.group_prefixes}))
             if values]
    return "; ".join(parts + (["creates the topics"] if uses.creates else [])) or "no broker use"


def acl_table(services: dict, compose_dir: Path, report, helpers) -> Path | None:
    """The host path of the table the ACL job applies (its mount of the table's folder)."""
    job = services.get(ACL_JOB)
    if not job or ACL_SCRIPT not in " ".join(helpers.command_of(job)):
        report.error("kafka-acls", ACL_JOB, f"is missing: a one-shot job running {ACL_SCRIPT} must apply the ACLs before the clients start")
        return None
    inside = helpers.default_value(helpers.environment_of(job).get("KAFKA_ACL_TABLE", ACL_TABLE_DEFAULT)).strip()
    for volume in job.get("volumes") or []:
        source, target = (volume.get("source"), volume.get("target")) if isinstance(volume, dict) else str(volume).split(":")[:2]
        target = str(target).rstrip("/")
        if inside.startswith(target + "/"):
            path = (compose_dir / helpers.default_value(source)).resolve() / inside[len(target) + 1:]
            if path.exists():
                return path
            report.error("kafka-acls", ACL_JOB, f"applies {inside}, which is {path} on the host: missing")
            return None
    report.error("kafka-acls", ACL_JOB, f"applies {inside}, which nothing it mounts holds")
    return None


# --- self-test (scripts/check_compose.py --self-test) -------------------------------------

def _table_edit(old: str, new: str):
    """A change of the ACL table: the first line holding `old` gets `new` instead (a whole-line
    `old` with an empty `new` removes it)."""
    def edit(text: str) -> str:
        assert old in text, f"the ACL table has no {old!r} to break"
        return text.replace(old, new, 1)
    return edit


def _env(fragment: dict, service: str) -> dict:
    return fragment["services"][service].setdefault("environment", {})


#: Ways to break the ACL table; each must trip [kafka-acls].
TABLE_MUTATIONS = [
    ("the checkout writing the webhooks (forged purchases)", _table_edit(
        "checkout                Write            topic    literal   storefront.checkouts.v1",
        "checkout                Write            topic    literal   storefront.webhooks.v1")),
    ("the receiver writing the commands", _table_edit(
        "webhook_receiver        Write            topic    literal   storefront.webhooks.v1",
        "webhook_receiver        Write            topic    literal   storefront.webhooks.v1\n"
        "webhook_receiver        Write            topic    literal   storefront.commands.v1")),
    ("the projector missing its Read on the snapshots", _table_edit(
        "subscription_projector  Read             topic    literal   storefront.snapshots.v1\n", "")),
    ("the reconciler missing its group", _table_edit("reconciler              Read             group    literal   storefront-reconciler\n", "")),
    ("the sender given Create", _table_edit(
        "webhook_sender          Read             group    literal   storefront-webhook-sender",
        "webhook_sender          Read             group    literal   storefront-webhook-sender\n"
        "webhook_sender          Create           topic    literal   storefront.entitlements.v1")),
    ("a producer missing IdempotentWrite", _table_edit("reconciler              IdempotentWrite  cluster  literal   kafka-cluster\n", "")),
    ("a wildcard principal", _table_edit("migrate                 Create", "*                       Create")),
    ("a wildcard topic", _table_edit("storefront.deadletter.v1\noperator", "*\noperator")),
    ("the All operation", _table_edit("webhook_sender          Read             topic", "webhook_sender          All              topic")),
    ("a prefixed group wider than the code's", _table_edit("prefixed  checkout-stream-", "prefixed  checkout-")),
    ("the operator writing the entitlements", _table_edit(
        "operator                Write            topic    literal   storefront.snapshots.v1",
        "operator                Write            topic    literal   storefront.entitlements.v1")),
]

#: Ways to break the cluster override itself; each must trip [kafka-acls].
COMPOSE_MUTATIONS = [
    ("allow.everyone.if.no.acl.found left on", lambda d: _env(d, "kafka-2").__setitem__("KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND", "true")),
    ("no authorizer", lambda d: _env(d, "kafka").pop("KAFKA_AUTHORIZER_CLASS_NAME")),
    ("a client as super user", lambda d: _env(d, "kafka-3").__setitem__("KAFKA_SUPER_USERS", "User:broker;User:checkout")),
    ("a plaintext listener", lambda d: _env(d, "kafka").__setitem__(
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT")),
    ("a client password in the YAML", lambda d: _env(d, "checkout").__setitem__("KAFKA_SASL_PASSWORD", "${KAFKA_SASL_PASSWORD:-}")),
    ("a broker password in the YAML", lambda d: _env(d, "kafka").__setitem__(
        "KAFKA_LISTENER_NAME_SASL_SSL_SCRAM___SHA___512_SASL_JAAS_CONFIG", "ScramLoginModule required username=broker password=x;")),
    ("a client on PLAIN", lambda d: _env(d, "reconciler").__setitem__("KAFKA_SASL_MECHANISM", "PLAIN")),
    ("two services as one user", lambda d: _env(d, "reconciler").__setitem__("KAFKA_SASL_USERNAME", "subscription_projector")),
    ("a client starting before the ACLs", lambda d: d["services"]["webhook-sender"].pop("depends_on")),
    ("the ACL job missing", lambda d: d["services"].pop("kafka-acls")),
]


def self_test(fragment: dict, table: Path, scratch: Path, check_with) -> list[str]:
    """Each broken copy of the ACL table, and of the cluster override, must fail [kafka-acls].
    `check_with(fragment)` returns the errors of the files merged with that cluster fragment."""
    failures = []
    text = table.read_text()
    for number, (what, edit) in enumerate(TABLE_MUTATIONS):
        folder = scratch / f"kafka-acls-{number:02d}"
        folder.mkdir()
        (folder / table.name).write_text(edit(text))
        broken = json.loads(json.dumps(fragment))
        job = broken["services"][ACL_JOB]
        job["volumes"] = [f"{folder}:{ACL_TABLE_DEFAULT.rsplit('/', 1)[0]}:ro" if str(v).endswith(":/etc/storefront-kafka:ro") else v
                          for v in job["volumes"]]
        if not any(error.startswith("[kafka-acls]") for error in check_with(broken)):
            failures.append(f"an ACL table with {what} passed")
    for what, mutate in COMPOSE_MUTATIONS:
        broken = json.loads(json.dumps(fragment))
        mutate(broken)
        if not any(error.startswith("[kafka-acls]") for error in check_with(broken)):
            failures.append(f"a cluster override with {what} passed")
    return failures
