"""The real command lines, run: for each of systemd, compose and Kubernetes, its coordinator and
worker start with their own arguments (endpoints moved to free loopback ports, key paths to
fresh keys), the worker joins over CURVE, the probe/health-check command exits 0 and lists the
worker, and both exit 0 on SIGTERM. The authorized-keys directory is laid out as a Kubernetes
Secret volume whose items put each key in its role directory (..data symlinks, the role
directories links too), the hardest of the three layouts. While they run, their HTTP listeners
(--metrics-bind, --http, moved to free loopback ports too) are asked (smoke_http.py), the
dashboard with the token the coordinator wrote into its state directory."""
import json
import os
import re
import shutil
import signal
import random
import socket
import subprocess
import tempfile
import time

from common import CLUSTER, LISTEN_FLAGS, PATH_FLAGS, indent, run
from report import check, fail, note, section
from smoke_http import live_http, print_logs


def ephemeral_range_start():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A free port below the kernel's ephemeral range: one the kernel hands out (bind to port 0)
    may be taken as the source port of an outgoing connection, such as the worker's to the
    coordinator, between this check and the listener binding it."""
    ceiling = ephemeral_range_start() - 1
    for _ in range(200):
        port = random.randint(20000, max(20001, ceiling))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    note("no free port found on 127.0.0.1 below the ephemeral range: taking one the kernel picks")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Scratch:
    """Fresh keys, an authorized-keys directory laid out as a Secret volume, and a state and an
    output directory per flavour, all under one temporary directory."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="check-deploy-smoke-")
        self.keys = os.path.join(self.path, "keys")
        for name in ("coordinator", "worker", "client", "probe"):
            result = run([CLUSTER, "keygen", "--name", name, "--out", self.keys])
            if result.returncode:
                fail(f"cluster keygen --name {name}: {result.stderr.strip()}")
        self.authorized = os.path.join(self.path, "authorized-keys")
        data = os.path.join(self.authorized, "..2024_01_01_00_00_00.000000000")
        os.makedirs(data)
        os.symlink("..2024_01_01_00_00_00.000000000", os.path.join(self.authorized, "..data"))
        for name, role in (("worker", "worker"), ("client", "client"), ("probe", "client")):
            os.makedirs(os.path.join(data, role), exist_ok=True)
            shutil.copy(os.path.join(self.keys, f"{name}.pub"), os.path.join(data, role, f"{name}.pub"))
        for role in ("worker", "client"):
            os.symlink(f"..data/{role}", os.path.join(self.authorized, role))

    def localise(self, inv, flavour, ports, listeners=None):
        """The command line on loopback; listeners gets {flag: (address given, port used)}."""
        argv = []
        for i, arg in enumerate(inv.args):
            previous = inv.args[i - 1] if i else ""
            endpoint = re.fullmatch(r"tcp://[^:]+:(700[01])", arg)
            if previous in LISTEN_FLAGS and arg != "off":
                port = free_port()
                if listeners is not None:
                    listeners[previous] = (arg, port)
                arg = f"127.0.0.1:{port}"
            elif endpoint:
                arg = f"tcp://127.0.0.1:{ports[endpoint.group(1)]}"
            elif previous == "--authorized-keys":
                arg = self.authorized
            elif previous == "--state":
                arg = os.path.join(self.path, flavour, "state")
            elif previous == "--output-root":
                arg = os.path.join(self.path, flavour, "outputs")
            elif previous in PATH_FLAGS and re.search(r"\.(key|pub)$", arg):
                arg = os.path.join(self.keys, os.path.basename(arg))
            elif arg in ("$(POD_NAME)",):
                arg = f"smoke-{flavour}-worker"
            elif arg in ("$(CPU_LIMIT)",):
                arg = "2"
            argv.append(arg)
        return [CLUSTER, inv.subcommand] + argv


def smoke_test(findings):
    if not CLUSTER:
        return
    section("smoke test on loopback (the deploy files' own command lines)")
    scratch = Scratch()
    processes = []
    try:
        begun = time.monotonic()
        running = start_flavours(findings, scratch, processes)
        for flavour, (started, probe_argv, probe, listeners) in running.items():
            if wait_for_join(flavour, started, probe_argv, probe):
                live_http(findings, flavour, started, listeners)
        stop_gracefully(running)
        print(indent(f"smoke test took {time.monotonic() - begun:.1f} s"), flush=True)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(scratch.path, ignore_errors=True)


def start_flavours(findings, scratch, processes):
    """Starts each flavour's coordinator and worker; returns {flavour: (started, probe argv,
    probe invocation, listeners)}, started being [(role, process, argv, log path)]."""
    def pick(prefix, subcommand):
        return next((i for i in findings.invocations if i.source.startswith(prefix) and i.subcommand == subcommand and i.active), None)

    # The highly available coordinator of kubernetes-ha/ is not run here: its --state is a
    # PostgreSQL database, and this check starts no database server. Its command line is checked
    # statically (kubernetes_ha.py, and its flags against the binary in flags.py); running it,
    # two replicas taking over from each other, needs a throwaway PostgreSQL server on loopback.
    flavours = {
        "systemd": (pick("photocluster-coordinator.service", "coordinator"), pick("photocluster-worker.service", "worker"),
                    None),
        "compose": (pick("compose.yaml coordinator", "coordinator"), pick("compose.yaml worker", "worker"),
                    pick("compose.yaml coordinator healthcheck", "status")),
        "kubernetes": (pick("kubernetes photocluster-coordinator/coordinator args", "coordinator"),
                       pick("kubernetes photocluster-worker/worker args", "worker"),
                       pick("kubernetes photocluster-coordinator/coordinator readinessProbe", "status")),
    }
    running = {}
    for flavour, (coord, work, probe) in flavours.items():
        if not (coord and work):
            fail(f"{flavour}: no coordinator or worker command line to run")
            continue
        ports = {"7000": free_port(), "7001": free_port()}
        logs = os.path.join(scratch.path, flavour)
        os.makedirs(logs, exist_ok=True)
        started = []
        listeners = {}
        for role, inv in (("coordinator", coord), ("worker", work)):
            argv = scratch.localise(inv, flavour, ports, listeners.setdefault(role, {}))
            log = open(os.path.join(logs, f"{role}.log"), "w")
            process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=dict(os.environ, PHOTOCLUSTER_PLUGINS=os.path.join(scratch.path, "no-plugins")))
            processes.append(process)
            started.append((role, process, argv, log.name))
        # The probe: the flavour's own, else a status call with the probe key.
        probe_argv = (scratch.localise(probe, flavour, ports) if probe else
                      [CLUSTER, "status", "--coordinator", f"tcp://127.0.0.1:{ports['7001']}",
                       "--curve-secret", os.path.join(scratch.keys, "probe.key"),
                       "--coordinator-key", os.path.join(scratch.keys, "coordinator.pub")])
        running[flavour] = (started, probe_argv, probe, listeners)
    return running


def wait_for_join(flavour, started, probe_argv, probe):
    """True once the probe command lists the worker (within 20 s)."""
    joined, last = False, None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not joined:
        if any(p.poll() is not None for _, p, _, _ in started):
            break
        last = run(probe_argv + ["--json"], timeout=15)
        if last.returncode == 0:
            try:
                joined = len(json.loads(last.stdout).get("workers", [])) >= 1
            except ValueError:
                pass
        if not joined:
            time.sleep(0.3)
    what = "its health-check/probe command" if probe else "`cluster status` with the probe key"
    if not check(joined, f"{flavour}: coordinator and worker start from the deploy command lines; the worker joins "
                 f"over CURVE and {what} sees it"):
        print_logs(started)
        if last is not None:
            print(indent(f"probe exit {last.returncode}: {last.stderr.strip()}"))
        note(f"{flavour}: the worker did not join: its HTTP listeners were not asked")
        return False
    return True


def stop_gracefully(running):
    """Workers first (they hand work back), then coordinators; each must exit 0 on SIGTERM."""
    for role_wanted in ("worker", "coordinator"):
        for flavour, (started, _, _, _) in running.items():
            for role, process, argv, log in started:
                if role == role_wanted and process.poll() is None:
                    process.send_signal(signal.SIGTERM)
        for flavour, (started, _, _, _) in running.items():
            for role, process, argv, log in started:
                if role != role_wanted:
                    continue
                try:
                    code = process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    code = None
                check(code == 0, f"{flavour}: {role} exits 0 on SIGTERM", f"{flavour}: {role} exit {code} after SIGTERM")
