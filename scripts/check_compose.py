#!/usr/bin/env python3
"""Storefront's own rules for docker-compose.yml, checked without a Docker engine.

Run by scripts/check-compose.sh (which first validates the file against the
Compose Specification with check-jsonschema) using the venv in .vendor/, whose
ruamel.yaml parses the file (anchors and `<<` merges resolved).

    check_compose.py [--root DIR] [--compose FILE]   check; exit 1 on any broken rule
    check_compose.py --self-test                     prove each rule catches a broken copy
    check_compose.py --explain                       print what each binary reads
    check_compose.py --override FILE [--override F2]  check docker-compose.yml with FILE (then F2) merged over it

Rules (each message starts with the rule's tag):
  [healthcheck]  every service has a healthcheck, except the one-shot jobs in
                 ONE_SHOT_JOBS (which must not restart) and the operator tools
                 in ON_DEMAND_TOOLS (which must not restart, and sit in a
                 profile so that `up` never starts them); Storefront services
                 probe /readyz.
  [scaling]      no service has a container_name; only the services in
                 PUBLISHERS publish host ports (the sandbox on loopback only).
  [runtime]      every long-running service has a restart policy and a memory
                 limit (deploy.resources.limits.memory).
  [hardening]    Storefront's own containers drop every capability (cap_drop:
                 [ALL], no cap_add, not privileged), set no-new-privileges, and
                 run with a read-only root filesystem and a tmpfs at /tmp.
  [proxies]      the gateway trusts no proxy by default (GATEWAY_TRUSTED_PROXIES
                 is empty unless .env names the TLS front).
  [env-required] every variable a service's binary reads as required is set
                 to a value that cannot be empty.
  [env-unknown]  no service sets a variable its binary never reads (a typo
                 guard). NAME_FILE is accepted when the binary reads NAME.
                 The gateway's variables must be exactly the template's
                 ${...} placeholders, plus GATEWAY_ENTRYPOINT_SETTINGS (read
                 by a script mounted into the nginx image's
                 /docker-entrypoint.d/, which must be mounted there).
  [secrets]      variables named like *KEY*, *SECRET*, *PASSWORD*, *TOKEN*
                 hold only an interpolation without a literal default; no URL
                 carries a password; *_FILE variables hold paths; compose
                 secret files live under deploy/secrets/ (git-ignored).
  [files]        bind-mounted host paths (the nginx template...) exist.
  [topics]       the topic partition count allows >= 6 projector replicas.
  [kafka-cluster] with more than one Apache Kafka broker (the production
                 profile, deploy/kafka-cluster.yml merged over the file):
                 exactly three, distinct KAFKA_NODE_IDs, one controller quorum
                 naming every controller, one CLUSTER_ID, replication 3 and
                 min.insync.replicas 2 for every topic and the internal ones,
                 unclean leader election and topic auto-creation off; every
                 service with KAFKA_BROKERS lists all three and creates its
                 topics with KAFKA_REPLICATION_FACTOR 3.
  [kafka-acls]   with a cluster (deploy/kafka-sasl-ssl.yml and
                 deploy/kafka-cluster.yml merged over the file): the ACLs of
                 deploy/kafka/acls.txt are exactly what each service's code uses
                 (topics it produces, consumes, creates; its groups), no wildcard
                 or All; the StandardAuthorizer with allow-if-no-ACL off, only the
                 broker user as super user, SASL_SSL listeners only; every client
                 its own SCRAM-SHA-512 user, a password file, after the kafka-acls
                 job (scripts/check_kafka_acls.py).
  [image]        every binary a service runs is built by the Dockerfile.
  [secret-scope] each service receives only the secrets it uses: a provider
                 secret (variable, NAME_FILE, or its folder under
                 deploy/secrets/providers/) only where the binary reads it,
                 which for the shared provider setup means the `uses:` of its
                 ProvidersConfiguration.fromEnvironment calls (.api: the API keys,
                 .webhooks: the webhook secrets; Paystack's key is both); a
                 compose secret only where one of the service's settings names
                 its /run/secrets/ path (or SECRET_READERS says who reads it);
                 a secret in SOLE_HOLDERS (the entitlement signing key) only
                 in the services listed there, whatever names it.
  [db-user]      services connect to PostgreSQL as their own login user, never
                 as the schema owner (only ONE_SHOT_JOBS may), no two share a
                 user, and each user's passfile is its own (pgpass_<user>).
  [env-documented] every setting of a service's own groups (DOCUMENTED_SETTINGS;
                 docs/configuration.md shows them) can be given without an
                 override: the service's environment sets it (or NAME_FILE)
                 from the operator's variable (${NAME...}), or wires it to a
                 compose secret (its value names a /run/secrets/ path). The
                 exceptions, in OVERRIDE_ONLY, are opt-outs deliberately left
                 to an override, and deploy/README.md must mention each.
  [monitoring]   the monitoring services (MONITORING_SERVICES) sit in the
                 `monitoring` profile; Prometheus mounts PROMETHEUS_CONFIG, and
                 that file scrapes every Storefront service by Docker DNS
                 (dns_sd_configs naming the service) on the port it listens on.
  [mounts]       a setting that names a file (NAME_FILE, NAME_LOCATION) points,
                 by default, into something the service mounts read-only: a
                 compose secret or a read-only bind mount (ENTITLEMENTS_FILE
                 into deploy/config/ at /etc/storefront).

What a binary reads is what it DECLARES: every setting is declared once in
Swift (a `Setting` next to the code that reads it; the reader refuses any
other), each executable lists the groups it reads, and `BINARY
--help-settings --format json` prints them. scripts/settings-docs.sh
collects that output into docs/settings.json, which this script reads; a
unit test (SettingsDocsTests) fails when the file and the declarations
differ. A tool with commands declares one list per command
(`storefront migrate`, `storefront status`), so another command's required
variable (dev-token's AUTH_JWT_SECRET) is not demanded from the migrate job
or the cli. A service's command is its entrypoint followed by its command
(the cli service: entrypoint `storefront`, command `status`).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_kafka_acls import (  # noqa: E402  (rule [kafka-acls], in a file of its own)
    COMPOSE_MUTATIONS as KAFKA_ACL_COMPOSE_MUTATIONS, TABLE_MUTATIONS as KAFKA_ACL_TABLE_MUTATIONS, check_kafka_acls,
    self_test as kafka_acls_self_test)

# --- project facts -------------------------------------------------------------

#: Services that run once and exit (exempt from healthchecks, must not restart).
ONE_SHOT_JOBS = {"migrate", "db-users", "kafka-acls"}

#: Operator tools run on demand (`docker compose run --rm cli status EMAIL`): exempt
#: from healthchecks, must not restart, and must sit in a profile (`up` never starts
#: them). Every other rule applies (their own database user, only their secrets).
ON_DEMAND_TOOLS = {"cli", "admin"}

#: The Storefront services: scalable, probed on /readyz, never publishing a port.
SERVICE_BINARIES = {"catalog", "checkout", "webhook-receiver", "subscription-projector", "reconciler", "webhook-sender"}

#: Services allowed to publish host ports: name -> only on loopback?
PUBLISHERS = {"gateway": False, "provider-sandbox": True, "prometheus": True, "grafana": True}

#: The monitoring profile's services, and the scrape configuration Prometheus mounts.
MONITORING_SERVICES = {"prometheus", "grafana"}
MONITORING_PROFILE = "monitoring"
PROMETHEUS_CONFIG = "deploy/monitoring/prometheus/prometheus.yml"
PROMETHEUS_CONFIG_TARGET = "/etc/prometheus/prometheus.yml"
#: What a Storefront service listens on unless its PORT says otherwise (the Dockerfile's ENV).
IMAGE_PORT = 8080

#: The nginx gateway and the template whose ${...} placeholders it fills.
GATEWAY_SERVICE = "gateway"
GATEWAY_TEMPLATE = "deploy/nginx/gateway.conf.template"

#: Gateway settings that are not template placeholders: a script the nginx image
#: runs before nginx starts (mounted into /docker-entrypoint.d/) turns each into
#: configuration the template includes. setting -> that script. They must be set
#: (so the documented setting reaches the gateway) and may be empty: the script
#: gives empty a meaning (GATEWAY_TRUSTED_PROXIES: trust no proxy).
GATEWAY_ENTRYPOINT_SETTINGS = {"GATEWAY_TRUSTED_PROXIES": "deploy/nginx/trusted-proxies.sh"}

#: The providers' secrets: a service may hold one only if its binary declares it.
PROVIDER_SECRETS = {
    "LEMONSQUEEZY_API_KEY", "LEMONSQUEEZY_WEBHOOK_SECRET", "PAYSTACK_SECRET_KEY", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET",
    # Apple's: the App Store Connect API key the reports to Apple are signed with.
    "APP_STORE_CONNECT_PRIVATE_KEY",
}
#: The folder under deploy/secrets/providers/ that holds each provider secret's file.
PROVIDER_SECRET_FOLDERS = {
    "lemonsqueezy-api": "LEMONSQUEEZY_API_KEY",
    "lemonsqueezy-webhook": "LEMONSQUEEZY_WEBHOOK_SECRET",
    "paystack": "PAYSTACK_SECRET_KEY",
    "stripe-api": "STRIPE_SECRET_KEY",
    "stripe-webhook": "STRIPE_WEBHOOK_SECRET",
    "app-store-connect": "APP_STORE_CONNECT_PRIVATE_KEY",
}
PROVIDER_SECRETS_ROOT = "deploy/secrets/providers"
#: The broker's TLS/SASL override (checked merged over docker-compose.yml).
KAFKA_OVERRIDE = "deploy/kafka-sasl-ssl.yml"
#: The production broker: three KRaft brokers (checked merged over docker-compose.yml, rule [kafka-cluster]).
KAFKA_CLUSTER_OVERRIDE = "deploy/kafka-cluster.yml"
#: The cluster's ACLs, which its kafka-acls job applies (rule [kafka-acls], scripts/check_kafka_acls.py).
KAFKA_ACL_TABLE = "deploy/kafka/acls.txt"
#: The image of an Apache Kafka broker service; more than one of them is a cluster.
KAFKA_BROKER_IMAGE = "apache/kafka:"
#: [kafka-cluster]: what every broker of a cluster must set (the value after interpolation defaults).
KAFKA_CLUSTER_SETTINGS = {
    "KAFKA_DEFAULT_REPLICATION_FACTOR": "3",
    "KAFKA_MIN_INSYNC_REPLICAS": "2",
    "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "3",
    "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "3",
    "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "2",
    "KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE": "false",
    "KAFKA_AUTO_CREATE_TOPICS_ENABLE": "false",
}
KAFKA_CLUSTER_SIZE = 3
#: Bind-mounted folders that a script creates (deploy/make-kafka-secrets.sh), exempt from [files].
GENERATED_PATHS = ("deploy/secrets/kafka",)
#: The settings that hold a PostgreSQL URL, each checked by [db-user].
DATABASE_URL_SETTINGS = ("DATABASE_URL", "STOREFRONT_ADMIN_DATABASE_URL")
#: Compose secrets a service reads without naming them in a setting: service -> secrets.
SECRET_READERS = {
    # deploy/postgres/db-users.sh reads each service's passfile for its password.
    "db-users": {"pgpass_checkout", "pgpass_subscription_projector", "pgpass_reconciler", "pgpass_webhook_sender", "pgpass_operator",
                 "pgpass_admin"},
}

#: Compose secrets that only these services may receive, whatever setting names them: whoever
#: holds the entitlement signing key can make changes the webhook-sender and the checkout trust.
SOLE_HOLDERS = {"entitlement_signing_key": {"subscription-projector"}}

#: The binaries' declared settings, as their `--help-settings --format json` prints them.
SETTINGS_JSON = "docs/settings.json"
#: [env-documented]: compose service -> (binary, the groups of its settings an operator
#: must be able to set without an override: the service's own, not the shared ones).
DOCUMENTED_SETTINGS = {"checkout": ("checkout", (
    "Checkout", "App tokens", "Ownership proof", "PostgreSQL", "PostgreSQL session limits", "Entitlements", "Provider request budgets",
    "Entitlement change verification"))}
#: Documented settings compose deliberately does not pass (an override sets them); each
#: must be mentioned in deploy/README.md, where the override is explained.
OVERRIDE_ONLY = {
    "AUTH_DISABLED": "local experiments only, refused in live mode",
    "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE": "the opt-out of the issuer and audience checks",
    "AUTH_JWT_PUBLIC_KEY_FILE": "RS256 app tokens: the key is mounted by an override",
}
CONFIGURATION_DOC = "docs/configuration.md"
DEPLOY_README = "deploy/README.md"
#: Settings that name a file the service reads ([mounts]).
FILE_SETTING = re.compile(r"_(?:FILE|LOCATION)$")
#: The PostgreSQL user that owns the schema (POSTGRES_USER); only ONE_SHOT_JOBS connect as it.
SCHEMA_OWNER = "storefront"

#: Minimum partitions per topic: one per projector replica we promise to run.
MINIMUM_PARTITIONS = 6

SECRET_NAME = re.compile(r"KEY|SECRET|PASSWORD|TOKEN|PASSPHRASE|CREDENTIAL", re.IGNORECASE)
SECRET_SHAPES = [
    re.compile(r"\bsk_(?:live|test)_[A-Za-z0-9]{8,}"),          # Paystack secret keys
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\."),  # a JWT
]
#: Variables named like secrets that hold something else: name -> the only values allowed.
#: (The apache/kafka image takes its keystore and the files holding its passwords by name,
#: from /etc/kafka/secrets/; the passwords themselves stay in those files.)
SECRET_LOOKALIKES = {
    "KAFKA_SSL_KEYSTORE_TYPE": re.compile(r"PKCS12|JKS|PEM"),
    "KAFKA_SSL_KEYSTORE_FILENAME": re.compile(r"[A-Za-z0-9._-]+"),
    "KAFKA_SSL_KEYSTORE_CREDENTIALS": re.compile(r"[A-Za-z0-9._-]+"),
    "KAFKA_SSL_KEY_CREDENTIALS": re.compile(r"[A-Za-z0-9._-]+"),
}
URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.IGNORECASE)
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


# --- the binaries' declared settings (docs/settings.json) ------------------------------

@dataclass
class Reads:
    """What one binary (or one command of a tool) declares it reads."""
    required: set[str] = field(default_factory=set)
    optional: set[str] = field(default_factory=set)
    groups: dict[str, list[str]] = field(default_factory=dict)

    @property
    def all(self) -> set[str]:
        return self.required | self.optional


@functools.lru_cache(maxsize=None)
def declared_settings(root: Path) -> dict[str, Reads]:
    """Each binary's settings, from the JSON its `--help-settings --format json` wrote
    (scripts/settings-docs.sh; a unit test keeps the file equal to the declarations)."""
    path = root / SETTINGS_JSON
    if not path.exists():
        raise SystemExit(f"check-compose: {SETTINGS_JSON} is missing; run scripts/settings-docs.sh")
    binaries: dict[str, Reads] = {}
    for binary in json.loads(path.read_text()):
        reads = Reads()
        for group in binary["groups"]:
            names = []
            for setting in group["settings"]:
                name = setting["name"]
                names.append(name)
                # The first group that declares a name decides (a binary's own group comes first).
                if name in reads.all:
                    continue
                (reads.required if setting["required"] else reads.optional).add(name)
            reads.groups[group["title"]] = names
        binaries[binary["binary"]] = reads
    return binaries


def binary_reads(root: Path, binary: str, command: str | None) -> tuple[Reads | None, str]:
    """What `binary` (running `command`, for a tool with commands) declares, and its key in the JSON."""
    binaries = declared_settings(root)
    key = f"{binary} {command}" if command and f"{binary} {command}" in binaries else binary
    return binaries.get(key), key


def provider_secrets_used(reads: Reads) -> frozenset[str]:
    """The provider secrets a binary declares (through its provider groups, or its own, as the sandbox)."""
    return frozenset(PROVIDER_SECRETS & reads.all)


def database_user(url: object) -> tuple[str | None, str | None]:
    """The user and the passfile of a postgresql:// URL (None when absent)."""
    text = default_value(url)
    match = re.match(r"postgres(?:ql)?://([^@/:?]+)@", text)
    passfile = re.search(r"[?&]passfile=([^&]+)", text)
    return (match.group(1) if match else None), (passfile.group(1) if passfile else None)


# --- compose values ------------------------------------------------------------------

def environment_of(service: dict) -> dict[str, object]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        result = {}
        for item in env:
            name, _, value = str(item).partition("=")
            result[name] = value if "=" in str(item) else None
        return result
    return dict(env)


def can_be_empty(value: object) -> bool:
    """Whether the value may reach the container empty (which counts as unset)."""
    if value is None:
        return True  # passed through from the operator's environment, maybe unset
    text = str(value)
    literal = INTERPOLATION.sub("", text.replace("$$", "$"))
    if literal.strip():
        return False
    for match in INTERPOLATION.finditer(text):
        operator, default = match.group(2), match.group(3) or ""
        if operator in ("?", ":?"):
            return False  # compose refuses to start without it
        if operator in ("-", ":-") and default.strip() and not can_be_empty(default):
            return False
    return True


def only_interpolation(value: object) -> bool:
    """True when the value is one `${NAME}`/`${NAME:-}`/`${NAME:?msg}` with no literal secret."""
    if value is None:
        return True
    text = str(value).strip()
    match = INTERPOLATION.fullmatch(text)
    if not match:
        return False
    operator, default = match.group(2), match.group(3) or ""
    return not (operator in ("-", ":-", "+", ":+") and default.strip())


def default_value(value: object) -> str:
    """The value with every interpolation replaced by its default (or empty)."""
    def substitute(match: re.Match) -> str:
        operator, default = match.group(2), match.group(3) or ""
        return default if operator in ("-", ":-") else ""
    return INTERPOLATION.sub(substitute, str(value if value is not None else ""))


def command_of(service: dict) -> list[str]:
    """What the container runs: its entrypoint (when the service sets one) followed by its command."""
    words = []
    for key in ("entrypoint", "command"):
        part = service.get(key)
        if part is not None:
            words += shlex.split(part) if isinstance(part, str) else [str(word) for word in part]
    return words


def mounts_of(service: dict) -> list[tuple[str, bool]]:
    """Every path the service's container has mounted: (target, read-only), bind mounts and compose secrets."""
    mounts = []
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            target, read_only = volume.get("target"), bool(volume.get("read_only"))
        else:
            parts = str(volume).split(":")
            if len(parts) < 2:
                continue  # an anonymous volume
            target, read_only = parts[1], len(parts) > 2 and "ro" in parts[2].split(",")
        if target:
            mounts.append((str(target).rstrip("/") or "/", read_only))
    for entry in service.get("secrets") or []:
        name = entry.get("source") if isinstance(entry, dict) else str(entry)
        target = (entry.get("target") if isinstance(entry, dict) else None) or name
        mounts.append((str(target) if str(target).startswith("/") else f"/run/secrets/{target}", True))
    return mounts


def documented_settings(root: Path, binary: str, groups: tuple[str, ...]) -> tuple[str, ...]:
    """The settings of `binary`'s `groups` (docs/configuration.md shows them, generated)."""
    reads = declared_settings(root).get(binary)
    if reads is None:
        raise SystemExit(f"check-compose: {SETTINGS_JSON} has no binary {binary}")
    missing = [group for group in groups if group not in reads.groups]
    if missing:
        raise SystemExit(f"check-compose: {binary} declares no group {missing} ({SETTINGS_JSON})")
    return tuple(dict.fromkeys(name for group in groups for name in reads.groups[group]))


def is_storefront_image(service: dict) -> bool:
    return "build" in service or "STOREFRONT_IMAGE" in str(service.get("image", "")) \
        or str(service.get("image", "")).startswith("storefront")


def dockerfile_executables(root: Path) -> set[str] | None:
    dockerfile = root / "Dockerfile"
    if not dockerfile.exists():
        return None
    match = re.search(r'ARG\s+EXECUTABLES="([^"]*)"', dockerfile.read_text())
    return set(match.group(1).split()) if match else None


# --- the rules -----------------------------------------------------------------------

@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def error(self, rule: str, subject: str, message: str) -> None:
        self.errors.append(f"[{rule}] {subject}: {message}")

    def note(self, message: str) -> None:
        self.notes.append(message)


def load_compose(path: Path) -> dict:
    from ruamel.yaml import YAML  # from the venv that check-compose.sh installs
    yaml = YAML(typ="safe", pure=True)
    with path.open() as handle:
        data = yaml.load(handle)
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        raise SystemExit(f"check-compose: {path} has no services mapping")
    return data


def check(compose: dict, root: Path, compose_dir: Path, explain: bool = False) -> Report:
    report = Report()
    services: dict[str, dict] = compose["services"]
    built = dockerfile_executables(root)
    template_path = root / GATEWAY_TEMPLATE
    template_placeholders = set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", template_path.read_text())) \
        if template_path.exists() else set()

    database_users: dict[str, list[str]] = {}
    for name, service in services.items():
        service = service or {}
        command = command_of(service)
        binary = command[0] if command and is_storefront_image(service) else None
        long_running = name not in ONE_SHOT_JOBS

        # [healthcheck]
        health = service.get("healthcheck")
        if name in ONE_SHOT_JOBS or name in ON_DEMAND_TOOLS:
            kind = "a one-shot job" if name in ONE_SHOT_JOBS else "an on-demand tool"
            if str(service.get("restart", "no")) not in ("no", "False", "false"):
                report.error("healthcheck", name, f"{kind} must have restart: \"no\"")
            if name in ON_DEMAND_TOOLS and not service.get("profiles"):
                report.error("healthcheck", name, "an on-demand tool must sit in a profile, so that `up` never starts it")
        elif not health or health.get("disable") or not health.get("test"):
            report.error("healthcheck", name, "has no healthcheck (every long-running service needs one)")
        elif binary in SERVICE_BINARIES and "/readyz" not in str(health.get("test")):
            report.error("healthcheck", name, "a Storefront service's healthcheck must probe /readyz")

        # [scaling]
        if "container_name" in service:
            report.error("scaling", name, "container_name prevents `docker compose up --scale`; remove it")
        ports = service.get("ports") or []
        if ports and name not in PUBLISHERS:
            report.error("scaling", name, f"publishes host ports {ports}; only {sorted(PUBLISHERS)} may")
        elif ports and PUBLISHERS.get(name):
            for port in ports:
                host_ip = port.get("host_ip") if isinstance(port, dict) else str(port).split(":")[0]
                if default_value(host_ip) not in ("127.0.0.1", "::1", "[::1]"):
                    report.error("scaling", name, f"may publish on loopback only, not {port!r}")

        # [runtime]
        if long_running:
            if not service.get("restart") and not (service.get("deploy") or {}).get("restart_policy"):
                report.error("runtime", name, "has no restart policy")
            limits = ((service.get("deploy") or {}).get("resources") or {}).get("limits") or {}
            if not limits.get("memory") and not service.get("mem_limit"):
                report.error("runtime", name, "has no memory limit (deploy.resources.limits.memory)")

        # [hardening]: Storefront's own containers keep no capability, gain no
        # privilege, and cannot write their root filesystem (only a /tmp tmpfs).
        if is_storefront_image(service):
            if "ALL" not in [str(c).upper() for c in service.get("cap_drop") or []]:
                report.error("hardening", name, "must drop every capability (cap_drop: [ALL])")
            if service.get("cap_add"):
                report.error("hardening", name, f"adds capabilities {service.get('cap_add')}; Storefront's binaries need none")
            options = [str(o).replace("=", ":").replace(" ", "") for o in service.get("security_opt") or []]
            if "no-new-privileges:true" not in options and "no-new-privileges" not in options:
                report.error("hardening", name, "must set security_opt: [\"no-new-privileges:true\"]")
            if service.get("read_only") is not True:
                report.error("hardening", name, "must run with a read-only root filesystem (read_only: true)")
            tmpfs = service.get("tmpfs") or []
            tmpfs = [tmpfs] if isinstance(tmpfs, str) else tmpfs
            if not any(str(t).split(":")[0].rstrip("/") == "/tmp" for t in tmpfs):
                report.error("hardening", name, "needs a tmpfs at /tmp (the image's working directory) with read_only: true")
            if service.get("privileged"):
                report.error("hardening", name, "must not be privileged")

        env = environment_of(service)

        # [secrets]
        for variable, value in env.items():
            if variable.endswith("_FILE"):
                shown = default_value(value)
                if shown and not shown.startswith("/"):
                    report.error("secrets", name, f"{variable} must name a file path, not a value")
                continue
            lookalike = SECRET_LOOKALIKES.get(variable)
            if lookalike is not None:
                if not lookalike.fullmatch(str(value)):
                    report.error("secrets", name, f"{variable} must be a name ({lookalike.pattern}), not {value!r}")
            elif SECRET_NAME.search(variable) and not only_interpolation(value):
                report.error("secrets", name, f"{variable} holds a literal; use ${{{variable}:-}} or a secret file ({variable}_FILE)")
            if value is not None and URL_WITH_PASSWORD.search(str(value)):
                report.error("secrets", name, f"{variable} carries a password in a URL; use a passfile or a secret file")

        # [files]
        for volume in service.get("volumes") or []:
            source = volume.get("source") if isinstance(volume, dict) else str(volume).split(":")[0]
            kind = volume.get("type", "bind") if isinstance(volume, dict) else "bind"
            if kind == "bind" and source and (source.startswith(".") or source.startswith("/")):
                host = (compose_dir / default_value(source)).resolve()
                generated = any(default_value(source).lstrip("./").startswith(path) for path in GENERATED_PATHS)
                if not host.exists() and not generated:
                    report.error("files", name, f"bind-mounted {source} does not exist")

        # [mounts]: a setting naming a file points into a read-only mount of the service.
        mounts = mounts_of(service)
        for variable, value in sorted(env.items()):
            path = default_value(value).strip()
            if not FILE_SETTING.search(variable) or not path.startswith("/"):
                continue
            holder = [(target, read_only) for target, read_only in mounts if path == target or path.startswith(target.rstrip("/") + "/")]
            if not holder:
                report.error("mounts", name, f"{variable} points at {path}, which nothing the service mounts holds "
                                             f"(mount its folder read-only, e.g. deploy/config/ at /etc/storefront)")
            elif not any(read_only for _, read_only in holder):
                report.error("mounts", name, f"{variable} points at {path}, on a writable mount; mount it read-only")

        # [secret-scope]: compose secrets only where a setting names them.
        readers = SECRET_READERS.get(name, set())
        for entry in service.get("secrets") or []:
            secret_name = entry.get("source") if isinstance(entry, dict) else str(entry)
            target = (entry.get("target") if isinstance(entry, dict) else None) or secret_name
            path = target if str(target).startswith("/") else f"/run/secrets/{target}"
            holders = SOLE_HOLDERS.get(secret_name)
            if holders is not None and name not in holders:
                report.error("secret-scope", name, f"receives the secret {secret_name}, which only {sorted(holders)} may hold")
                continue
            if secret_name in readers:
                continue
            if not any(path in str(value) for value in env.values()):
                report.error("secret-scope", name, f"receives the secret {secret_name}, but none of its settings names {path}; "
                                                   f"remove it (each service gets only the secrets it uses)")

        # [db-user] (STOREFRONT_ADMIN_DATABASE_URL: `storefront api-keys` and `endpoints`)
        for url_variable in (variable for variable in DATABASE_URL_SETTINGS if variable in env):
            user, passfile = database_user(env[url_variable])
            if user == SCHEMA_OWNER and name not in ONE_SHOT_JOBS:
                report.error("db-user", name, f"connects as the schema owner {SCHEMA_OWNER}; give it its own login user "
                                              f"(deploy/postgres/db-users.sh, docs/operations.md, \"Database roles\")")
            elif user and name not in ONE_SHOT_JOBS:
                database_users.setdefault(user, []).append(name)
                if passfile and passfile != f"/run/secrets/pgpass_{user}":
                    report.error("db-user", name, f"connects as {user} with the passfile {passfile}; use /run/secrets/pgpass_{user}")

        # [env-required] / [env-unknown]
        if name == GATEWAY_SERVICE:
            for variable in sorted(set(env) - template_placeholders - set(GATEWAY_ENTRYPOINT_SETTINGS)):
                report.error("env-unknown", name, f"{variable} is not a placeholder of {GATEWAY_TEMPLATE}")
            volumes = [(str(v.get("source")), str(v.get("target"))) if isinstance(v, dict) else tuple((str(v).split(":") + [""])[:2])
                       for v in service.get("volumes") or []]
            for variable, script in sorted(GATEWAY_ENTRYPOINT_SETTINGS.items()):
                if variable not in env:
                    report.error("env-required", name, f"{variable} is not set; {script} reads it (set it, empty if that is meant)")
                if not any(source.lstrip("./") == script and target.startswith("/docker-entrypoint.d/") and target.endswith(".sh")
                           for source, target in volumes):
                    report.error("files", name, f"must mount {script} into /docker-entrypoint.d/ as a .sh file, "
                                                f"so that {variable} is applied before nginx starts")
            # [proxies]: nobody is trusted to name the client unless the operator says who.
            proxies = default_value(env.get("GATEWAY_TRUSTED_PROXIES", "")).strip()
            if proxies:
                report.error("proxies", name, f"GATEWAY_TRUSTED_PROXIES defaults to {proxies!r}; the default must trust no proxy "
                                              f"(an operator names the TLS front's address in .env)")
            for variable in sorted(template_placeholders - set(env)):
                report.error("env-required", name, f"{GATEWAY_TEMPLATE} needs ${{{variable}}} but the gateway does not set it")
            for variable in sorted(template_placeholders & set(env)):
                if can_be_empty(env[variable]):
                    report.error("env-required", name, f"{variable} may be empty; the template needs a value")
            mounted = " ".join(str(v.get("source") if isinstance(v, dict) else v) for v in service.get("volumes") or [])
            if GATEWAY_TEMPLATE not in mounted or "/etc/nginx/templates/" not in mounted:
                report.error("files", name, f"must mount {GATEWAY_TEMPLATE} into /etc/nginx/templates/")
            continue
        if binary is None:
            continue
        if built is not None and binary not in built:
            report.error("image", name, f"runs {binary}, which the Dockerfile's EXECUTABLES does not build")
        subcommand = command[1] if len(command) > 1 else None
        reads, key = binary_reads(root, binary, subcommand)
        if reads is None:
            report.error("env-required", name, f"runs {binary}, which declares no settings in {SETTINGS_JSON} "
                                               f"(a new executable: add it to scripts/settings-docs.sh and regenerate)")
            continue
        if explain:
            print(f"{name} ({' '.join(command)}): declared by {key}")
            print(f"  required: {', '.join(sorted(reads.required)) or '-'}")
            print(f"  optional: {', '.join(sorted(reads.optional)) or '-'}")
        for variable in sorted(reads.required):
            value = env.get(variable)
            file_value = env.get(variable + "_FILE")
            if variable in env and not can_be_empty(value):
                continue
            if file_value is not None and not can_be_empty(file_value):
                continue
            state = "may be empty" if variable in env else "is not set"
            report.error("env-required", name, f"{variable} {state}, but {key} requires it ({SETTINGS_JSON})")
        known = reads.all
        for variable in sorted(env):
            base = variable[:-len("_FILE")] if variable.endswith("_FILE") else None
            if variable in known or (base and base in known):
                continue
            report.error("env-unknown", name, f"{variable} is never read by {key} (typo? it is not in its --help-settings)")

        # [env-documented]: the service's own documented settings can be set without an override.
        if name in DOCUMENTED_SETTINGS:
            documented = documented_settings(root, *DOCUMENTED_SETTINGS[name])
            if explain:
                print(f"  documented (the groups {', '.join(DOCUMENTED_SETTINGS[name][1])}): {', '.join(documented)}")
            deploy_readme = (root / DEPLOY_README).read_text() if (root / DEPLOY_README).exists() else ""
            for variable in documented:
                if variable in OVERRIDE_ONLY:
                    if variable not in deploy_readme:
                        report.error("env-documented", name, f"{variable} is left to an override ({OVERRIDE_ONLY[variable]}), "
                                                             f"but {DEPLOY_README} never says how")
                    continue
                given = [key for key in (variable, variable + "_FILE") if key in env]
                if not given:
                    report.error("env-documented", name, f"{variable} is documented ({CONFIGURATION_DOC}) but compose never passes it; "
                                                         f"add {variable}: ${{{variable}:-}} (empty: the service's default)")
                    continue
                value = str(env[given[0]] if env[given[0]] is not None else "${" + given[0] + "}")
                if not INTERPOLATION.search(value) and "/run/secrets/" not in value:
                    report.error("env-documented", name, f"{given[0]} is fixed to {value!r}; let the operator set it "
                                                         f"(${{{given[0]}:-{value}}}) or wire it to a compose secret")

        # [secret-scope]: provider secrets only where the binary uses them.
        used = provider_secrets_used(reads)
        if explain:
            print(f"  provider secrets: {', '.join(sorted(used)) or '-'}")
        basis = f"its declared settings, {SETTINGS_JSON}"
        for variable in sorted(env):
            base = variable[:-len("_FILE")] if variable.endswith("_FILE") else variable
            if base in PROVIDER_SECRETS and base not in used:
                report.error("secret-scope", name, f"{variable}: {binary} never uses {base} ({basis}); remove it")
        for volume in service.get("volumes") or []:
            source = volume.get("source") if isinstance(volume, dict) else str(volume).split(":")[0]
            source = default_value(source or "").lstrip("./").rstrip("/")
            if not source.startswith(PROVIDER_SECRETS_ROOT):
                continue
            folder = source[len(PROVIDER_SECRETS_ROOT):].strip("/")
            mounted = set(PROVIDER_SECRET_FOLDERS.values()) if not folder else {PROVIDER_SECRET_FOLDERS.get(folder.split("/")[0], "?")}
            for secret in sorted(mounted - used):
                what = f"the secret of {PROVIDER_SECRETS_ROOT}/{folder}" if folder else f"all of {PROVIDER_SECRETS_ROOT}"
                report.error("secret-scope", name, f"mounts {what}, which holds {secret}; {binary} never uses it ({basis})"
                             if secret != "?" else f"mounts {source}, which is not one of {sorted(PROVIDER_SECRET_FOLDERS)}")

    for user, users in sorted(database_users.items()):
        if len(users) > 1:
            report.error("db-user", ", ".join(users), f"share the PostgreSQL user {user}; give each service its own")

    # [topics]
    for name, service in services.items():
        env = environment_of(service or {})
        if "KAFKA_TOPIC_PARTITIONS" in env:
            value = default_value(env["KAFKA_TOPIC_PARTITIONS"]).strip()
            if value and (not value.isdigit() or int(value) < MINIMUM_PARTITIONS):
                report.error("topics", name, f"KAFKA_TOPIC_PARTITIONS defaults to {value}; the projector needs >= {MINIMUM_PARTITIONS}")

    # [kafka-cluster]: more than one broker is the production profile.
    brokers = {name: environment_of(service or {}) for name, service in services.items()
               if str((service or {}).get("image", "")).startswith(KAFKA_BROKER_IMAGE) and name not in ONE_SHOT_JOBS}
    if len(brokers) > 1:
        check_kafka_cluster(services, brokers, report)
        check_kafka_acls(services, brokers, root, compose_dir, report, sys.modules[__name__])

    check_monitoring(services, compose_dir, report)

    # [secrets] across the whole file: secret files stay in deploy/secrets/.
    for secret_name, secret in (compose.get("secrets") or {}).items():
        source = (secret or {}).get("file")
        if source and not default_value(source).lstrip("./").startswith("deploy/secrets/"):
            report.error("secrets", f"secrets.{secret_name}", f"file {source} must live in deploy/secrets/ (git-ignored)")
    return report


def check_kafka_cluster(services: dict[str, dict], brokers: dict[str, dict], report: Report) -> None:
    """Three KRaft brokers: distinct node ids, one controller quorum naming each controller, one
    cluster id, replication 3 and min.insync.replicas 2 (internal topics too), no unclean
    election, no auto-created topics; and every client lists all of them and creates topics with
    replication 3."""
    def setting(env: dict, name: str) -> str:
        return default_value(env.get(name, "")).strip()

    if len(brokers) != KAFKA_CLUSTER_SIZE:
        report.error("kafka-cluster", ", ".join(sorted(brokers)), f"{len(brokers)} brokers; the production profile runs {KAFKA_CLUSTER_SIZE}")
    node_ids: dict[str, str] = {}
    for name, env in sorted(brokers.items()):
        node = setting(env, "KAFKA_NODE_ID")
        if not node.isdigit():
            report.error("kafka-cluster", name, f"KAFKA_NODE_ID is {node or 'unset'}; each broker needs a number")
        elif node in node_ids.values():
            other = next(broker for broker, value in node_ids.items() if value == node)
            report.error("kafka-cluster", name, f"KAFKA_NODE_ID {node} is {other}'s too; node ids must be distinct")
        node_ids[name] = node
        for key, wanted in KAFKA_CLUSTER_SETTINGS.items():
            if setting(env, key).lower() != wanted:
                report.error("kafka-cluster", name, f"{key} is {setting(env, key) or 'unset'}; a cluster needs {wanted}")
    quorums = {setting(env, "KAFKA_CONTROLLER_QUORUM_VOTERS") for env in brokers.values()}
    if len(quorums) != 1:
        report.error("kafka-cluster", ", ".join(sorted(brokers)), f"the brokers name different controller quorums: {sorted(quorums)}")
    voters = {voter.split(":")[0] for quorum in quorums for voter in quorum.split(",") if voter}
    for name, env in sorted(brokers.items()):
        if "controller" in setting(env, "KAFKA_PROCESS_ROLES"):
            host = str((services[name] or {}).get("hostname") or name)
            if f"{node_ids[name]}@{host}" not in voters:
                report.error("kafka-cluster", name, f"is a controller but {node_ids[name]}@{host} is not in the quorum {sorted(voters)}")
    if len({setting(env, "CLUSTER_ID") for env in brokers.values()}) != 1:
        report.error("kafka-cluster", ", ".join(sorted(brokers)), "the brokers have different CLUSTER_IDs")

    # Every client bootstraps from all brokers (any one may be down when it starts).
    advertised = set()
    for env in brokers.values():
        for listener in setting(env, "KAFKA_ADVERTISED_LISTENERS").split(","):
            if "://" in listener and not listener.startswith("CONTROLLER"):
                advertised.add(listener.split("://", 1)[1])
    for name, service in sorted(services.items()):
        env = environment_of(service or {})
        if "KAFKA_BROKERS" not in env:
            continue
        listed = {address.strip() for address in setting(env, "KAFKA_BROKERS").split(",") if address.strip()}
        if missing := advertised - listed:
            report.error("kafka-cluster", name, f"KAFKA_BROKERS does not list {sorted(missing)}")
        if setting(env, "KAFKA_REPLICATION_FACTOR") != str(KAFKA_CLUSTER_SIZE):
            report.error("kafka-cluster", name,
                         f"KAFKA_REPLICATION_FACTOR is {setting(env, 'KAFKA_REPLICATION_FACTOR') or 'unset'}; "
                         f"topics must be on all {KAFKA_CLUSTER_SIZE} brokers")


def scan_text_for_secrets(text: str, report: Report) -> None:
    for pattern in SECRET_SHAPES:
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            report.error("secrets", f"line {line}", "looks like a secret literal")


def merge(base: object, override: object, key: str = "") -> object:
    """An override file over a compose file, as `docker compose -f base -f override` merges them:
    mappings merge key by key, sequences add up (secrets, volumes), a healthcheck's test or a command is replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for name, value in override.items():
            merged[name] = merge(base[name], value, name) if name in base else value
        return merged
    if isinstance(base, list) and isinstance(override, list) and key not in ("test", "command", "entrypoint"):
        return base + [item for item in override if item not in base]
    return override


def run(compose_path: Path, root: Path, explain: bool = False, override: Path | list[Path] | None = None) -> Report:
    """Checks the file with `override` (one file, or several in order, as `-f a -f b`) merged over it."""
    overrides = [] if override is None else override if isinstance(override, list) else [override]
    compose = load_compose(compose_path)
    for path in overrides:
        compose = merge(compose, load_compose_fragment(path))
    report = check(compose, root, compose_path.parent, explain)
    for path in [compose_path, *overrides]:
        scan_text_for_secrets(path.read_text(), report)
    return report


def load_compose_fragment(path: Path) -> dict:
    from ruamel.yaml import YAML
    with path.open() as handle:
        data = YAML(typ="safe", pure=True).load(handle)
    if not isinstance(data, dict):
        raise SystemExit(f"check-compose: {path} is not a compose file")
    return data


# --- self-test ----------------------------------------------------------------------

def _dump(data: dict, path: Path) -> None:
    from ruamel.yaml import YAML
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    with path.open("w") as handle:
        yaml.dump(data, handle)


def scraped_by_dns(config: dict) -> dict[str, set[int]]:
    """Service name -> the ports Prometheus's dns_sd_configs scrape it on."""
    scraped: dict[str, set[int]] = {}
    for job in config.get("scrape_configs") or []:
        for sd in (job or {}).get("dns_sd_configs") or []:
            for name in sd.get("names") or []:
                scraped.setdefault(str(name), set()).add(int(sd.get("port", 0)))
    return scraped


def check_monitoring(services: dict[str, dict], compose_dir: Path, report: Report) -> None:
    """[monitoring]: opt-in profile, the scrape configuration mounted, every Storefront service scraped."""
    for name in sorted(MONITORING_SERVICES):
        service = services.get(name)
        if service is None:
            report.error("monitoring", name, f"is missing; the {MONITORING_PROFILE} profile needs it")
        elif list((service or {}).get("profiles") or []) != [MONITORING_PROFILE]:
            report.error("monitoring", name, f"must sit in the {MONITORING_PROFILE!r} profile only, so that `up` never starts it unasked")
    prometheus = services.get("prometheus") or {}
    mounts = [str(volume) if not isinstance(volume, dict) else f"{volume.get('source')}:{volume.get('target')}"
              for volume in prometheus.get("volumes") or []]
    if prometheus and not any(m.lstrip("./").startswith(PROMETHEUS_CONFIG) and f":{PROMETHEUS_CONFIG_TARGET}" in m for m in mounts):
        report.error("monitoring", "prometheus", f"must mount {PROMETHEUS_CONFIG} at {PROMETHEUS_CONFIG_TARGET}")
    config_path = compose_dir / PROMETHEUS_CONFIG
    if not config_path.exists():
        report.error("monitoring", "prometheus", f"{PROMETHEUS_CONFIG} does not exist")
        return
    scraped = scraped_by_dns(load_compose_fragment(config_path))
    for name, service in sorted(services.items()):
        service = service or {}
        command = command_of(service)
        if not (command and is_storefront_image(service) and command[0] in SERVICE_BINARIES):
            continue
        port = default_value(environment_of(service).get("PORT", str(IMAGE_PORT))).strip() or str(IMAGE_PORT)
        if name not in scraped:
            report.error("monitoring", name, f"is not scraped: {PROMETHEUS_CONFIG} has no dns_sd_configs naming {name}")
        elif not port.isdigit() or int(port) not in scraped[name]:
            report.error("monitoring", name, f"listens on {port} but {PROMETHEUS_CONFIG} scrapes it on {sorted(scraped[name])}")


def self_test(compose_path: Path, root: Path) -> int:
    """Breaks a copy of the compose file in one way at a time; each must be caught."""
    failures = []

    # The declarations: a command's own list is chosen, required reads are told apart.
    migrate, key = binary_reads(root, "storefront", "migrate")
    if key != "storefront migrate" or migrate is None or "DATABASE_URL" not in migrate.required or "AUTH_JWT_SECRET" in migrate.all:
        failures.append(f"declarations: storefront migrate should require DATABASE_URL and not read AUTH_JWT_SECRET; got {migrate}")
    if not can_be_empty("${X:-}") or can_be_empty("${X:-v}") or can_be_empty("${X:?set X}") or can_be_empty("kafka:9092"):
        failures.append("interpolation: can_be_empty is wrong")

    base = load_compose(compose_path)
    clean = check(copy.deepcopy(base), root, compose_path.parent)
    if clean.errors:
        failures.append("the unmodified file must pass:\n    " + "\n    ".join(clean.errors))

    def service_env(data: dict, name: str) -> dict:
        env = environment_of(data["services"][name])
        data["services"][name]["environment"] = env
        return env

    # (rule that must fire, how the copy is broken)
    mutations = [
        ("healthcheck", lambda d: d["services"]["catalog"].pop("healthcheck")),
        ("scaling", lambda d: d["services"]["webhook-receiver"].__setitem__("container_name", "receiver")),
        ("scaling", lambda d: d["services"]["subscription-projector"].__setitem__("ports", ["8084:8080"])),
        ("runtime", lambda d: d["services"]["checkout"]["deploy"].pop("resources")),
        # Storefront's containers are hardened: no capability, no new privileges, a read-only root.
        ("hardening", lambda d: d["services"]["checkout"].pop("cap_drop")),
        ("hardening", lambda d: d["services"]["webhook-receiver"].__setitem__("cap_add", ["NET_ADMIN"])),
        ("hardening", lambda d: d["services"]["subscription-projector"].__setitem__("security_opt", [])),
        ("hardening", lambda d: d["services"]["reconciler"].__setitem__("read_only", False)),
        ("hardening", lambda d: d["services"]["webhook-sender"].pop("tmpfs")),
        ("hardening", lambda d: d["services"]["catalog"].__setitem__("privileged", True)),
        ("env-required", lambda d: service_env(d, "migrate").pop("DATABASE_URL")),
        ("env-unknown", lambda d: service_env(d, "catalog").__setitem__("CATALOG_REFRESH_INTERVALL", "60")),
        ("secrets", lambda d: service_env(d, "catalog").__setitem__("PAYSTACK_SECRET_KEY", "sk_live_0123456789abcdef")),
        ("secrets", lambda d: service_env(d, "migrate").__setitem__(
            "DATABASE_URL", "postgresql://storefront:hunter2@postgres:5432/storefront")),
        ("files", lambda d: d["services"]["gateway"]["volumes"].__setitem__(
            0, "./deploy/nginx/missing.conf.template:/etc/nginx/templates/default.conf.template:ro")),
        ("env-required", lambda d: service_env(d, "gateway").pop("CATALOG_UPSTREAM")),
        # The trusted proxies reach the gateway through the entrypoint script, which must be mounted.
        ("env-required", lambda d: service_env(d, "gateway").pop("GATEWAY_TRUSTED_PROXIES")),
        # No proxy is trusted by default (it once was every private range).
        ("proxies", lambda d: service_env(d, "gateway").__setitem__(
            "GATEWAY_TRUSTED_PROXIES", "${GATEWAY_TRUSTED_PROXIES-10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7}")),
        ("proxies", lambda d: service_env(d, "gateway").__setitem__("GATEWAY_TRUSTED_PROXIES", "10.0.3.17")),
        ("files", lambda d: d["services"]["gateway"].__setitem__("volumes", [
            v for v in d["services"]["gateway"]["volumes"] if "/docker-entrypoint.d/" not in str(v)])),
        ("topics", lambda d: service_env(d, "migrate").__setitem__("KAFKA_TOPIC_PARTITIONS", "${KAFKA_TOPIC_PARTITIONS:-3}")),
        # Each service gets only its secrets: the catalog never a webhook secret, the receiver never an API key...
        ("secret-scope", lambda d: service_env(d, "catalog").__setitem__("LEMONSQUEEZY_WEBHOOK_SECRET", "${LEMONSQUEEZY_WEBHOOK_SECRET:-}")),
        ("secret-scope", lambda d: service_env(d, "webhook-receiver").__setitem__("LEMONSQUEEZY_API_KEY_FILE", "${LEMONSQUEEZY_API_KEY_FILE:-}")),
        ("secret-scope", lambda d: service_env(d, "subscription-projector").__setitem__("PAYSTACK_SECRET_KEY", "${PAYSTACK_SECRET_KEY:-}")),
        ("secret-scope", lambda d: service_env(d, "webhook-receiver").__setitem__("STRIPE_SECRET_KEY_FILE", "${STRIPE_SECRET_KEY_FILE:-}")),
        ("secret-scope", lambda d: service_env(d, "checkout").__setitem__("STRIPE_WEBHOOK_SECRET", "${STRIPE_WEBHOOK_SECRET:-}")),
        # ... nor their files: one folder, or all of them at once ...
        ("secret-scope", lambda d: d["services"]["catalog"]["volumes"].append(
            {"type": "bind", "source": "./deploy/secrets/providers/lemonsqueezy-webhook", "target": "/run/secrets/w", "read_only": True})),
        ("secret-scope", lambda d: d["services"]["webhook-receiver"]["volumes"].append(
            {"type": "bind", "source": "./deploy/secrets/providers/stripe-api", "target": "/run/secrets/s", "read_only": True})),
        ("secret-scope", lambda d: d["services"]["reconciler"]["volumes"].append("./deploy/secrets/providers:/run/secrets/providers:ro")),
        # ... nor another service's compose secrets.
        ("secret-scope", lambda d: d["services"]["checkout"]["secrets"].append("pgpass_reconciler")),
        ("secret-scope", lambda d: d["services"]["subscription-projector"]["secrets"].append("auth_jwt_secret")),
        # The signing key outside the projector, even where a setting names its path.
        ("secret-scope", lambda d: (d["services"]["webhook-sender"]["secrets"].append("entitlement_signing_key"),
                                    service_env(d, "webhook-sender").__setitem__(
                                        "ENTITLEMENT_VERIFY_KEYS_FILE", "/run/secrets/entitlement_signing_key"))),
        # Services connect as their own database users.
        ("db-user", lambda d: service_env(d, "checkout").__setitem__(
            "DATABASE_URL", "postgresql://storefront@postgres:5432/storefront?passfile=/run/secrets/pgpass")),
        ("db-user", lambda d: service_env(d, "reconciler").__setitem__("DATABASE_URL", service_env(d, "checkout")["DATABASE_URL"])),
        ("db-user", lambda d: service_env(d, "reconciler").__setitem__(
            "DATABASE_URL", "postgresql://reconciler@postgres:5432/storefront?passfile=/run/secrets/pgpass_checkout")),
        ("db-user", lambda d: service_env(d, "cli").__setitem__(
            "DATABASE_URL", "postgresql://storefront@postgres:5432/storefront?passfile=/run/secrets/pgpass")),
        ("db-user", lambda d: service_env(d, "admin").__setitem__(
            "STOREFRONT_ADMIN_DATABASE_URL", "postgresql://storefront@postgres:5432/storefront?passfile=/run/secrets/pgpass")),
        # The on-demand cli never restarts and never starts with `up`.
        ("healthcheck", lambda d: d["services"]["cli"].__setitem__("restart", "unless-stopped")),
        ("healthcheck", lambda d: d["services"]["cli"].pop("profiles")),
        # Every documented checkout setting can be set from .env (the app's return link was once missing).
        ("env-documented", lambda d: service_env(d, "checkout").pop("CHECKOUT_APP_RETURN_URL")),
        ("env-documented", lambda d: service_env(d, "checkout").__setitem__("CHECKOUT_EXPIRY", "1h")),
        # ENTITLEMENTS_FILE points into the read-only config mount.
        ("mounts", lambda d: d["services"]["checkout"].__setitem__("volumes", [
            v for v in d["services"]["checkout"]["volumes"] if not (isinstance(v, dict) and v.get("target") == "/etc/storefront")])),
        ("mounts", lambda d: service_env(d, "cli").__setitem__("ENTITLEMENTS_FILE", "${ENTITLEMENTS_FILE:-/etc/elsewhere/entitlements.json}")),
        ("mounts", lambda d: [v.__setitem__("read_only", False) for v in d["services"]["checkout"]["volumes"]
                              if isinstance(v, dict) and v.get("target") == "/etc/storefront"]),
        # The monitoring profile: opt-in, its configuration mounted, every service scraped where it listens.
        ("monitoring", lambda d: d["services"]["grafana"].pop("profiles")),
        ("monitoring", lambda d: d["services"]["prometheus"].__setitem__("volumes", ["prometheus-data:/prometheus"])),
        ("monitoring", lambda d: service_env(d, "catalog").__setitem__("PORT", "9000")),
        ("monitoring", lambda d: d["services"].__setitem__("catalog-eu", copy.deepcopy(d["services"]["catalog"]))),
    ]
    with tempfile.TemporaryDirectory(prefix="check-compose-") as scratch:
        for number, (rule, mutate) in enumerate(mutations):
            broken = copy.deepcopy(base)
            mutate(broken)
            # Written out and read back like a real file, next to the real one's
            # relative paths (the copy lives in a scratch folder with links).
            folder = Path(scratch) / f"{number:02d}-{rule}"
            folder.mkdir()
            (folder / "deploy").symlink_to(compose_path.parent / "deploy")
            path = folder / "docker-compose.yml"
            _dump(broken, path)
            report = run(path, root)
            if not any(error.startswith(f"[{rule}]") for error in report.errors):
                failures.append(f"a copy broken for [{rule}] passed: {report.errors or 'no errors'}")
        # The broker's TLS/SASL override, merged: clean, and a client given another's password is caught.
        override = root / KAFKA_OVERRIDE
        if override.exists():
            clean_override = run(compose_path, root, override=override)
            if clean_override.errors:
                failures.append(f"{KAFKA_OVERRIDE} merged over the file must pass:\n    " + "\n    ".join(clean_override.errors))
            broken = load_compose_fragment(override)
            broken["services"]["checkout"]["secrets"].append("kafka_password_reconciler")
            path = Path(scratch) / "override-secret-scope.yml"
            _dump(broken, path)
            if not any(error.startswith("[secret-scope]") for error in run(compose_path, root, override=path).errors):
                failures.append(f"a copy of {KAFKA_OVERRIDE} giving checkout the reconciler's broker password passed")
        failures += self_test_kafka_cluster(compose_path, root, Path(scratch))
    if failures:
        print("check-compose self-test FAILED:", *failures, sep="\n  ", file=sys.stderr)
        return 1
    print(f"check-compose self-test: {len(mutations)} broken copies each rejected (and one of {KAFKA_OVERRIDE}, "
          f"{len(KAFKA_CLUSTER_MUTATIONS)} of {KAFKA_CLUSTER_OVERRIDE}; for [kafka-acls] {len(KAFKA_ACL_TABLE_MUTATIONS)} of "
          f"{KAFKA_ACL_TABLE} and {len(KAFKA_ACL_COMPOSE_MUTATIONS)} of the override), declarations and interpolation ok")
    return 0


def _cluster_env(data: dict, name: str) -> dict:
    return data["services"][name]["environment"]


#: Ways to break deploy/kafka-cluster.yml; each must trip [kafka-cluster].
KAFKA_CLUSTER_MUTATIONS = [
    ("two brokers share a node id", lambda d: _cluster_env(d, "kafka-3").__setitem__("KAFKA_NODE_ID", "2")),
    ("a broker names another quorum", lambda d: _cluster_env(d, "kafka-2").__setitem__(
        "KAFKA_CONTROLLER_QUORUM_VOTERS", "1@kafka:9093,2@kafka-2:9093")),
    ("a controller missing from the quorum", lambda d: [_cluster_env(d, broker).__setitem__(
        "KAFKA_CONTROLLER_QUORUM_VOTERS", "1@kafka:9093,2@kafka-2:9093,4@kafka-4:9093") for broker in ("kafka", "kafka-2", "kafka-3")]),
    ("min.insync.replicas 1", lambda d: _cluster_env(d, "kafka").__setitem__("KAFKA_MIN_INSYNC_REPLICAS", "1")),
    ("replication 2", lambda d: _cluster_env(d, "kafka-2").__setitem__("KAFKA_DEFAULT_REPLICATION_FACTOR", "2")),
    ("offsets topic on one broker", lambda d: _cluster_env(d, "kafka-3").__setitem__("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")),
    ("unclean leader election on", lambda d: _cluster_env(d, "kafka").__setitem__("KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE", "true")),
    ("a third broker missing", lambda d: d["services"].pop("kafka-3")),
    ("a client missing a broker", lambda d: _cluster_env(d, "checkout").__setitem__("KAFKA_BROKERS", "kafka:9092,kafka-2:9092")),
    ("a client creating topics with replication 1", lambda d: _cluster_env(d, "reconciler").__setitem__("KAFKA_REPLICATION_FACTOR", "1")),
]


def self_test_kafka_cluster(compose_path: Path, root: Path, scratch: Path) -> list[str]:
    """The cluster override merged over the file passes; each broken copy of it fails [kafka-cluster]."""
    override = root / KAFKA_CLUSTER_OVERRIDE
    if not override.exists():
        return [f"{KAFKA_CLUSTER_OVERRIDE} is missing"]
    failures = []
    # The cluster runs over the TLS override (its users, password files and CA).
    tls = root / KAFKA_OVERRIDE
    clean = run(compose_path, root, override=[tls, override])
    if clean.errors:
        failures.append(f"{KAFKA_CLUSTER_OVERRIDE} merged over the file must pass:\n    " + "\n    ".join(clean.errors))
    if any(error.startswith("[kafka-cluster]") for error in run(compose_path, root).errors):
        failures.append("the single-broker file trips [kafka-cluster], which is for clusters only")
    # Through JSON so that YAML anchors no longer share one mapping among the brokers.
    fragment = json.loads(json.dumps(load_compose_fragment(override)))
    for number, (what, mutate) in enumerate(KAFKA_CLUSTER_MUTATIONS):
        broken = json.loads(json.dumps(fragment))
        mutate(broken)
        path = scratch / f"kafka-cluster-{number:02d}.yml"
        _dump(broken, path)
        errors = run(compose_path, root, override=[tls, path]).errors
        if not any(error.startswith("[kafka-cluster]") for error in errors):
            failures.append(f"a copy of {KAFKA_CLUSTER_OVERRIDE} with {what} passed: {errors or 'no errors'}")

    def check_with(broken: dict) -> list[str]:
        path = scratch / "kafka-acls-override.yml"
        _dump(broken, path)
        return run(compose_path, root, override=[tls, path]).errors

    failures += kafka_acls_self_test(fragment, root / KAFKA_ACL_TABLE, scratch, check_with)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--compose", type=Path)
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--override", type=Path, action="append",
                        help="a compose file merged over --compose before checking; repeat to merge several in order")
    options = parser.parse_args()
    root = options.root.resolve()
    compose_path = (options.compose or root / "docker-compose.yml").resolve()
    if options.self_test:
        return self_test(compose_path, root)
    override = [path.resolve() for path in options.override] if options.override else None
    report = run(compose_path, root, explain=options.explain, override=override)
    for note in report.notes:
        print(f"check-compose: {note}")
    if report.errors:
        print(f"check-compose: {compose_path} breaks {len(report.errors)} rule(s):", file=sys.stderr)
        for error in report.errors:
            print(f"  {error}", file=sys.stderr)
        return 1
    with_override = f" with {', '.join(path.name for path in override)} merged over it" if override else ""
    print(f"check-compose: {compose_path.name}{with_override} follows Storefront's rules ({len(compose_path.read_text().splitlines())} lines, "
          f"{len(load_compose(compose_path)['services'])} services)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
