"""The systemd units: `systemd-analyze verify` and `security`, their restart, stop, hardening and
user settings, their environment files, the journal's directory, and HTTP listeners on loopback."""
import os
import re
import shlex
import shutil
import tempfile

from common import CLUSTER, LISTEN_FLAGS, SYSTEMD_EXPOSURE_THRESHOLD, Invocation, deploy_files, indent, listen_address, run
from report import check, note, section


def check_systemd(findings):
    section("systemd units")
    units = deploy_files("*.service")
    if not shutil.which("systemd-analyze"):
        note("systemd-analyze not found: unit files not verified")
    else:
        analyze(units)
    unit_info = {}
    env_examples = {os.path.basename(p): p for p in deploy_files("*.env.example")}
    for unit in units:
        found = check_unit(findings, unit, env_examples)
        if found:
            unit_info[os.path.basename(unit)] = found
    coordinator_unit = unit_info.get("photocluster-coordinator.service")
    if coordinator_unit:
        s, inv = coordinator_unit
        check((s.get("StateDirectory") or [""])[-1] == "photocluster" and inv.value("--state") == "%S/photocluster",
              "coordinator: StateDirectory=photocluster holds --state (%S/photocluster = /var/lib/photocluster)")
        root = inv.value("--output-root") or ""
        writable = [p.lstrip("-") for p in " ".join(s.get("ReadWritePaths", [])).split()]
        check(any(root == p or root.startswith(p.rstrip("/") + "/") for p in writable),
              f"coordinator: --output-root {root} is under ReadWritePaths ({', '.join(writable)})",
              f"coordinator: --output-root {root or '(none)'} is not under ReadWritePaths {writable}: jobs could not write")
        reload = (s.get("ExecReload") or [""])[-1]
        check("-HUP" in reload and "$MAINPID" in reload, "coordinator: `systemctl reload` sends SIGHUP (the authorized keys are read again)",
              f"coordinator: ExecReload is {reload!r}, not a SIGHUP to $MAINPID")
    # Bare hosts: the HTTP listeners stay on loopback unless the operator chooses an address (the
    # dashboard has no authentication), on distinct ports so a worker fits beside the coordinator.
    unit_listeners = {}
    for name, (_, inv) in sorted(unit_info.items()):
        for flag in (LISTEN_FLAGS if inv.subcommand == "coordinator" else ("--metrics-bind",)):
            unit_listeners[f"{inv.subcommand} {flag} {inv.value(flag)}"] = listen_address(inv, flag)
    addresses = list(unit_listeners.values())
    check(len(addresses) == 3 and all(a and a[0] in ("127.0.0.1", "::1") for a in addresses) and len({a[1] for a in addresses}) == 3,
          f"units: {', '.join(unit_listeners)}: loopback, distinct ports",
          f"units' HTTP listeners {unit_listeners}: want all three given, on loopback, on distinct ports")


def analyze(units):
    """verify insists that ExecStart's program exists: check a copy that runs the built binary
    (or /bin/true without one); everything else is verified as written. Any message fails."""
    replacement = CLUSTER or "/bin/true"
    with tempfile.TemporaryDirectory(prefix="check-deploy-units-") as scratch:
        copies = []
        for unit in units:
            with open(unit) as f:
                body = f.read()
            copy = os.path.join(scratch, os.path.basename(unit))
            with open(copy, "w") as f:
                f.write(body.replace("/usr/local/bin/cluster", replacement))
            copies.append(copy)
        result = run(["systemd-analyze", "verify"] + copies)
        messages = (result.stdout + result.stderr).strip()
        check(result.returncode == 0 and not messages,
              f"systemd-analyze verify: {len(units)} units, no messages (ExecStart's /usr/local/bin/cluster checked as {replacement})",
              "systemd-analyze verify:\n" + indent(messages))
        for copy in copies:
            result = run(["systemd-analyze", "security", "--offline=true", f"--threshold={SYSTEMD_EXPOSURE_THRESHOLD}", copy])
            level = re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout)
            check(result.returncode == 0, f"{os.path.basename(copy)}: exposure {level.group(1) if level else '?'} "
                  f"within {SYSTEMD_EXPOSURE_THRESHOLD / 10:.1f} (systemd-analyze security)",
                  f"{os.path.basename(copy)}: exposure {level.group(1) if level else '?'} above {SYSTEMD_EXPOSURE_THRESHOLD / 10:.1f}:\n"
                  + indent(result.stderr))


def unit_settings(path):
    settings = {}
    with open(path) as f:
        body = re.sub(r"\\\n", " ", f.read())
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def check_unit(findings, unit, env_examples):
    """One unit's settings; returns (settings, its ExecStart as an Invocation), or None when it
    runs no `cluster`."""
    name = os.path.basename(unit)
    s = unit_settings(unit)

    def first(key):
        return (s.get(key) or [""])[-1]

    check(first("Restart") == "on-failure", f"{name}: Restart=on-failure (a process killed by a signal or failing is started again)")
    if "worker" in name:
        check(first("StartLimitIntervalSec") == "0",
              f"{name}: StartLimitIntervalSec=0 (restarted however often a photo that crashes workers kills it)")
    check(first("KillSignal") in ("", "SIGTERM") and first("TimeoutStopSec"), f"{name}: stops with SIGTERM and a stop timeout")
    check(first("NoNewPrivileges") == "yes" and first("ProtectSystem") == "strict", f"{name}: NoNewPrivileges=yes, ProtectSystem=strict")
    check(first("User") or first("DynamicUser") == "yes", f"{name}: runs as its own user ({first('User') or 'DynamicUser'})")
    exec_start = shlex.split(first("ExecStart"))
    program = next((i for i, w in enumerate(exec_start) if w.endswith("/cluster")), None)
    if not check(program is not None, f"{name}: ExecStart runs cluster"):
        return None
    argv = exec_start[program + 1:]
    environment = dict(v.split("=", 1) for v in s.get("Environment", []))
    env_file = (s.get("EnvironmentFile") or [""])[-1].lstrip("-")
    example = env_examples.get(os.path.basename(env_file).replace(".env", ".env.example"))
    if check(example, f"{name}: {env_file} has an example ({os.path.basename(example) if example else 'none'})"):
        with open(example) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    key, value = line.split("=", 1)
                    environment[key] = value
        referenced = set(re.findall(r"\$\{?(\w+)", " ".join(argv)))
        unused = set(environment) - referenced
        check(not unused, f"{name}: every variable of {os.path.basename(example)} is used", f"{name}: unused variables {sorted(unused)}")
    unset = sorted(set(re.findall(r"\$\{?(\w+)", " ".join(argv))) - set(environment))
    check(not unset, f"{name}: every variable in ExecStart has a value", f"{name}: ExecStart uses unset {unset}")
    expanded = []
    for word in argv:
        whole = re.fullmatch(r"\$(\w+)", word)
        if whole:
            expanded.extend(environment.get(whole.group(1), "").split())
        else:
            expanded.append(re.sub(r"\$\{(\w+)\}", lambda m: environment.get(m.group(1), ""), word))
    inv = Invocation(f"{name} ExecStart (+ {os.path.basename(example) if example else 'defaults'})", expanded[0], expanded[1:], True)
    findings.invocations.append(inv)
    return s, inv
