"""deploy/prometheus: promtool checks the configuration and rules and runs the alert unit tests;
the metrics the alerts, the autoscaler and the adapter use are catalogued; the scrape jobs and
ports match compose.yaml; every alert is explained in deploy/README.md, whose Kubernetes scrape
configuration is valid and keeps the container port the Deployments name."""
import os
import re
import tempfile

import yaml

from common import (DEPLOY, K8S_DIR, METRIC_CATALOG, PROMETHEUS_DIR, TARGET_LABELS, indent, listen_address, rel, run,
                    strings)
from report import check, section


def check_prometheus(findings):
    section("Prometheus")
    for argv, what in ((["check", "config", "prometheus.yml"], "promtool check config prometheus.yml"),
                       (["check", "rules", "alerts.yml"], "promtool check rules alerts.yml"),
                       (["test", "rules", "alerts_test.yml"], "promtool test rules alerts_test.yml (alert unit tests)")):
        result = run(["promtool"] + argv, cwd=PROMETHEUS_DIR)
        check(result.returncode == 0, what, f"{what}:\n" + indent(result.stdout + result.stderr))
    documents = findings.documents
    rules = [r for g in (documents.get(os.path.join(PROMETHEUS_DIR, "alerts.yml")) or [{}])[0].get("groups", []) for r in g["rules"]]
    check_metric_names(findings, rules)
    config = (documents.get(os.path.join(PROMETHEUS_DIR, "prometheus.yml")) or [{}])[0]
    jobs = {c["job_name"] for c in config.get("scrape_configs", [])}
    check({"photocluster-coordinator", "photocluster-worker"} <= jobs, "scrapes jobs photocluster-coordinator and photocluster-worker")
    check_scrape_ports(findings, config)
    expressions = " ".join(r["expr"] for r in rules)
    for wanted, pattern in (("no workers connected", "photocluster_workers_connected"),
                            ("throughput stalled", "photocluster_queue_depth"),
                            ("failure ratio", 'outcome="failed"')):
        check(pattern in expressions, f"an alert for {wanted}")
    check_readme(findings, [r["alert"] for r in rules if "alert" in r], jobs)


def check_metric_names(findings, rules):
    """The metric names the alerts, the autoscaler and the Prometheus adapter rely on, and the
    label values the alerts select (outcome="failed", ...): all must be in the coordinator's
    /metrics (checked live by the smoke test; those the alerts select with
    job="photocluster-worker", in a worker's) and in the metric catalog."""
    documents = findings.documents
    metric_users = {"alerts.yml": " ".join(r["expr"] for r in rules)}
    for path in (os.path.join(K8S_DIR, "worker-hpa.yaml"), os.path.join(K8S_DIR, "prometheus-adapter-values.yaml")):
        metric_users[os.path.basename(path)] = " ".join(strings(documents.get(path, [])))
    used_metrics = {m for text in metric_users.values() for m in re.findall(r"\bphotocluster_[a-z0-9_]+", text)}
    used_labels, worker_metrics = set(), set()
    for name, selector in re.findall(r"\b(photocluster_[a-z0-9_]+)\s*\{([^}]*)\}", metric_users["alerts.yml"]):
        for label, value in re.findall(r"(\w+)\s*!?=\s*\"([^\"]*)\"", selector):
            if label == "job" and value == "photocluster-worker":
                worker_metrics.add(name)  # from each worker's own scrape
            elif label not in TARGET_LABELS:
                used_labels.add((name, label, value))
    findings.metric_users, findings.used_metrics, findings.used_labels = metric_users, used_metrics, used_labels
    findings.worker_metrics = worker_metrics
    check(metric_users["alerts.yml"] and {"photocluster_queue_depth"} <= used_metrics,
          f"{len(used_metrics)} metric names used by {', '.join(metric_users)}: {', '.join(sorted(used_metrics))}",
          f"metric names found in {', '.join(metric_users)}: {sorted(used_metrics)} (none in alerts.yml, or no photocluster_queue_depth for the autoscaler)")
    if os.path.exists(METRIC_CATALOG):
        with open(METRIC_CATALOG) as f:
            catalog_text = f.read()
        families = set(re.findall(r'MetricDefinition\(\s*"(photocluster_[a-z0-9_]+)"', catalog_text))
        histograms = set(re.findall(r'MetricDefinition\(\s*"(photocluster_[a-z0-9_]+)",[^)]*buckets:', catalog_text))
        catalogued = families | {h + suffix for h in histograms for suffix in ("_bucket", "_sum", "_count")}
        check(used_metrics <= catalogued, f"each is in {rel(METRIC_CATALOG)} ({len(families)} metrics)",
              f"not in {rel(METRIC_CATALOG)}: {', '.join(sorted(used_metrics - catalogued))}")
        findings.shared_journal_metrics = shared_journal_metrics(catalog_text)


def shared_journal_metrics(catalog_text):
    """The names of the catalog's `leadership` metrics, which only a coordinator on a shared
    PostgreSQL journal serves (the smoke test's coordinators run without one)."""
    names = dict(re.findall(r'static let (\w+) = MetricDefinition\(\s*"(photocluster_[a-z0-9_]+)"', catalog_text))
    listed = re.search(r"static let leadership: \[MetricDefinition\] = \[([^\]]*)\]", catalog_text)
    return {names[i] for i in re.findall(r"\w+", listed.group(1)) if i in names} if listed else set()


def check_scrape_ports(findings, config):
    """The scrape targets' ports are the ports compose.yaml binds --metrics-bind to."""
    scrape_ports = {}
    for job in config.get("scrape_configs", []):
        for static in job.get("static_configs", []):
            scrape_ports.setdefault(job["job_name"], set()).update(int(t.rsplit(":", 1)[1]) for t in static.get("targets", []))
        for dns in job.get("dns_sd_configs", []):
            scrape_ports.setdefault(job["job_name"], set()).add(dns.get("port"))
    bind_ports = {f"photocluster-{i.subcommand}": (listen_address(i, "--metrics-bind") or (None, None))[1]
                  for i in findings.invocations if i.source in ("compose.yaml coordinator", "compose.yaml worker")}
    check(all(scrape_ports.get(job) == {port} for job, port in bind_ports.items()) and len(bind_ports) == 2,
          f"prometheus.yml scrapes the ports compose.yaml's --metrics-bind listens on ({', '.join(f'{j} {p}' for j, p in sorted(bind_ports.items()))})",
          f"prometheus.yml scrapes {scrape_ports}, compose.yaml's --metrics-bind ports are {bind_ports}")


def promtool_config(text):
    with tempfile.NamedTemporaryFile("w", suffix=".yml", prefix="check-deploy-scrape-") as f:
        f.write(text)
        f.flush()
        return run(["promtool", "check", "config", f.name])


def check_readme(findings, alert_names, jobs):
    """deploy/README.md explains every alert, and its Kubernetes scrape configuration is valid,
    has the same job names, and keeps the container port named metrics, which both Deployments
    declare."""
    with open(os.path.join(DEPLOY, "README.md")) as f:
        readme = f.read()
    undocumented = [a for a in alert_names if a not in readme]
    check(not undocumented, f"deploy/README.md explains every alert ({len(alert_names)})", f"deploy/README.md does not mention {', '.join(undocumented)}")
    readme_configs = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "kubernetes_sd_configs" in b]
    if not check(len(readme_configs) == 1, "deploy/README.md has one Kubernetes scrape configuration (a ```yaml block)"):
        return
    result = promtool_config(readme_configs[0])
    what = "promtool check config: deploy/README.md's Kubernetes scrape configuration"
    if result.returncode and "field kubernetes_sd_configs not found" in result.stdout + result.stderr:
        # Debian's promtool is built without Kubernetes discovery: check the rest (relabelling)
        # with each kubernetes_sd_configs swapped for an empty static_configs.
        swapped = yaml.safe_load(readme_configs[0])
        for job in swapped.get("scrape_configs", []):
            if job.pop("kubernetes_sd_configs", None) is not None:
                job["static_configs"] = [{"targets": []}]
        result = promtool_config(yaml.safe_dump(swapped))
        what += " (this promtool lacks Kubernetes discovery: kubernetes_sd_configs swapped for static_configs)"
    check(result.returncode == 0, what, f"{what}:\n" + indent(result.stdout + result.stderr))
    k8s_scrapes = (yaml.safe_load(readme_configs[0]) or {}).get("scrape_configs", [])
    by_port_name = [c["job_name"] for c in k8s_scrapes
                    if any("__meta_kubernetes_pod_container_port_name" in r.get("source_labels", []) and r.get("regex") == "metrics"
                           and r.get("action") == "keep" for r in c.get("relabel_configs", []))]
    declared = all(any(p.get("name") == "metrics" for c in d["spec"]["template"]["spec"]["containers"] for p in c.get("ports", []))
                   for d in (findings.k8s_coordinator, findings.k8s_worker) if d)
    check(set(by_port_name) == jobs and declared,
          f"it has the jobs of prometheus.yml ({', '.join(sorted(by_port_name))}), each keeping the pods' container port named metrics",
          f"README scrape jobs keeping port metrics: {by_port_name} (prometheus.yml has {sorted(jobs)}); both Deployments declare it: {declared}")
