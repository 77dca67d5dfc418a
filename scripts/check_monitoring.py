#!/usr/bin/env python3
"""Structural checks of the Grafana dashboards, without Grafana.

Grafana is not in the package registries here, so the dashboards are not
rendered; instead, for every JSON file in deploy/monitoring/grafana/dashboards/:

  - it parses, has a uid and a title, and every panel id is unique;
  - every panel that queries names the provisioned data source (uid
    `prometheus`, see ../provisioning/datasources/prometheus.yml);
  - every query parses as PromQL: they are written as recording rules into
    a scratch rules file (Grafana's `$__rate_interval` and `$__range` replaced
    by a duration) that `promtool check rules` then parses;
  - every metric a query names is one Storefront publishes (listed in
    docs/metrics.md) or Prometheus's own `up`.

    check_monitoring.py --rules-out FILE   check; write the scratch rules to FILE
    check_monitoring.py --self-test        prove each check catches a broken panel

Exit 1 on any finding. scripts/check-monitoring.sh runs promtool on FILE.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DASHBOARDS = ROOT / "deploy/monitoring/grafana/dashboards"
METRICS_DOC = ROOT / "docs/metrics.md"
DATASOURCE_UID = "prometheus"
#: Series Prometheus makes itself for every target.
BUILTIN_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
#: Grafana's interval variables, replaced before parsing.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h"}
#: PromQL words that look like identifiers but are not metric names.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def documented_metrics() -> set[str]:
    text = METRICS_DOC.read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z_:][a-z0-9_:]*)` \|", text, re.M))


def metric_names(expr: str) -> set[str]:
    """Identifiers in `expr` that name series: not functions, keywords, labels or strings."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # range and subquery durations
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)  # grouping labels
    names = set()
    for match in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", text):
        name = match.group(0)
        rest = text[match.end():].lstrip()
        if rest.startswith("(") or name.lower() in KEYWORDS:
            continue  # a function call or an operator word
        if re.fullmatch(r"\d+[smhdwy]", name):
            continue
        names.add(name)
    return names


def base_name(name: str, known: set[str]) -> str:
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in known:
            return name[: -len(suffix)]
    return name


def check_dashboard(path: Path, dashboard: dict, known: set[str], rules: list[dict]) -> list[str]:
    problems = []
    where = path.name
    for key in ("uid", "title"):
        if not dashboard.get(key):
            problems.append(f"{where}: no {key}")
    ids = [panel.get("id") for panel in dashboard.get("panels", [])]
    if len(ids) != len(set(ids)):
        problems.append(f"{where}: panel ids are not unique")
    for panel in dashboard.get("panels", []):
        targets = panel.get("targets", [])
        if panel.get("type") == "row":
            continue
        title = panel.get("title", "?")
        if not targets:
            problems.append(f"{where}: panel {title!r} has no query")
        for target in targets:
            source = target.get("datasource") or panel.get("datasource") or {}
            if source.get("uid") != DATASOURCE_UID:
                problems.append(f"{where}: panel {title!r} does not use the data source {DATASOURCE_UID!r}")
            expr = target.get("expr", "")
            if not expr.strip():
                problems.append(f"{where}: panel {title!r} has an empty query")
                continue
            for variable, value in GRAFANA_VARIABLES.items():
                expr = expr.replace(variable, value)
            if "$" in expr:
                problems.append(f"{where}: panel {title!r} uses a variable the check cannot substitute: {expr}")
                continue
            rules.append({"record": f"dashboard_check:{len(rules)}", "expr": expr})
            for name in sorted(metric_names(expr)):
                if base_name(name, known) not in known | BUILTIN_SERIES:
                    problems.append(f"{where}: panel {title!r} names {name}, which docs/metrics.md does not list")
    return problems


def check_all(dashboards: dict[Path, dict]) -> tuple[list[str], list[dict]]:
    known = documented_metrics()
    problems: list[str] = []
    rules: list[dict] = []
    if not dashboards:
        problems.append(f"no dashboards in {DASHBOARDS}")
    for path, dashboard in dashboards.items():
        problems += check_dashboard(path, dashboard, known, rules)
    return problems, rules


def load() -> dict[Path, dict]:
    return {path: json.loads(path.read_text(encoding="utf-8")) for path in sorted(DASHBOARDS.glob("*.json"))}


def write_rules(rules: list[dict], out: Path) -> None:
    # JSON is YAML; promtool reads it as a rules file.
    out.write_text(json.dumps({"groups": [{"name": "dashboard-queries", "rules": rules}]}, indent=1), encoding="utf-8")


def self_test() -> int:
    """Each check must catch a deliberately broken copy of a real panel."""
    dashboards = load()
    path, original = next(iter(dashboards.items()))
    panel_index = next(i for i, p in enumerate(original["panels"]) if p.get("targets"))
    breakages = {
        "unknown metric": lambda p: p["targets"][0].update(expr="rate(storefront_no_such_metric_total[5m])"),
        "wrong data source": lambda p: [t.update(datasource={"type": "prometheus", "uid": "other"}) for t in p["targets"]],
        "empty query": lambda p: p["targets"][0].update(expr=" "),
        "unknown variable": lambda p: p["targets"][0].update(expr="sum(up{job=\"$job\"})"),
    }
    failures = 0
    for name, breakage in breakages.items():
        broken = copy.deepcopy(original)
        breakage(broken["panels"][panel_index])
        problems, _ = check_all({path: broken})
        if not problems:
            print(f"self-test: a panel with {name} was not caught", file=sys.stderr)
            failures += 1
    # The parse itself is promtool's: its run on a broken expression is in check-monitoring.sh.
    if metric_names('sum by (job) (rate(a_total{x="y"}[5m])) / on (job) group_left b') != {"a_total", "b"}:
        print("self-test: metric_names misreads a query", file=sys.stderr)
        failures += 1
    print("self-test: every check caught its broken panel" if not failures else "self-test FAILED")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules-out", type=Path)
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    problems, rules = check_all(load())
    for problem in problems:
        print(f"[dashboards] {problem}", file=sys.stderr)
    if arguments.rules_out:
        write_rules(rules, arguments.rules_out)
    if not problems:
        print(f"dashboards: {len(rules)} queries, every metric documented")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
