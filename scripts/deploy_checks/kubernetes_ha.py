"""The highly available coordinator (deploy/kubernetes-ha): the overlay renders and validates as
the single-pod kustomization does, its pods hold together (kubernetes_pods.py), and it has what
makes it highly available: several replicas on different nodes, a rollout that neither stalls
nor leaves a gap, readiness that follows leadership while startup and liveness do not, a
disruption budget, the journal in PostgreSQL with the password only from a Secret, and no
ReadWriteOnce volume that the replicas would share."""
import os
import re
import shutil
from urllib.parse import parse_qs, urlsplit

from common import K8S_HA_DIR, METRICS_PORT, rel
from kubernetes_manifests import check_http_listeners, kustomize, validate
from kubernetes_pods import check_pod
from report import check, note, section

PREFIX = "ha/"
HOSTNAME = "kubernetes.io/hostname"
# What an old pod's preStop must give a new one to start as a standby (image pulled), and what
# the grace period must leave after it: the single-pod coordinator's 30 s to close and leave.
MIN_PRE_STOP_SECONDS = 10
SHUTDOWN_SECONDS = 30


def check_kubernetes_ha(findings):
    if not os.path.isdir(K8S_HA_DIR):
        return
    section(f"Kubernetes, highly available coordinator ({rel(K8S_HA_DIR)}/)")
    if not shutil.which("kubectl"):
        note(f"kubectl not found: {rel(K8S_HA_DIR)}/ (an overlay with patches) is not rendered nor checked")
        return
    everything = kustomize(K8S_HA_DIR)
    if not everything:
        return
    validate(everything, f"{rel(K8S_HA_DIR)}: ")
    by_kind = {}
    for d in everything:
        by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    check(all(d["metadata"].get("namespace") == "photocluster" for d in everything if d["kind"] != "Namespace"),
          "ha: every resource is in namespace photocluster")
    secrets, claims = by_kind.get("Secret", {}), by_kind.get("PersistentVolumeClaim", {})
    coordinator = by_kind.get("Deployment", {}).get("photocluster-coordinator")
    worker = by_kind.get("Deployment", {}).get("photocluster-worker")
    if not check(coordinator, "ha: Deployment photocluster-coordinator"):
        return
    check(worker is not None and worker == findings.k8s_worker, "ha: the workers are the single-pod kustomization's, unchanged")
    check_pod(findings, PREFIX + "photocluster-coordinator", coordinator["spec"]["template"]["spec"], secrets, claims)
    check_http_listeners(findings, coordinator, None, prefix=PREFIX, probes=[])
    container = coordinator["spec"]["template"]["spec"]["containers"][0]
    inv = next(i for i in findings.invocations if i.source == f"kubernetes {PREFIX}photocluster-coordinator/{container['name']} args")
    check_replicas_and_rollout(coordinator)
    check_probes(container)
    check_journal_and_password(inv, container, secrets)
    check_volumes(inv, coordinator, claims)
    used = {v["persistentVolumeClaim"]["claimName"] for d in by_kind.get("Deployment", {}).values()
            for v in d["spec"]["template"]["spec"].get("volumes", []) if "persistentVolumeClaim" in v}
    check(set(claims) <= used, f"ha: every claim is mounted ({', '.join(sorted(claims))}): no journal volume is left over",
          f"ha: claims no pod mounts: {', '.join(sorted(set(claims) - used))}")
    check_service(coordinator, by_kind.get("Service", {}).get("photocluster-coordinator"))
    check_budget(coordinator, by_kind.get("PodDisruptionBudget", {}))


def selects(selector, labels):
    """A label selector of matchLabels only that picks pods with these labels."""
    selector = selector or {}
    return bool(selector.get("matchLabels")) and not selector.get("matchExpressions") and selector["matchLabels"].items() <= labels.items()


def count(value, replicas, up=False):
    """maxSurge / maxUnavailable as pods: an int, or a percentage of the replicas, rounded as the
    Deployment controller does (surge up, unavailable down)."""
    if isinstance(value, int):
        return value
    share = int(str(value).rstrip("%")) * replicas
    return -(-share // 100) if up else share // 100


def check_replicas_and_rollout(coordinator):
    spec, pod = coordinator["spec"], coordinator["spec"]["template"]["spec"]
    labels = coordinator["spec"]["template"]["metadata"]["labels"]
    replicas = spec.get("replicas", 1)
    check(replicas >= 2, f"ha coordinator: {replicas} replicas (one leads, the others wait warm)",
          f"ha coordinator: {replicas} replica(s): nothing to take over")
    strategy = spec.get("strategy", {})
    rolling = strategy.get("rollingUpdate", {})
    surge = count(rolling.get("maxSurge", "25%"), replicas, up=True)
    unavailable = count(rolling.get("maxUnavailable", "25%"), replicas)
    check(strategy.get("type", "RollingUpdate") == "RollingUpdate" and surge >= 1,
          f"ha coordinator: RollingUpdate with maxSurge {rolling.get('maxSurge')}: new pods start before the old ones stop",
          f"ha coordinator: strategy {strategy}: want RollingUpdate with maxSurge of at least one pod")
    check(unavailable >= replicas,
          f"ha coordinator: maxUnavailable {rolling.get('maxUnavailable')} (only the leader is ever Ready: less would stall "
          f"the rollout with the old leader running)",
          f"ha coordinator: maxUnavailable {rolling.get('maxUnavailable')} is {unavailable} of {replicas} pods: only the leader "
          f"is ever Ready, so the Deployment would never stop the old leader and the rollout would stall")
    command = pod["containers"][0].get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    pre_stop = int(command[1]) if len(command) == 2 and command[0] == "sleep" and command[1].isdigit() else None
    grace = pod.get("terminationGracePeriodSeconds", 30)
    check(pre_stop is not None and pre_stop >= MIN_PRE_STOP_SECONDS,
          f"ha coordinator: an old pod waits {pre_stop} s in preStop before its SIGTERM, while the new ones start as standbys",
          f"ha coordinator: preStop {command or 'none'}: want `sleep N`, N >= {MIN_PRE_STOP_SECONDS}, so that the new pods are "
          f"standbys before the old leader stops")
    check(pre_stop is not None and grace >= pre_stop + SHUTDOWN_SECONDS,
          f"ha coordinator: terminationGracePeriodSeconds {grace} leaves {SHUTDOWN_SECONDS} s after preStop to hand over and leave",
          f"ha coordinator: terminationGracePeriodSeconds {grace}: want preStop ({pre_stop}) + {SHUTDOWN_SECONDS} s")
    spread = [c for c in pod.get("topologySpreadConstraints", []) if c.get("topologyKey") == HOSTNAME
              and c.get("whenUnsatisfiable") == "DoNotSchedule" and c.get("maxSkew") == 1 and selects(c.get("labelSelector"), labels)]
    required = [t for t in pod.get("affinity", {}).get("podAntiAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", [])
                if t.get("topologyKey") == HOSTNAME and selects(t.get("labelSelector"), labels)]
    check(spread or required, f"ha coordinator: replicas on different nodes (a hard rule on {HOSTNAME} selecting its pods)",
          f"ha coordinator: nothing keeps the replicas on different nodes: want a DoNotSchedule topology spread (maxSkew 1) or a "
          f"required pod anti-affinity on {HOSTNAME} that selects the coordinator's pods")


def check_probes(container):
    readiness = container.get("readinessProbe", {})
    check(readiness.get("exec", {}).get("command", [])[:2] == ["cluster", "status"] and readiness.get("timeoutSeconds", 1) > 5,
          "ha coordinator: readiness runs `cluster status` (only the leader answers: the Service follows leadership)",
          f"ha coordinator: readinessProbe {readiness}: want an exec of `cluster status` with a timeout above status's own 5 s")
    for kind in ("startupProbe", "livenessProbe"):
        get = container.get(kind, {}).get("httpGet", {})
        check(get.get("path") == "/healthz" and get.get("port") in ("metrics", METRICS_PORT) and "exec" not in container.get(kind, {}),
              f"ha coordinator: {kind} GETs /healthz on the metrics port (a waiting standby serves it and is not restarted)",
              f"ha coordinator: {kind} {container.get(kind)}: want only an httpGet of /healthz on port metrics; a standby answers "
              f"no `cluster status` and would be restarted for waiting")


def check_journal_and_password(inv, container, secrets):
    state = inv.value("--state") or ""
    uri = urlsplit(state)
    check(uri.scheme in ("postgres", "postgresql") and uri.hostname and uri.path.strip("/") and uri.username,
          f"ha coordinator: --state is a PostgreSQL database, USER@HOST:PORT/DB ({state})",
          f"ha coordinator: --state {state or 'missing'}: want postgres://USER@HOST:PORT/DB, the journal the replicas share")
    in_args = [a for a in inv.args if re.search(r"password|PGPASS", a, re.I)]
    check(uri.password is None and not any(k.lower() == "password" for k in parse_qs(uri.query)) and not in_args,
          "ha coordinator: no password on the command line (--state carries none)",
          f"ha coordinator: a password on the command line: {'--state ' + state if uri.password or 'password' in uri.query.lower() else in_args}")
    env = {e["name"]: e for e in container.get("env", [])}
    ref = env.get("PGPASSWORD", {}).get("valueFrom", {}).get("secretKeyRef", {})
    secret = secrets.get(ref.get("name"), {})
    check(ref and "value" not in env["PGPASSWORD"] and ref.get("key") in (secret.get("data") or {}),
          f"ha coordinator: PGPASSWORD from key {ref.get('key')} of Secret {ref.get('name')}, which has it",
          f"ha coordinator: PGPASSWORD {env.get('PGPASSWORD')}: want a secretKeyRef to a Secret of this kustomization that has the key")
    literal = [n for n, e in env.items() if "value" in e and (re.search(r"PASS|TOKEN|SECRET", n, re.I) or "@" in str(e["value"]))]
    check(not literal, "ha coordinator: no environment variable holds a password as a literal value",
          f"ha coordinator: literal values in {literal}: a password comes from a Secret")


def check_volumes(inv, coordinator, claims):
    pod = coordinator["spec"]["template"]["spec"]
    container = pod["containers"][0]
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m for m in container.get("volumeMounts", [])}
    root = inv.value("--output-root")
    claim = volumes.get(mounts.get(root, {}).get("name"), {}).get("persistentVolumeClaim", {}).get("claimName")
    modes = claims.get(claim, {}).get("spec", {}).get("accessModes", [])
    check(root and "ReadWriteMany" in modes, f"ha coordinator: --output-root {root} is on claim {claim}, ReadWriteMany (every replica writes there)",
          f"ha coordinator: --output-root {root}: claim {claim} {modes}; want a ReadWriteMany claim every replica mounts")
    shared = []
    for c in pod.get("initContainers", []) + pod.get("containers", []):
        for m in c.get("volumeMounts", []):
            name = volumes.get(m["name"], {}).get("persistentVolumeClaim", {}).get("claimName")
            access = claims.get(name, {}).get("spec", {}).get("accessModes", [])
            if name and not ("ReadWriteMany" in access or ("ReadOnlyMany" in access and m.get("readOnly"))):
                shared.append(f"{name} {access}")
    check(not shared, f"ha coordinator: no ReadWriteOnce claim shared by its {coordinator['spec'].get('replicas', 1)} replicas",
          f"ha coordinator: claims the replicas would share, not ReadWriteMany: {', '.join(sorted(set(shared)))}")


def check_service(coordinator, service):
    spec = (service or {}).get("spec", {})
    labels = coordinator["spec"]["template"]["metadata"]["labels"]
    check(spec.get("selector") and spec["selector"].items() <= labels.items() and not spec.get("publishNotReadyAddresses")
          and spec.get("clusterIP") != "None",
          "ha: Service photocluster-coordinator sends to Ready coordinators only: one address that follows the leader",
          f"ha: Service photocluster-coordinator {spec}: want a ClusterIP selecting the coordinator's pods, without "
          f"publishNotReadyAddresses (a standby binds no port)")


def check_budget(coordinator, budgets):
    labels = coordinator["spec"]["template"]["metadata"]["labels"]
    replicas = coordinator["spec"].get("replicas", 1)
    mine = [b for b in budgets.values() if selects(b["spec"].get("selector"), labels)]
    spec = mine[0]["spec"] if len(mine) == 1 else {}
    keeps = spec.get("minAvailable", 0) >= 1 if "minAvailable" in spec else count(spec.get("maxUnavailable", replicas), replicas) < replicas
    check(keeps, f"ha: PodDisruptionBudget {mine[0]['metadata']['name'] if mine else None} keeps a coordinator through voluntary evictions",
          f"ha: want one PodDisruptionBudget selecting the coordinator's pods that keeps one available, got {len(mine)}: {spec}")
    check(spec.get("unhealthyPodEvictionPolicy") == "AlwaysAllow",
          "ha: the budget lets a standby (never Ready) be evicted at any time (unhealthyPodEvictionPolicy AlwaysAllow)",
          f"ha: the budget's unhealthyPodEvictionPolicy is {spec.get('unhealthyPodEvictionPolicy')}: a standby is never Ready, "
          f"and without AlwaysAllow it could not be evicted while no leader runs")
