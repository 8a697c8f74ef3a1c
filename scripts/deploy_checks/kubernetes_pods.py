"""One pod template of the Kubernetes manifests: its Secrets and claims exist, every container
meets the restricted Pod Security Standard, has requests and a memory limit, mounts what it
names, and every path its `cluster` command lines and probes use is in a volume that holds it."""
import os
import re

from common import PATH_FLAGS, Invocation
from report import check


def image_is_ours(container):
    return container.get("image", "").split(":")[0].rsplit("/", 1)[-1] == "photocluster"


def volume_files(volume, secrets):
    """The file names a Secret or projected volume holds, or None for other volumes."""
    if "secret" in volume:
        secret = secrets.get(volume["secret"]["secretName"], {})
        return {i["path"] for i in volume["secret"].get("items", [])} or set((secret.get("data") or {}).keys())
    if "projected" in volume:
        return {i["path"] for s in volume["projected"]["sources"] for i in s.get("secret", {}).get("items", [])}
    return None


def is_restricted(sc, context):
    return (sc.get("runAsNonRoot", context.get("runAsNonRoot")) is True
            and sc.get("runAsUser", context.get("runAsUser", 1)) != 0
            and sc.get("allowPrivilegeEscalation") is False
            and "ALL" in sc.get("capabilities", {}).get("drop", [])
            and sc.get("seccompProfile", context.get("seccompProfile", {})).get("type") in ("RuntimeDefault", "Localhost")
            and not sc.get("privileged"))


def check_pod(findings, owner, pod, secrets, claims):
    """Checks a pod template; its `cluster` command lines join findings.invocations."""
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for v in volumes.values():
        if "secret" in v:
            check(v["secret"]["secretName"] in secrets, f"{owner}: Secret {v['secret']['secretName']} exists")
        for s in v.get("projected", {}).get("sources", []):
            if "secret" in s:
                name = s["secret"]["name"]
                check(name in secrets and all(i["key"] in (secrets[name].get("data") or {}) for i in s["secret"].get("items", [])),
                      f"{owner}: Secret {name} exists with the keys projected")
        if "persistentVolumeClaim" in v:
            check(v["persistentVolumeClaim"]["claimName"] in claims, f"{owner}: claim {v['persistentVolumeClaim']['claimName']} exists")
    check(pod.get("restartPolicy", "Always") == "Always", f"{owner}: restartPolicy Always (a container that dies is started again)")
    context = pod.get("securityContext", {})
    containers = pod.get("initContainers", []) + pod.get("containers", [])
    init_text = " ".join(" ".join(c.get("command", []) + c.get("args", [])) for c in pod.get("initContainers", []))
    for c in containers:
        check_container(findings, owner, c, context, volumes, secrets, init_text)
    return containers


def check_container(findings, owner, c, context, volumes, secrets, init_text):
    where = f"{owner}/{c['name']}"
    check(is_restricted(c.get("securityContext", {}), context), f"{where}: meets the restricted Pod Security Standard")
    check(c.get("resources", {}).get("requests") and c.get("resources", {}).get("limits", {}).get("memory"),
          f"{where}: has resource requests and a memory limit")
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    check(all(m["name"] in volumes for m in mounts.values()), f"{where}: every volumeMount names a volume")
    # Any path in a command (an init container's `install`, say) that lies in a Secret
    # volume must be a file that volume holds.
    for path in sorted(set(re.findall(r"(?<![\w$])/[\w./-]+", " ".join(c.get("command", []) + c.get("args", []))))):
        mount = max((p for p in mounts if path.startswith(p.rstrip("/") + "/")), key=len, default=None)
        files = volume_files(volumes.get(mounts[mount]["name"], {}), secrets) if mount else None
        if files is not None:
            inside = path[len(mount):].strip("/")
            check(inside in files, f"{where}: {path} is in its Secret volume", f"{where}: {path}: the volume holds {sorted(files)}, not {inside}")
    argv = c.get("command", []) + c.get("args", []) if c.get("command", [None])[0] == "cluster" else c.get("args", []) if not c.get("command") else []
    probes = [(kind, c[kind]["exec"]["command"]) for kind in ("startupProbe", "readinessProbe", "livenessProbe")
              if kind in c and "exec" in c[kind]]
    lines = ([("args", argv)] if argv and image_is_ours(c) else []) + [(k, p[1:]) for k, p in probes if p[0] == "cluster"]
    for kind, line in lines:
        inv = Invocation(f"kubernetes {where} {kind}", line[0], line[1:], True)
        findings.invocations.append(inv)
        for flag in PATH_FLAGS:
            # A --state database (postgres://...) is no path in the pod.
            for value in (v for v in inv.values(flag) if not is_database(v)):
                check_path_flag(where, kind, flag, value, mounts, volumes, secrets, init_text)


def is_database(value):
    return re.match(r"postgres(ql)?://", value) is not None


def check_path_flag(where, kind, flag, value, mounts, volumes, secrets, init_text):
    """A file or directory a flag names is mounted, and is in the volume that holds it."""
    mount = max((p for p in mounts if value == p or value.startswith(p.rstrip("/") + "/")), key=len, default=None)
    if not check(mount, f"{where} {kind}: {flag} {value} is mounted", f"{where} {kind}: {flag} {value} is in no volumeMount"):
        return
    volume = volumes.get(mounts[mount]["name"], {})
    inside = value[len(mount):].strip("/")
    files = volume_files(volume, secrets)
    if files is not None and inside:
        check(inside in files, f"{where} {kind}: {value} is key {inside} of the volume's Secret",
              f"{where} {kind}: {value}: the volume holds {sorted(files)}, not {inside}")
    elif "emptyDir" in volume and inside:
        check(os.path.basename(inside) in init_text, f"{where} {kind}: {value} is put there by an init container",
              f"{where} {kind}: {value} is on an emptyDir no init container fills")
