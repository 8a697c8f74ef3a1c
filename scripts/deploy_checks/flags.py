"""Every `cluster` command line (in units, manifests and compose, and in comments and prose):
keys in the right flags, no --insecure, only flags the binary accepts, and every coordinator
and worker naming its HTTP listeners."""
import os
import re
import shlex

from common import CLUSTER, LISTEN_FLAGS, ROOT, Invocation, deploy_files, indent, rel, run
from report import check, fail, note, ok, section


def prose_invocations():
    """Command lines in comments, the README and other prose, e.g. `cluster submit ... --out DIR`."""
    textual = []
    for path in deploy_files("*"):
        if not os.path.isfile(path):
            continue
        with open(path, errors="replace") as f:
            body = re.sub(r"\\\n", " ", f.read())
        for line in body.splitlines():
            for match in re.finditer(r"(?:(?<![\w./-])cluster|\bphotocluster:[\w.${}:-]+)\s+([a-z][a-z-]*)\b([^\n]*)", line):
                tail = re.split(r"`|\||;|&&|\s#\s|\)|\"", match.group(2))[0]
                textual.append(Invocation(f"{rel(path)} (text)", match.group(1), shlex.split(tail, posix=False), False))
    return textual


def check_flags(findings):
    section("cluster flags")
    textual = prose_invocations()
    active = [i for i in findings.invocations if i.active]
    mixed = [f"{i.source}: {flag} {value}" for i in active for flag, suffix in (("--curve-secret", ".key"), ("--coordinator-key", ".pub"))
             for value in i.values(flag) if not value.endswith(suffix)]
    check(not mixed, "--curve-secret names a .key file and --coordinator-key a .pub file everywhere", "key files mixed up: " + "; ".join(mixed))
    check(all("--insecure" not in i.flags() for i in active), f"no active command line uses --insecure ({len(active)} checked)",
          "--insecure in: " + ", ".join(i.source for i in active if "--insecure" in i.flags()))
    if not CLUSTER:
        note("no cluster binary (.build/debug/cluster or $CLUSTER): flags not checked against it, no smoke test, "
             "no live /healthz, /metrics or `promtool check metrics` checks")
    else:
        check_against_binary(active, textual)
    # Every coordinator and worker names its HTTP listeners instead of relying on the defaults (which
    # are loopback only, and in containers unreachable from Prometheus and the kubelet).
    servers = [i for i in active if i.subcommand in ("coordinator", "worker")]
    implicit = [f"{i.source}: {flag}" for i in servers for flag in (LISTEN_FLAGS if i.subcommand == "coordinator" else ("--metrics-bind",))
                if not i.value(flag)]
    check(servers and not implicit, f"{len(servers)} coordinator and worker command lines give --metrics-bind (coordinators also --http)",
          "HTTP listener left to its default: " + "; ".join(implicit))


def check_against_binary(active, textual):
    """Each command line's subcommand and flags are ones `cluster SUB --help` lists."""
    help_top = run([CLUSTER, "--help"]).stdout
    subcommands = set(re.findall(r"^  ([a-z][a-z-]*)\s{2,}", help_top.split("SUBCOMMANDS:")[-1], re.M))
    accepted = {}
    for sub in sorted(subcommands):
        out = run([CLUSTER, sub, "--help"]).stdout
        accepted[sub] = set(re.findall(r"^ {2,4}(?:-\w, )?(--[a-z][a-z0-9-]*)", out.split("OPTIONS:")[-1], re.M))
    checked = 0
    for inv in active + [t for t in textual if t.subcommand in subcommands]:
        if inv.subcommand not in subcommands:
            fail(f"{inv.source}: `cluster {inv.subcommand}` is no subcommand of the binary")
            continue
        unknown = [f for f in inv.flags() if f not in accepted[inv.subcommand]]
        checked += 1
        if unknown:
            fail(f"{inv.source}: `cluster {inv.subcommand}` has no {' '.join(unknown)}")
    used_flags = sorted({f"{i.subcommand} {f}" for i in active for f in i.flags()})
    ok(f"{checked} command lines ({len(active)} in units, manifests and compose; {checked - len(active)} in comments and docs) "
       f"use only flags `{os.path.relpath(CLUSTER, ROOT) if CLUSTER.startswith(ROOT) else CLUSTER} SUB --help` lists")
    print(indent("flags in use: " + ", ".join(used_flags)), flush=True)
