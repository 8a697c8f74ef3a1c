"""The Kubernetes manifests: they render with kustomize and validate strictly against the
schemas; namespaces, Deployments, the Service, HTTP listeners and probes, and the autoscaler
hold together (pod templates: kubernetes_pods.py)."""
import os
import shutil
import tempfile

import yaml

from common import (DASHBOARD_PORT, K8S_DIR, K8S_HA_DIR, K8S_VERSIONS, KEY_ROLES, LISTEN_FLAGS, METRICS_PORT, deploy_files, indent,
                    listen_address, rel, run, tool, wanted_port)
from kubernetes_pods import check_pod
from report import check, note, ok, section


def check_kubernetes(findings):
    section("Kubernetes")
    everything = render(findings)
    by_kind = {}
    for d in everything:
        by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    namespaced = [d for d in everything if d["kind"] != "Namespace"]
    check(all(d["metadata"].get("namespace") == "photocluster" for d in namespaced) and "photocluster" in by_kind.get("Namespace", {}),
          "every resource is in namespace photocluster, which is defined")
    secrets = by_kind.get("Secret", {})
    claims = by_kind.get("PersistentVolumeClaim", {})
    deployments = by_kind.get("Deployment", {})
    coordinator = deployments.get("photocluster-coordinator")
    worker = deployments.get("photocluster-worker")
    findings.k8s_coordinator, findings.k8s_worker = coordinator, worker
    check(coordinator and worker, "Deployments photocluster-coordinator and photocluster-worker")
    for name, deployment in deployments.items():
        selector = deployment["spec"]["selector"]["matchLabels"]
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        check(selector.items() <= labels.items(), f"{name}: selector matches the pod labels")
        check_pod(findings, name, deployment["spec"]["template"]["spec"], secrets, claims)
    if coordinator:
        check_coordinator(findings, coordinator)
    if worker:
        check("replicas" not in worker["spec"], "worker: no replicas in the manifest, so re-applying keeps `kubectl scale` / HPA counts")
        container = worker["spec"]["template"]["spec"]["containers"][0]
        check(all(kind in container for kind in ("readinessProbe", "livenessProbe")), "worker: readiness and liveness probes")
        check(worker["spec"]["template"]["spec"].get("terminationGracePeriodSeconds", 30) >= 10, "worker: time to hand photos back on SIGTERM")
    service = by_kind.get("Service", {}).get("photocluster-coordinator", {})
    ports = {p["port"]: p for p in service.get("spec", {}).get("ports", [])}
    check({7000, 7001} <= set(ports), "Service photocluster-coordinator exposes 7000 (workers) and 7001 (clients)")
    if coordinator:
        pod_labels = coordinator["spec"]["template"]["metadata"]["labels"]
        check(service.get("spec", {}).get("selector", {}).items() <= pod_labels.items(), "Service selects the coordinator pod")
        named = {p["name"] for c in coordinator["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
        check(all(p["targetPort"] in named or isinstance(p["targetPort"], int) for p in ports.values()), "Service targetPorts are container ports")
        worker_endpoint = next((i.value("--coordinator") for i in findings.invocations
                                if i.source.startswith("kubernetes photocluster-worker") and i.subcommand == "worker"), "")
        check(worker_endpoint == "tcp://photocluster-coordinator:7000", f"workers connect to the Service ({worker_endpoint})")
    check_http_listeners(findings, coordinator, worker)
    if coordinator:
        check_service_http_ports(service, ports)
    hpas = by_kind.get("HorizontalPodAutoscaler", {})
    for name, hpa in hpas.items():
        target = hpa["spec"]["scaleTargetRef"]
        check(hpa["apiVersion"] == "autoscaling/v2" and target["kind"] == "Deployment" and target["name"] in deployments,
              f"HPA {name} (autoscaling/v2) scales Deployment {target['name']}")
        check(any(m["type"] in ("External", "Object") for m in hpa["spec"]["metrics"]), f"HPA {name} scales on an External/Object metric")
    check(hpas, "a HorizontalPodAutoscaler for the workers")


def render(findings):
    """Every resource: the kustomization rendered with placeholder keys (by kustomize, or by hand
    without kubectl), plus the manifests applied on their own; validated against each schema."""
    documents = findings.documents
    with open(os.path.join(K8S_DIR, "kustomization.yaml")) as f:
        kustomization = yaml.safe_load(f)
    if shutil.which("kubectl"):
        rendered = kustomize(K8S_DIR)
    else:
        note("kubectl not found: Secrets are made from kustomization.yaml by this script instead of kustomize")
        rendered = [d for r in kustomization["resources"] for d in documents.get(os.path.join(K8S_DIR, r), [])]
        for generator in kustomization.get("secretGenerator", []):
            rendered.append({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                             "metadata": {"name": generator["name"], "namespace": kustomization["namespace"]},
                             "data": {os.path.basename(p): "" for p in generator["files"]}})
    standalone = [p for p in deploy_files("*.yaml", "*.yml") if p.startswith(K8S_DIR + "/")
                  and os.path.basename(p) not in kustomization["resources"] and os.path.basename(p) != "kustomization.yaml"]
    extra = []
    for path in standalone:
        manifests = [d for d in documents.get(path, []) if isinstance(d, dict) and "apiVersion" in d and "kind" in d]
        if manifests:
            extra.extend(manifests)
            ok(f"{rel(path)}: applied on its own ({', '.join(d['kind'] for d in manifests)})")
        else:
            ok(f"{rel(path)}: not a manifest (configuration for another tool), parsed only")
    everything = rendered + extra
    validate(everything)
    return everything


def kustomize(directory):
    """The resources `kubectl kustomize` makes of one of the Kubernetes directories, rendered in a
    scratch copy of them all (an overlay names its base by a relative path) where every key file
    the kustomizations' generators read is a placeholder; [] when it fails (a failed check)."""
    render_dir = tempfile.mkdtemp(prefix="check-deploy-k8s-")
    try:
        for source in (K8S_DIR, K8S_HA_DIR):
            if os.path.isdir(source):
                copy = os.path.join(render_dir, os.path.basename(source))
                shutil.copytree(source, copy, ignore=shutil.ignore_patterns("keys"))
                placeholder_keys(source, copy, quiet=source != directory)
        result = run(["kubectl", "kustomize", os.path.join(render_dir, os.path.basename(directory))])
        if check(result.returncode == 0, f"kubectl kustomize renders {rel(directory)}/ (placeholder keys)",
                 f"kubectl kustomize {rel(directory)}/:\n" + indent(result.stderr)):
            return [d for d in yaml.safe_load_all(result.stdout) if d]
        return []
    finally:
        shutil.rmtree(render_dir, ignore_errors=True)


def placeholder_keys(source, copy, quiet=False):
    """The generators' files (`files: [KEY=]PATH`) as placeholders: kustomize only packs them into
    Secrets. An `envs:` file takes the lines of its example beside the kustomization
    (keys/NAME.env: NAME.env.example), which says which keys the Secret has."""
    with open(os.path.join(source, "kustomization.yaml")) as f:
        kustomization = yaml.safe_load(f)
    for generator in kustomization.get("secretGenerator", []):
        for entry in generator.get("files", []):
            path = os.path.join(copy, entry.split("=", 1)[-1])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(f"# placeholder for {os.path.basename(path)}\n")
        for entry in generator.get("envs", []):
            path = os.path.join(copy, entry)
            example = os.path.join(source, os.path.basename(entry) + ".example")
            if os.path.isfile(example) if quiet else check(
                    os.path.isfile(example), f"{rel(example)}: the example of {entry}",
                    f"{rel(source)}/kustomization.yaml: {entry} has no example {rel(example)}"):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                shutil.copy(example, path)


def validate(everything, what=""):
    """Strict validation of the resources against each schema version."""
    render_dir = tempfile.mkdtemp(prefix="check-deploy-k8s-")
    try:
        bundle = os.path.join(render_dir, "all.yaml")
        with open(bundle, "w") as f:
            yaml.safe_dump_all(everything, f)
        for version in K8S_VERSIONS:
            result = run([tool("kubernetes-validate"), "--strict", "--quiet", "-k", version, bundle])
            check(result.returncode == 0, f"{what}{len(everything)} resources validate against the Kubernetes {version} schemas (strict)",
                  f"{what}kubernetes-validate {version}:\n" + indent(result.stdout + result.stderr))
    finally:
        shutil.rmtree(render_dir, ignore_errors=True)


def check_coordinator(findings, coordinator):
    spec = coordinator["spec"]
    check(spec.get("replicas") == 1 and spec.get("strategy", {}).get("type") == "Recreate", "coordinator: replicas 1, strategy Recreate")
    container = spec["template"]["spec"]["containers"][0]
    inv = next(i for i in findings.invocations if i.source.endswith(f"{container['name']} args"))
    state_mount = next((m for m in container.get("volumeMounts", []) if m["mountPath"] == inv.value("--state")), None)
    state_volume = next((v for v in spec["template"]["spec"]["volumes"] if state_mount and v["name"] == state_mount["name"]), {})
    check("persistentVolumeClaim" in state_volume, f"coordinator: --state {inv.value('--state')} is on a PersistentVolumeClaim")
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = container.get(kind, {}).get("exec", {}).get("command", [])
        check(command[:2] == ["cluster", "status"] and container[kind].get("timeoutSeconds", 1) > 5,
              f"coordinator: {kind} runs `cluster status` with a timeout above status's own 5 s")
    check(inv.value("--curve-secret") and inv.values("--authorized-keys"), "coordinator: CURVE on (--curve-secret, --authorized-keys)")
    volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
    mounts = {m["mountPath"]: m for m in container.get("volumeMounts", [])}
    root = inv.value("--output-root")
    check("persistentVolumeClaim" in volumes.get(mounts.get(root, {}).get("name"), {}),
          f"coordinator: --output-root {root} is on a PersistentVolumeClaim", f"coordinator: --output-root {root} is not a claim's mount")
    authorized = volumes.get(mounts.get(inv.value("--authorized-keys"), {}).get("name"), {}).get("secret", {})
    paths = [item["path"] for item in authorized.get("items", [])]
    check(paths and all(p.split("/")[0] in KEY_ROLES and p.count("/") == 1 for p in paths),
          f"coordinator: the authorized keys' Secret puts each key in a role directory ({', '.join(paths)})",
          f"coordinator: the authorized keys' Secret volume must list items in worker/, client/ or admin/, got {paths or 'every key at the top'}")


def check_http_listeners(findings, coordinator, worker, prefix="", probes=None):
    """--metrics-bind 0.0.0.0:9464 (both) and --http 0.0.0.0:8080 (coordinator), each a named
    container port; httpGet probes hit one of them. The smoke test asks the probes' paths
    (findings.k8s_http_probes, or `probes`). prefix: the owner's, as check_pod was given it."""
    probes = findings.k8s_http_probes if probes is None else probes
    for name, deployment, flags in ((prefix + "photocluster-coordinator", coordinator, LISTEN_FLAGS),
                                    (prefix + "photocluster-worker", worker, ("--metrics-bind",))):
        if not deployment:
            continue
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        inv = next((i for i in findings.invocations if i.source == f"kubernetes {name}/{container['name']} args"), None)
        named_ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
        bound = {}
        for flag in flags:
            port_name = "metrics" if flag == "--metrics-bind" else "http"
            want = ("0.0.0.0", wanted_port(flag))
            address = listen_address(inv, flag)
            if check(address == want and named_ports.get(port_name) == want[1],
                     f"{name}: {flag} 0.0.0.0:{want[1]} is its container port {port_name}",
                     f"{name}: {flag} {inv.value(flag) if inv else None}, container port {port_name} {named_ports.get(port_name)}; "
                     f"want 0.0.0.0:{want[1]} and port {port_name} {want[1]}"):
                bound[want[1]] = flag
        for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
            get = container.get(kind, {}).get("httpGet")
            if not get:
                continue
            port = named_ports.get(get["port"]) if isinstance(get["port"], str) else get["port"]
            if check(port in bound, f"{name}: {kind} GETs {get.get('path', '/')} on port {get['port']} ({bound.get(port)})",
                     f"{name}: {kind} GETs port {get['port']} ({port}), which no --metrics-bind/--http listens on"):
                probes.append((name, kind, get.get("path", "/"), bound[port]))
    if worker:
        container = worker["spec"]["template"]["spec"]["containers"][0]
        gets = [container.get(kind, {}).get("httpGet", {}) for kind in ("readinessProbe", "livenessProbe")]
        check(all(g.get("path") == "/healthz" and g.get("port") == "metrics" for g in gets),
              "worker: readiness and liveness probes are an httpGet of /healthz on port metrics",
              f"worker: probes {gets}, not httpGet /healthz on port metrics")


def check_service_http_ports(service, ports):
    targets = {p["name"]: p["targetPort"] for p in ports.values()}
    check(targets.get("metrics") == "metrics" and targets.get("http") == "http"
          and ports.get(METRICS_PORT, {}).get("name") == "metrics" and ports.get(DASHBOARD_PORT, {}).get("name") == "http",
          f"Service photocluster-coordinator: port metrics {METRICS_PORT} and port http {DASHBOARD_PORT}, to the container ports of those names",
          f"Service photocluster-coordinator ports {sorted(targets.items())}: want metrics {METRICS_PORT} -> metrics, http {DASHBOARD_PORT} -> http")
    check(service.get("spec", {}).get("type", "ClusterIP") == "ClusterIP",
          "Service photocluster-coordinator is ClusterIP (the dashboard has no authentication: not exposed outside the cluster)")
