"""Paths, constants and helpers every group of deploy checks uses."""
import glob
import os
import re
import subprocess

ROOT = os.environ["CHECK_DEPLOY_ROOT"]
TOOLS = os.environ["CHECK_DEPLOY_TOOLS"]
CLUSTER = os.environ["CHECK_DEPLOY_CLUSTER"] or None
DEPLOY = os.path.join(ROOT, "deploy")
K8S_DIR = os.path.join(DEPLOY, "kubernetes")
# The highly available coordinator: an overlay of K8S_DIR (a sibling, as kustomize wants).
K8S_HA_DIR = os.path.join(DEPLOY, "kubernetes-ha")
PROMETHEUS_DIR = os.path.join(DEPLOY, "prometheus")
# Oldest Kubernetes these manifests claim to support, and the newest schema at hand.
K8S_VERSIONS = ["1.28.0", "1.37.0"]
# Where the metrics (/metrics, /healthz) and the coordinator's dashboard listen in containers.
METRICS_PORT = 9464
DASHBOARD_PORT = 8080
# The flags that take an HTTP listener's HOST:PORT (or off).
LISTEN_FLAGS = ("--metrics-bind", "--http")
# The metric names the binary exports (help texts, histogram buckets): checked statically, and
# against a running coordinator's /metrics when the binary is built.
METRIC_CATALOG = os.path.join(ROOT, "Sources", "PhotoClusterMetrics", "MetricCatalog.swift")
# Labels Prometheus attaches to a target (scrape configuration), never in the exposition itself.
TARGET_LABELS = {"job", "instance", "namespace", "pod", "role"}
REQUIRED_RUNTIME_PACKAGES = {"libzmq5", "libcurl4", "libpng16-16", "libjpeg62-turbo", "libwebp7", "libwebpmux3", "libheif1", "libtiff6", "libgif7", "libjxl0.7", "liblcms2-2", "libsqlite3-0", "libpq5"}
# systemd-analyze security: overall exposure, 0-100 (shown as 0.0-10.0); ours are about 15.
SYSTEMD_EXPOSURE_THRESHOLD = 25
# Flags whose value is a path to a file or directory in the container / host.
PATH_FLAGS = ("--state", "--curve-secret", "--coordinator-key", "--authorized-keys", "--plugins", "--output-root", "--http-token-file")
# The role directories of an authorized-keys directory: a key in one may connect in that role.
KEY_ROLES = ("worker", "client", "admin")


def rel(path):
    return os.path.relpath(path, ROOT)


def run(argv, timeout=60, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)


def indent(text, prefix="         "):
    return "\n".join(prefix + line for line in text.rstrip().splitlines())


def tool(name):
    """A tool from the virtual environment scripts/check-deploy makes."""
    return os.path.join(TOOLS, "bin", name)


def deploy_files(*patterns):
    found = set()
    for pattern in patterns:
        found.update(glob.glob(os.path.join(DEPLOY, "**", pattern), recursive=True))
    # Keys made for compose or Kubernetes are never part of what is checked.
    return sorted(f for f in found if "/keys/" not in f[len(DEPLOY):])


def strings(value):
    """Every string in a parsed YAML document (values, not comments)."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings(k) + strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


class Invocation:
    """A `cluster` command line found in a deploy file: where, which subcommand, its arguments,
    and whether it runs (active) or is only prose (a comment, the README)."""

    def __init__(self, source, subcommand, args, active):
        self.source, self.subcommand, self.args, self.active = source, subcommand, list(args), active

    def flags(self):
        return [a.split("=", 1)[0] for a in self.args if re.fullmatch(r"--[a-z][a-z0-9-]*(=.*)?", a)]

    def value(self, flag):
        for i, a in enumerate(self.args):
            if a == flag and i + 1 < len(self.args):
                return self.args[i + 1]
            if a.startswith(flag + "="):
                return a.split("=", 1)[1]
        return None

    def values(self, flag):
        return [self.args[i + 1] for i, a in enumerate(self.args) if a == flag and i + 1 < len(self.args)]


def listen_address(inv, flag):
    """(host, port) of a --metrics-bind/--http value, None when absent, off or malformed."""
    value = inv.value(flag) if inv else None
    match = re.fullmatch(r"\[?([^\]]*?)\]?:(\d+)", value or "")
    return (match.group(1), int(match.group(2))) if match else None


def wanted_port(flag):
    return METRICS_PORT if flag == "--metrics-bind" else DASHBOARD_PORT


class Findings:
    """What one group of checks learns that a later one needs: the parsed files, every `cluster`
    command line, the Kubernetes Deployments and their HTTP probes, the metrics the alerts use."""

    def __init__(self):
        self.documents = {}          # path -> [parsed documents]
        self.invocations = []        # Invocation, in the order found
        self.k8s_coordinator = None  # the coordinator Deployment, when rendered
        self.k8s_worker = None
        self.k8s_http_probes = []    # (deployment, probe kind, path, listener flag)
        self.metric_users = {}       # file name -> text naming metrics
        self.used_metrics = set()
        self.worker_metrics = set()  # used by the alerts from a worker's own scrape
        self.used_labels = set()     # (metric, label, value) the alerts select
        self.shared_journal_metrics = set()  # served only by coordinators on a shared PostgreSQL journal
