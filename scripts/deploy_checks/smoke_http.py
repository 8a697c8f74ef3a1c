"""The smoke test's HTTP checks: while a deploy file's coordinator and worker run, /healthz
answers on every listener (and on the Kubernetes probes' own paths), /metrics passes `promtool
check metrics` and serves what the alerts and the autoscaler use, and the dashboard answers."""
import json
import os
import re
import shlex
import time
import urllib.error
import urllib.request

from common import indent, run
from report import check

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy


def http_get(port, path, headers=None):
    """(status, content type, body) of GET http://127.0.0.1:port/path; status None if unanswered."""
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
        with _opener.open(request, timeout=5) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode("utf-8", "replace")
    except (OSError, ValueError) as error:
        return None, "", str(error)


def http_until(port, path, done=lambda answer: answer[0] == 200, seconds=5):
    """Asks again until done(answer) or seconds pass (a listener starts just after its node)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = http_get(port, path)
        if done(answer) or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


def exposition(text):
    """Metric names (families and samples), (name, label, value) of every sample, counts."""
    names, labelled, samples, families = set(), set(), 0, 0
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
            families += 1
        elif line and not line.startswith("#"):
            sample = re.match(r"([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s", line)
            if sample:
                samples += 1
                names.add(sample.group(1))
                labelled.update((sample.group(1), label, value)
                                for label, value in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', sample.group(2) or ""))
    return names, labelled, samples, families


def workers_connected(answer):
    value = re.search(r"^photocluster_workers_connected\s+(\S+)", answer[2], re.M) if answer[0] == 200 else None
    return float(value.group(1)) if value else None


def print_logs(started):
    for role, process, argv, log in started:
        with open(log) as f:
            print(indent(f"{role} (exit {process.poll()}): {shlex.join(argv)}\n{f.read()}"))


def live_http(findings, flavour, started, listeners):
    """listeners: {role: {flag: (address given, port used)}} of the running coordinator and worker."""
    where = {f"{role} {flag} {given}": port for role in ("coordinator", "worker")
             for flag, (given, port) in listeners.get(role, {}).items()}
    answers = {what: http_until(port, "/healthz") for what, port in where.items()}
    bad = [f"{what}: {a[0]} {a[2].strip()[:200]}" for what, a in answers.items() if not (a[0] == 200 and a[2].strip() == "ok")]
    if not check(where and not bad, f'{flavour}: /healthz answers "ok" on {", ".join(where)} '
                 f'(run on 127.0.0.1:{", ".join(str(p) for p in where.values())})',
                 f"{flavour}: /healthz: " + ("; ".join(bad) or "no HTTP listener on the command lines")):
        print_logs(started)
    if flavour == "kubernetes":
        for name, kind, path, flag in findings.k8s_http_probes:
            role = "coordinator" if name.endswith("coordinator") else "worker"
            port = listeners.get(role, {}).get(flag, (None, None))[1]
            answer = http_until(port, path) if port else (None, "", f"no {flag} on the command line")
            check(answer[0] == 200, f"kubernetes: {name} {kind} (GET {path} on its {flag} port) answers 200",
                  f"kubernetes: {name} {kind}: GET {path} on its {flag} port: {answer[0]} {answer[2][:200]}")
    metrics_ports = [port for role in ("coordinator", "worker") for flag, (_, port) in listeners.get(role, {}).items()
                     if flag == "--metrics-bind"]
    pages = [http_get(port, "/")[0] for port in metrics_ports]
    check(metrics_ports and all(status == 404 for status in pages),
          f"{flavour}: the --metrics-bind listeners serve no dashboard (GET / is 404 there)",
          f"{flavour}: GET / on the --metrics-bind listeners: {pages}")
    for role in ("coordinator", "worker"):
        port = listeners.get(role, {}).get("--metrics-bind", (None, None))[1]
        if port:
            check_metrics(findings, flavour, role, port)
    port = listeners.get("coordinator", {}).get("--http", (None, None))[1]
    if port:
        token = dashboard_token(started)
        check(token, f"{flavour}: the coordinator wrote its dashboard's token into its state directory",
              f"{flavour}: no dashboard.token in the coordinator's --state")
        bearer = {"Authorization": f"Bearer {token}"}
        refused = http_get(port, "/api/overview")
        check(refused[0] == 401, f"{flavour}: the dashboard refuses a request without its token (401)",
              f"{flavour}: GET /api/overview without the token: {refused[0]} {refused[2][:200]}")
        page, overview = http_get(port, "/", bearer), http_get(port, "/api/overview", bearer)
        try:
            listed = len(json.loads(overview[2]).get("workers", [])) if overview[0] == 200 else 0
        except ValueError:
            listed = 0
        check(page[0] == 200 and page[1].startswith("text/html") and listed == 1,
              f"{flavour}: the dashboard (--http) serves its page and /api/overview, which lists the worker",
              f"{flavour}: dashboard: GET / {page[0]} {page[1]}, GET /api/overview {overview[0]} ({listed} workers) {overview[2][:200]}")


def dashboard_token(started):
    """The token the running coordinator wrote to dashboard.token in its --state, or None."""
    argv = next((argv for role, _, argv, _ in started if role == "coordinator"), [])
    state = next((argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--state"), None)
    try:
        with open(os.path.join(state, "dashboard.token")) as f:
            return f.read().strip()
    except (OSError, TypeError):
        return None


def check_metrics(findings, flavour, role, port):
    # The coordinator's: once it counts the joined worker (its gauges move once a second); a
    # worker's: once it serves what the alerts use of it (recorded once a heartbeat).
    worker_metrics = findings.worker_metrics
    answer = http_until(port, "/metrics", (lambda a: workers_connected(a) == 1) if role == "coordinator" else
                        (lambda a: a[0] == 200 and worker_metrics <= exposition(a[2])[0]))
    if not check(answer[0] == 200 and answer[1].startswith("text/plain"), f"{flavour}: the {role}'s /metrics answers (text/plain)",
                 f"{flavour}: the {role}'s /metrics: {answer[0]} {answer[1]} {answer[2][:200]}"):
        return
    names, labelled, samples, families = exposition(answer[2])
    result = run(["promtool", "check", "metrics"], input=answer[2])
    check(result.returncode == 0, f"{flavour}: promtool check metrics: the {role}'s /metrics "
          f"({families} metrics, {samples} samples)",
          f"{flavour}: promtool check metrics, the {role}'s /metrics:\n" + indent(result.stdout + result.stderr))
    if role != "coordinator":
        missing = sorted(worker_metrics - names)
        check(not missing, f"{flavour}: the worker's /metrics has every metric alerts.yml selects of a worker ({', '.join(sorted(worker_metrics))})",
              f"{flavour}: the worker's /metrics lacks {', '.join(missing)} (alerts.yml selects them with job=\"photocluster-worker\")")
        return
    used_metrics, used_labels, metric_users = findings.used_metrics, findings.used_labels, findings.metric_users
    # Leadership metrics need a shared PostgreSQL journal, which this coordinator has not: they
    # are checked against the metric catalog only (check_metric_names). A worker serves its own.
    shared_only = used_metrics & findings.shared_journal_metrics
    missing = sorted(used_metrics - shared_only - worker_metrics - names)
    check(not missing, f"{flavour}: the coordinator's /metrics has every metric {', '.join(metric_users)} use "
          f"({len(used_metrics - shared_only)}; not {', '.join(sorted(shared_only)) or 'none'}, served with a shared journal only)",
          f"{flavour}: the coordinator's /metrics lacks {', '.join(missing)} (used by {', '.join(metric_users)})")
    unserved = sorted(f'{n}{{{l}="{v}"}}' for n, l, v in used_labels if (n, l, v) not in labelled)
    check(not unserved, f"{flavour}: the coordinator's /metrics has every label value alerts.yml selects "
          f"({', '.join(sorted(f'{l}={v}' for _, l, v in used_labels))})",
          f"{flavour}: the coordinator's /metrics has no {', '.join(unserved)} (selected by alerts.yml)")
    connected = workers_connected(answer)
    check(connected == 1, f"{flavour}: photocluster_workers_connected is 1 with its worker joined",
          f"{flavour}: photocluster_workers_connected is {connected} with its worker joined")
