"""compose.yaml: the compose specification, its services' command lines, mounts, keys, health
check, volumes, HTTP listeners and published ports, and what Prometheus mounts."""
import os
import re

from common import (DASHBOARD_PORT, DEPLOY, KEY_ROLES, LISTEN_FLAGS, METRICS_PORT, PATH_FLAGS, Invocation, indent,
                    listen_address, run, tool, wanted_port)
from report import check, fail, section


def interpolate(value):
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}", lambda m: os.environ.get(m.group(1), m.group(2) or ""), str(value))


def compose_mounts(service):
    mounts = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, str):
            parts = volume.split(":")
            mounts[parts[1]] = {"source": parts[0], "read_only": parts[2:] == ["ro"]}
        else:
            mounts[volume["target"]] = {"source": volume["source"], "read_only": volume.get("read_only", False),
                                        "create": volume.get("bind", {}).get("create_host_path", True), "type": volume["type"]}
    return mounts


def resolves(path, mounts):
    """A file or directory mounted itself, inside a mounted directory, or made of mounted files."""
    return any(path == target or path.startswith(target.rstrip("/") + "/") or target.startswith(path.rstrip("/") + "/")
               for target in mounts)


def published(service):
    """(host address, host port, container port) of each published port."""
    found = []
    for port in service.get("ports", []):
        if isinstance(port, dict):
            found.append((port.get("host_ip", "0.0.0.0"), str(port.get("published", "")), str(port.get("target"))))
        else:
            parts = interpolate(port).split("/")[0].rsplit(":", 2)
            found.append(("0.0.0.0", *parts) if len(parts) == 2 else tuple(parts) if len(parts) == 3 else ("0.0.0.0", parts[0], parts[0]))
    return found


def check_compose(findings):
    section("compose.yaml")
    compose_path = os.path.join(DEPLOY, "compose.yaml")
    result = run([tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", compose_path])
    check(result.returncode == 0, "meets the compose specification (check-jsonschema vendor.compose-spec)",
          "compose spec:\n" + indent(result.stdout + result.stderr))
    compose = (findings.documents.get(compose_path) or [{}])[0]
    services = compose.get("services", {})
    check({"coordinator", "worker", "prometheus"} <= set(services), "services coordinator, worker and prometheus")
    for name in ("coordinator", "worker"):
        check_service(findings, name, services.get(name, {}))
    check_coordinator(findings, compose, services)
    prometheus_mounts = compose_mounts(services.get("prometheus", {}))
    for wanted in ("prometheus.yml", "alerts.yml"):
        target = f"/etc/prometheus/{wanted}"
        source = prometheus_mounts.get(target, {}).get("source", "")
        check(source and os.path.isfile(os.path.join(DEPLOY, source)), f"prometheus mounts {source or wanted} at {target}")


def check_service(findings, name, service):
    """A coordinator or worker service: its command line, what it mounts, its keys, its health check."""
    invocations = findings.invocations
    command = [interpolate(c) for c in service.get("command", [])]
    if not command:
        fail(f"{name}: no command")
        return
    invocations.append(Invocation(f"compose.yaml {name}", command[0], command[1:], True))
    mounts = compose_mounts(service)
    inv = invocations[-1]
    check(inv.subcommand == name, f"{name} runs `cluster {name}`")
    check(service.get("restart") in ("always", "unless-stopped", "on-failure"),
          f"{name}: started again when it dies (restart: {service.get('restart')})")
    for flag in PATH_FLAGS:
        for value in inv.values(flag):
            check(resolves(value, mounts), f"{name}: {flag} {value} is mounted", f"{name}: {flag} {value} is in no volume")
    keys = {target: m for target, m in mounts.items() if m["source"].startswith("./keys/")}
    check(keys and all(m["read_only"] for m in keys.values()), f"{name}: {len(keys)} key files from ./keys, read-only")
    check(all(m.get("create") is False for m in keys.values()), f"{name}: a missing key file is an error (create_host_path: false)")
    exposed = [t for t, m in keys.items() if m["source"].endswith(".key") and os.path.basename(m["source"]) not in (f"{name}.key", "probe.key")]
    check(not exposed, f"{name}: sees no other node's secret key", f"{name}: mounts another node's secret key: {exposed}")
    health = service.get("healthcheck", {}).get("test")
    if isinstance(health, list) and health[:2] == ["CMD", "cluster"]:
        invocations.append(Invocation(f"compose.yaml {name} healthcheck", health[2], health[3:], True))
        for flag in PATH_FLAGS:
            for value in invocations[-1].values(flag):
                check(resolves(value, mounts), f"{name} healthcheck: {flag} {value} is mounted",
                      f"{name} healthcheck: {flag} {value} is in no volume")


def check_coordinator(findings, compose, services):
    """The journal on a named volume, the health check, the worker's replicas, the HTTP listeners
    on every interface of the container, and the dashboard published on loopback only."""
    invocations = findings.invocations
    coordinator_service = services.get("coordinator", {})
    state = next((i.value("--state") for i in invocations if i.source == "compose.yaml coordinator"), None)
    state_mount = compose_mounts(coordinator_service).get(state or "", {})
    check(state_mount and state_mount["source"] in (compose.get("volumes") or {}),
          f"coordinator --state {state} is the named volume {state_mount.get('source')}")
    check(coordinator_service.get("healthcheck", {}).get("test", [None, None, None])[1:3] == ["cluster", "status"],
          "coordinator health check runs `cluster status`")
    coordinator = next((i for i in invocations if i.source == "compose.yaml coordinator"), None)
    root = coordinator.value("--output-root") if coordinator else None
    root_mount = compose_mounts(coordinator_service).get(root or "", {})
    check(root_mount and root_mount["source"] in (compose.get("volumes") or {}),
          f"coordinator --output-root {root} is the named volume {root_mount.get('source')}",
          f"coordinator --output-root {root} is not a named volume of its own")
    authorized = coordinator.value("--authorized-keys") if coordinator else None
    keys = [t for t in compose_mounts(coordinator_service) if authorized and t.startswith(authorized.rstrip("/") + "/")]
    roleless = [t for t in keys if t[len(authorized.rstrip("/")) + 1:].split("/")[0] not in KEY_ROLES]
    check(keys and not roleless, f"coordinator: each authorized key is in a role directory ({', '.join(k[len(authorized) + 1:] for k in keys)})",
          f"coordinator: authorized keys without a role directory: {roleless}")
    check(isinstance(services.get("worker", {}).get("deploy", {}).get("replicas"), int), "worker has deploy.replicas (scale with --scale worker=N)")
    for name, flags in (("coordinator", LISTEN_FLAGS), ("worker", ("--metrics-bind",))):
        inv = next((i for i in invocations if i.source == f"compose.yaml {name}"), None)
        for flag in flags:
            want = ("0.0.0.0", wanted_port(flag))
            check(listen_address(inv, flag) == want, f"{name}: {flag} 0.0.0.0:{want[1]} (every interface of its container)",
                  f"{name}: {flag} is {inv.value(flag) if inv else None}, not 0.0.0.0:{want[1]}")
    http_published = [p for p in published(coordinator_service) if p[2] in (str(METRICS_PORT), str(DASHBOARD_PORT))]
    check(any(p[2] == str(DASHBOARD_PORT) for p in http_published) and all(p[0] == "127.0.0.1" for p in http_published),
          f"coordinator: the dashboard ({DASHBOARD_PORT}) is published on the host's loopback only, metrics ({METRICS_PORT}) not beyond it",
          f"coordinator: dashboard/metrics published as {http_published} (the dashboard must be published, on 127.0.0.1 only)")
