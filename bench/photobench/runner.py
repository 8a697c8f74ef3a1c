"""The suite's state and how it runs and records a measurement: pinned to cores, timed with
/usr/bin/time, runs cut for slow tools, in-process figures gathered over rounds."""
import json
import math
import os
import shutil
import subprocess
import tempfile
import time

from .machine import log, median, shlex_quote
from .photos import total_megapixels


class Bench:
    """Owned by the one thread that runs the suite; every tool module reads and adds to it."""

    def __init__(self, args):
        self.args = args
        self.root = os.path.abspath(args.root)
        self.tmp = tempfile.mkdtemp(prefix="photocluster-bench-", dir=args.scratch or None)
        self.results = []
        self.notes = []
        self.cores = os.cpu_count() or 1
        self.servers = []
        self.pending = None  # in-process figures being gathered over rounds (see suite.run)
        self.started = time.time()
        self.sets = []
        self.memory = []

    def pin(self, cores):
        """The command prefix that keeps a one-core measurement on core 0."""
        return ["taskset", "-c", "0"] if cores == 1 else []

    def pin_elsewhere(self, cores):
        """For the tcp cluster's coordinator and client: the cores the worker does not use, as if
        they ran on a host of their own; all cores when the worker uses them all."""
        total = os.cpu_count() or 1
        return ["taskset", "-c", f"{cores}-{total - 1}"] if cores < total else []

    def timed(self, command, env=None):
        """Runs a command under /usr/bin/time; returns (wall seconds, max RSS MB, stdout)."""
        stats = os.path.join(self.tmp, "time.txt")
        full = [self.args.time, "-f", "%M", "-o", stats] + command
        start = time.perf_counter()
        done = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:6])}… exited {done.returncode}: {done.stderr.strip()[-400:]}")
        with open(stats) as f:
            rss = int(f.read().strip().splitlines()[-1]) / 1024
        return wall, rss, done.stdout

    def timed_stdin(self, command, listing, env):
        stats = os.path.join(self.tmp, "time.txt")
        full = [self.args.time, "-f", "%M", "-o", stats] + command
        with open(listing) as stdin:
            start = time.perf_counter()
            done = subprocess.run(full, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{command[-3:]} exited {done.returncode}: {done.stderr.strip()[-400:]}")
        with open(stats) as f:
            rss = int(f.read().strip().splitlines()[-1]) / 1024
        return wall, rss, done.stdout

    def record(self, work, set_key, tool, cores, seconds, megapixels, photos, rss, extra=None):
        entry = {
            "work": work, "set": set_key, "tool": tool, "cores": cores, "runs": len(seconds),
            "seconds": seconds, "median_seconds": median(seconds), "megapixels": megapixels, "photos": photos,
            "mp_per_s_per_core": megapixels / median(seconds) / cores,
            "photos_per_s": photos / median(seconds), "max_rss_mb": rss,
        }
        if extra:
            entry.update(extra)
        self.results.append(entry)
        log(f"    {tool:16} {cores} core{'s' if cores > 1 else ' '}  {entry['mp_per_s_per_core']:7.1f} MP/s/core"
            f"  {entry['photos_per_s']:7.1f} photos/s  {rss:6.0f} MB  ({len(seconds)} runs)")

    def find(self, work, set_key, tool, cores):
        for r in self.results:
            if (r["work"], r["set"], r["tool"], r["cores"]) == (work, set_key, tool, cores):
                return r
        return None

    def in_process(self, work, set_key, files, tool, cores, command, env=None):
        """Tools that time their own runs on photos in memory and print JSON."""
        wall, rss, out = self.timed(self.pin(cores) + command, env=env)
        result = json.loads(out.strip().splitlines()[-1])
        extra = {key: result[key] for key in ("stage_seconds", "kernels") if key in result} or None
        if self.pending is None:
            self.record(work, set_key, tool, cores, result["seconds"], result["megapixels"], result["photos"], rss, extra)
            return
        p = self.pending.setdefault((tool, cores), {"seconds": [], "megapixels": result["megapixels"], "photos": result["photos"], "rss": 0.0, "extra": extra})
        p["seconds"] += result["seconds"]
        p["rss"] = max(p["rss"], rss)

    def per_photo(self, work, set_key, files, tool, cores, make_command, env):
        """Command-line tools: one process per photo, `cores` at a time (xargs -P)."""
        out = os.path.join(self.tmp, "out")
        listing = os.path.join(self.tmp, f"{tool}.list")
        with open(listing, "w") as f:
            for path in files:
                f.write(" ".join(shlex_quote(a) for a in make_command(path, out)) + "\0")
        command = self.pin(cores) + ["xargs", "-0", "-P", str(cores), "-n", "1", "sh", "-c"]
        seconds, peak = [], 0.0
        mp = total_megapixels(files)
        for _ in range(self.args.runs):
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            wall, rss, _ = self.timed_stdin(command, listing, env)
            seconds.append(wall)
            peak = max(peak, rss)
            if not self.more_runs(seconds):
                break
        self.record(work, set_key, tool, cores, seconds, mp, len(files), peak)

    def more_runs(self, seconds):
        """Fewer runs for slow tools: at least 3 when a run takes under budget / 3, else 1."""
        total = sum(seconds)
        if len(seconds) >= self.args.runs:
            return False
        if len(seconds) >= 3 and total + seconds[-1] > self.args.budget:
            return False
        if len(seconds) < 3 and seconds[-1] * 3 > self.args.budget:
            return False
        return True

    def rounds(self):
        """Rounds of the interleaved in-process tools: up to 3, so each takes at least one run a round."""
        return max(1, min(3, self.args.runs))

    def runs_for_in_process(self, estimate):
        runs = self.args.runs if estimate * self.args.runs <= self.args.budget else max(1, min(3, self.args.runs))
        return runs if self.pending is None else max(1, -(-runs // self.rounds()))  # this round's share

    def job_copies(self, files):
        """Copies of the set in one cluster job: --job-copies, and enough for --job-megapixels."""
        return max(self.args.job_copies, math.ceil(self.args.job_megapixels / total_megapixels(files)))

    def missing(self, tool):
        note = f"{tool}: not installed, left out (see the hints bench/run printed)"
        if note not in self.notes:
            self.notes.append(note)
