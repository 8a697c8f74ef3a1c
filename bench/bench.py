#!/usr/bin/env python3
"""The throughput suite behind bench/run: PhotoCluster against the floor and the usual tools.

bench/run installs what it can, builds, and calls this with the tools it found. Figures only:
nothing here passes or fails on a threshold.

For each photo set (the JPEG samples, and the same photos upscaled to ~12 MP), each work
(sepia -> JPEG, gaussian blur sigma 2 -> JPEG, sepia -> PNG) and each tool, it runs the whole
set several times on one core (taskset) and on all cores, and records the median wall time,
megapixels per second per core, photos per second and the peak resident memory
(/usr/bin/time, or VmHWM of long-running cluster processes).
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

QUALITY = 85
# PhotoCluster's sepia at intensity 0.8 as one matrix, 0.2 * I + 0.8 * M (for vips and Pillow).
SEPIA_M = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
SEPIA_BLEND = [[(0.2 if c == r else 0) + 0.8 * SEPIA_M[r][c] for c in range(3)] for r in range(3)]

WORKS = {
    "sepia-jpeg": {"label": "sepia → JPEG q85", "filter": "sepia", "format": "jpeg"},
    "blur-jpeg": {"label": "blur σ2 → JPEG q85", "filter": "blur:sigma=2", "format": "jpeg"},
    "sepia-png": {"label": "sepia → PNG", "filter": "sepia", "format": "png"},
}

# Tools that time their own runs on photos held in memory (see in_process).
IN_PROCESS = ("floor", "floor-sepia", "pipeline", "pipeline-fast", "pipeline-copy", "pipeline-nocopy", "pipeline-e2e", "pipeline-engine")

TOOLS = [
    # key, label
    ("floor", "floor: libjpeg-turbo decode + encode (C)"),
    ("floor-sepia", "C reference: floor + plain C sepia"),
    ("pipeline", "PhotoCluster in-process pipeline (point filters inside the encode, as the worker)"),
    ("pipeline-fast", "  same, with --fast-dct (libjpeg-turbo's fast DCT)"),
    ("pipeline-copy", "  same, the filter as a stage of its own on a one-pass copy"),
    ("pipeline-nocopy", "  same, the filter in place on the decoded image"),
    ("pipeline-e2e", "  same, end to end: each photo downloaded over loopback HTTP, each output written durably (a job minus the cluster)"),
    ("pipeline-engine", "  same end to end, through the worker's own engine (its stage operations and queues; a worker minus ZeroMQ and the coordinator)"),
    ("embedded", "PhotoCluster `cluster submit` embedded"),
    ("tcp", "PhotoCluster coordinator + worker over TCP"),
    ("pillow", "Pillow (in-process)"),
    ("vips", "libvips (`vips` command)"),
    ("vips-fast", "libvips, PNG compression=1"),
    ("magick", "ImageMagick (`convert`)"),
]

SHORT = {
    "floor": "floor (libjpeg-turbo)", "floor-sepia": "C: floor + plain sepia", "pipeline": "PhotoCluster in-process",
    "pipeline-fast": "  in-process, --fast-dct", "pipeline-copy": "  in-process, filter stage", "pipeline-nocopy": "  in-process, in place",
    "pipeline-e2e": "  in-process, end to end", "pipeline-engine": "  in-process, worker engine", "embedded": "PhotoCluster embedded",
    "tcp": "PhotoCluster over TCP", "pillow": "Pillow", "vips": "libvips", "vips-fast": "libvips compression=1",
    "magick": "ImageMagick",
}


def log(text):
    print(text, flush=True)


def median(values):
    return statistics.median(values) if values else float("nan")


def middle_half(values):
    """The first and third quartiles: the ends of the middle half."""
    first, _, third = statistics.quantiles(values, n=4, method="inclusive")
    return first, third


class Bench:
    def __init__(self, args):
        self.args = args
        self.root = os.path.abspath(args.root)
        self.tmp = tempfile.mkdtemp(prefix="photocluster-bench-", dir=args.scratch or None)
        self.results = []
        self.notes = []
        self.cores = os.cpu_count() or 1
        self.servers = []
        self.pending = None  # in-process figures being gathered over rounds (see run)
        self.started = time.time()

    # ---------- inputs ----------

    def make_sets(self):
        photos = os.path.join(self.root, "samples", "photos")
        jpegs = sorted(f for f in os.listdir(photos) if f.lower().endswith((".jpg", ".jpeg")))
        serve = os.path.join(self.tmp, "serve")
        os.makedirs(serve)
        small = []
        for name in jpegs:
            shutil.copy(os.path.join(photos, name), os.path.join(serve, name))
            small.append(os.path.join(serve, name))
        large = []
        chosen = jpegs[: self.args.large] if self.args.large > 0 else []
        for name in chosen:
            target = os.path.join(serve, "12mp-" + name)
            self.upscale(os.path.join(photos, name), target)
            large.append(target)
        self.sets = [("samples", small)]
        if large:
            self.sets.append(("12mp", large))
        for key, files in self.sets:
            mp = sum(self.megapixels(f) for f in files)
            log(f"  set {key}: {len(files)} photos, {mp:.1f} MP")
        self.serve_dir = serve

    def upscale(self, source, target):
        """To ~12 MP with Lanczos, saved as JPEG quality 90 (like a camera's file)."""
        if self.args.has_pillow:
            code = (
                "import sys, math\nfrom PIL import Image\n"
                "im = Image.open(sys.argv[1]).convert('RGB')\n"
                "s = math.sqrt(12e6 / (im.width * im.height))\n"
                "im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS).save(sys.argv[2], quality=90)\n"
            )
            subprocess.run([sys.executable, "-c", code, source, target], check=True)
        elif self.args.vips:
            w, h = self.size(source)
            s = math.sqrt(12e6 / (w * h))
            subprocess.run([self.args.vips, "resize", source, target + "[Q=90]", f"{s:.6f}", "--kernel", "lanczos3"], check=True)
        else:
            raise SystemExit("neither Pillow nor vips is available to make the 12-megapixel photos")

    def size(self, path):
        with open(path, "rb") as f:
            data = f.read()
        i = 2
        while i < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xC0, 0xC1, 0xC2):
                return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
            i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
        raise ValueError(f"no JPEG frame header in {path}")

    def megapixels(self, path):
        w, h = self.size(path)
        return w * h / 1e6

    # ---------- running ----------

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
        mp = sum(self.megapixels(p) for p in files)
        for _ in range(self.args.runs):
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            wall, rss, _ = self.timed_stdin(command, listing, env)
            seconds.append(wall)
            peak = max(peak, rss)
            if not self.more_runs(seconds):
                break
        self.record(work, set_key, tool, cores, seconds, mp, len(files), peak)

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

    def runs_for_in_process(self, estimate):
        runs = self.args.runs if estimate * self.args.runs <= self.args.budget else max(1, min(3, self.args.runs))
        return runs if self.pending is None else max(1, -(-runs // self.rounds()))  # this round's share

    # ---------- the PhotoCluster cluster ----------

    def start_server(self):
        process = subprocess.Popen([self.args.pipeline, "serve", self.serve_dir], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = process.stdout.readline().strip()
        self.servers.append(process)
        log(f"  serving the photos at {self.base_url} (LoopbackHTTP)")

    def manifest(self, files, tag, copies=1):
        """A JSON manifest; each run gets its own URLs (?run=…) so no worker cache helps."""
        entries = []
        for copy in range(copies):
            for path in files:
                name = os.path.basename(path)
                label = name if copies == 1 else f"{copy}-{name}"
                entries.append({"name": label, "url": f"{self.base_url}/{name}?run={tag}-{copy}"})
        path = os.path.join(self.tmp, f"manifest-{tag}.json")
        with open(path, "w") as f:
            json.dump(entries, f)
        return path

    def submit_args(self, work, manifest, out):
        spec = WORKS[work]
        return ["submit", manifest, "--filter", spec["filter"], "--format", spec["format"], "--quality", str(QUALITY),
                "--out", out, "--json"]

    def pipeline_beside(self, work, files, cores, first_job):
        """Seconds per megapixel of the in-process pipeline, taken beside a cluster job: its stages
        alone over the set (the median of 3 runs), end to end over the job's photos, and end to end
        through the worker's engine. The overhead then compares runs that met the same machine,
        which on a shared VM can change by 20% from one minute to the next.

        The end-to-end passes meet the machine in the state the job does. Any process's first pass
        is slower than its later ones (threads started, connections made, heap grown: about 10 ms
        on a job of the samples), so an embedded job, the first job of a fresh process, is set
        beside the first pass of a fresh process (`first_job`), and a job on a TCP worker that has
        run jobs before, beside a process's second pass."""
        figures = []
        for mode in ("stages", "e2e", "engine"):
            runs = 3 if mode == "stages" else 1 if first_job else 2
            command = self.pin(cores) + self.pipeline_command(work, cores, runs=runs, copy="stream")
            command += files if mode == "stages" else self.end_to_end(files, engine=mode == "engine")
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"pipeline beside the cluster exited {done.returncode}: {done.stderr.strip()[-300:]}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            seconds = median(result["seconds"]) if mode == "stages" else result["seconds"][-1]
            figures.append(seconds / result["megapixels"])
        return figures

    def end_to_end(self, files, engine=False):
        """PipelineBenchmark's end-to-end arguments and photos: downloads from the bench's server
        (the same URLs as the cluster's manifests), outputs written under the scratch directory.
        A pass holds the set as many times as a cluster job, so the pass and the job download and
        write the same photos, and a job's start and end (the first download's wait, the last
        flush) weigh the same on both. With `engine`, the worker's engine runs the photos."""
        return (["--source", self.base_url, "--out", os.path.join(self.tmp, "out-e2e")] + (["--engine"] if engine else [])
                + files * self.job_copies(files))

    def pipeline_command(self, work, cores, runs, copy):
        """PipelineBenchmark's command for `work` on `cores` threads (the photo files go after it)."""
        spec = WORKS[work]
        return [self.args.pipeline, "pipeline", "--filter", spec["filter"], "--format", spec["format"], "--quality", str(QUALITY),
                "--threads", str(cores), "--runs", str(runs), "--copy", copy]

    def job_copies(self, files):
        """Copies of the set in one cluster job: --job-copies, and enough for --job-megapixels."""
        megapixels = sum(self.megapixels(p) for p in files)
        return max(self.args.job_copies, math.ceil(self.args.job_megapixels / megapixels))

    def cluster_runs(self, kind, work, set_key, files, cores, copies, command):
        """Runs a cluster job (`command(manifest, out)`) --pairs times, each beside its own
        in-process passes (before the job in even pairs, after it in odd ones, so a machine that
        speeds up or slows down during the row weighs on both sides alike); stops early once the
        row has taken --pair-budget seconds. Returns the jobs' wall seconds, the command's peak
        memory and the record's fields for the jobs' own seconds and the passes' figures (stages
        alone, end to end, end to end through the worker's engine)."""
        seconds, inner, beside, beside_e2e, beside_engine, peak = [], [], [], [], [], 0.0
        started = time.perf_counter()
        for pair in range(max(1, self.args.pairs)):
            out = os.path.join(self.tmp, f"out-{kind}")
            shutil.rmtree(out, ignore_errors=True)
            manifest = self.manifest(files, f"{kind}{work}{set_key}{cores}{pair}", copies=copies)
            passes_first = pair % 2 == 0
            if passes_first:
                passes = self.pipeline_beside(work, files, cores, first_job=kind == "embedded")
            wall, rss, stdout = self.timed(command(manifest, out))
            if not passes_first:
                passes = self.pipeline_beside(work, files, cores, first_job=kind == "embedded")
            report = json.loads(stdout)
            if report["succeeded"] != len(files) * copies:
                raise RuntimeError(f"{kind} submit: {report['failed']}")
            for figures, figure in zip((beside, beside_e2e, beside_engine), passes):
                figures.append(figure)
            seconds.append(wall)
            inner.append(report["elapsed_seconds"])
            peak = max(peak, rss)
            if len(seconds) >= 3 and time.perf_counter() - started > self.args.pair_budget:
                break
        extra = {"job_seconds": inner, "pipeline_seconds_per_mp_beside": beside, "pipeline_e2e_seconds_per_mp_beside": beside_e2e,
                 "pipeline_engine_seconds_per_mp_beside": beside_engine}
        return seconds, peak, extra

    def embedded(self, work, set_key, files, cores):
        copies = self.job_copies(files)
        mp = sum(self.megapixels(p) for p in files)
        seconds, peak, extra = self.cluster_runs(
            "embedded", work, set_key, files, cores, copies,
            lambda manifest, out: self.pin(cores) + [self.args.cluster] + self.submit_args(work, manifest, out) + ["--workers", str(cores)])
        self.record(work, set_key, "embedded", cores, seconds, mp * copies, len(files) * copies, peak,
                    dict(extra, note=f"whole command: process start, manifest, HTTP, outputs written; the set {copies}× in one job"))

    def free_port(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def start_cluster(self, cores, concurrency, cache_mb=None):
        """A coordinator and one worker process on loopback TCP; the worker on the cores counted, the coordinator elsewhere when it can."""
        port = self.free_port()
        client_port = self.free_port()
        workers_ep, client_ep = f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.1:{client_port}"
        logs = open(os.path.join(self.tmp, "cluster.log"), "a")
        # Plain TCP on loopback (--insecure), metrics served as in a deployment, no dashboard.
        coordinator = subprocess.Popen(self.pin_elsewhere(cores) + [self.args.cluster, "coordinator", "--insecure", "--bind", workers_ep, "--client-bind", client_ep,
                                                          "--heartbeat-ms", "250", "--metrics-bind", f"127.0.0.1:{self.free_port()}", "--http", "off"],
                                       stdout=logs, stderr=logs)
        worker = subprocess.Popen(self.pin(cores) + [self.args.cluster, "worker", "--insecure", "--coordinator", workers_ep, "--concurrency", str(concurrency),
                                                     "--id", f"bench-{cores}", "--metrics-bind", f"127.0.0.1:{self.free_port()}"]
                                  + ([] if cache_mb is None else ["--cache-mb", str(cache_mb)]),
                                  stdout=logs, stderr=logs)
        deadline = time.time() + 20
        while time.time() < deadline:
            status = subprocess.run([self.args.cluster, "status", "--coordinator", client_ep, "--json"], capture_output=True, text=True)
            if status.returncode == 0 and "bench-" in status.stdout:
                return coordinator, worker, client_ep
            time.sleep(0.2)
        self.stop(coordinator, worker)
        raise RuntimeError("the worker did not register with the coordinator within 20 s (see " + logs.name + ")")

    def stop(self, *processes):
        for p in processes:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def peak_rss(self, process):
        """VmHWM of a running process, in MB."""
        try:
            with open(f"/proc/{process.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def tcp(self, work, set_key, files, cores):
        copies = self.job_copies(files)
        coordinator, worker, client_ep = self.start_cluster(cores, cores)
        try:
            mp = sum(self.megapixels(p) for p in files)
            # The whole set once first: connections made, code paged in, the worker's heap grown.
            warm = self.manifest(files, f"warm{work}{set_key}{cores}")
            self.timed([self.args.cluster] + self.submit_args(work, warm, os.path.join(self.tmp, "out-warm")) + ["--coordinator", client_ep])
            seconds, _, extra = self.cluster_runs(
                "tcp", work, set_key, files, cores, copies,
                lambda manifest, out: self.pin_elsewhere(cores) + [self.args.cluster] + self.submit_args(work, manifest, out) + ["--coordinator", client_ep])
            worker_rss, coordinator_rss = self.peak_rss(worker), self.peak_rss(coordinator)
        finally:
            self.stop(worker, coordinator)
        self.record(work, set_key, "tcp", cores, seconds, mp * copies, len(files) * copies, worker_rss,
                    dict(extra, coordinator_rss_mb=coordinator_rss,
                         note=f"wall time of `cluster submit --coordinator`, the set {copies}× in one job; the worker pinned to the "
                              "cores counted, the coordinator and client on the others (their own host) where there are any; memory is the worker's peak"))

    def memory_bound(self):
        """Worker peak memory for a job of n and of 4n 12-MP photos, with the default stage cache
        (256 MB) and with none: bounded by concurrency (+ the cache cap), not by the job size.
        n is at least 4 photos, so even the smaller job fills the default cache."""
        key, files = self.sets[-1]
        base = max(1, math.ceil(4 / len(files)))
        rows = []
        for cache in (None, 0):
            for copies in (base, 4 * base):
                coordinator, worker, client_ep = self.start_cluster(self.cores, self.cores, cache_mb=cache)
                try:
                    manifest = self.manifest(files, f"mem{cache}-{copies}", copies=copies)
                    wall, submit_rss, stdout = self.timed([self.args.cluster] + self.submit_args("sepia-jpeg", manifest, os.path.join(self.tmp, "out-mem"))
                                                          + ["--coordinator", client_ep])
                    report = json.loads(stdout)
                    rows.append({"set": key, "photos": report["succeeded"], "worker_concurrency": self.cores,
                                 "cache_mb": 256 if cache is None else cache,
                                 "worker_peak_rss_mb": self.peak_rss(worker), "coordinator_peak_rss_mb": self.peak_rss(coordinator),
                                 "client_peak_rss_mb": submit_rss, "seconds": wall})
                finally:
                    self.stop(worker, coordinator)
                shutil.rmtree(os.path.join(self.tmp, "out-mem"), ignore_errors=True)
                row = rows[-1]
                log(f"    job of {row['photos']:3} photos ({key}), worker cache {row['cache_mb']} MB: worker peak {row['worker_peak_rss_mb']:.0f} MB, "
                    f"coordinator {row['coordinator_peak_rss_mb']:.0f} MB, client {row['client_peak_rss_mb']:.0f} MB")
        self.memory = rows

    # ---------- one measurement per tool ----------

    def measure(self, work, set_key, files, tool, cores):
        a = self.args
        spec = WORKS[work]
        png = spec["format"] == "png"
        mp = sum(self.megapixels(p) for p in files)
        if tool in ("floor", "floor-sepia"):
            if tool == "floor-sepia" and work != "sepia-jpeg":
                return
            command = [a.floor, "--threads", str(cores), "--runs", str(self.runs_for_in_process(mp / 150)), "--quality", str(QUALITY), "--rgba"]
            command += ["--out", "png"] if png else []
            command += ["--sepia"] if tool == "floor-sepia" else []
            self.in_process(work, set_key, files, tool, cores, command + files)
        elif tool in ("pipeline-e2e", "pipeline-engine"):
            command = self.pipeline_command(work, cores, runs=self.runs_for_in_process(mp * self.job_copies(files) / 50), copy="stream")
            self.in_process(work, set_key, files, tool, cores, command + self.end_to_end(files, engine=tool == "pipeline-engine"))
        elif tool in ("pipeline", "pipeline-fast", "pipeline-copy", "pipeline-nocopy"):
            if tool != "pipeline" and work != "sepia-jpeg":
                return
            copy = {"pipeline": "stream", "pipeline-fast": "stream", "pipeline-copy": "fused", "pipeline-nocopy": "none"}[tool]
            command = self.pipeline_command(work, cores, runs=self.runs_for_in_process(mp / 60), copy=copy)
            command += ["--fast-dct"] if tool == "pipeline-fast" else []
            self.in_process(work, set_key, files, tool, cores, command + files)
        elif tool == "embedded":
            self.embedded(work, set_key, files, cores)
        elif tool == "tcp":
            self.tcp(work, set_key, files, cores)
        elif tool == "pillow":
            if not a.has_pillow:
                return self.missing(tool)
            command = [sys.executable, os.path.join(self.root, "bench", "pillow_bench.py"), "--work", spec["filter"].split(":")[0],
                       "--format", spec["format"], "--quality", str(QUALITY), "--processes", str(cores),
                       "--runs", str(a.runs), "--budget", str(a.budget)]
            self.in_process(work, set_key, files, tool, cores, command + files)
        elif tool in ("vips", "vips-fast"):
            if not a.vips:
                return self.missing(tool)
            if tool == "vips-fast" and not png:
                return
            env = dict(os.environ, VIPS_CONCURRENCY="1")
            matrix = os.path.join(self.tmp, "sepia.mat")
            with open(matrix, "w") as f:
                f.write("3 3\n" + "\n".join(" ".join(f"{v:.4f}" for v in row) for row in SEPIA_BLEND) + "\n")
            def command(path, out):
                stem = os.path.join(out, os.path.splitext(os.path.basename(path))[0])
                target = stem + (".png[compression=1]" if tool == "vips-fast" else ".png" if png else f".jpg[Q={QUALITY}]")
                if spec["filter"] == "sepia":
                    return [a.vips, "recomb", path, target, matrix]
                return [a.vips, "gaussblur", path, target, "2"]
            self.per_photo(work, set_key, files, tool, cores, command, env)
        elif tool == "magick":
            if not a.magick:
                return self.missing(tool)
            env = dict(os.environ, MAGICK_THREAD_LIMIT="1", OMP_NUM_THREADS="1")
            def command(path, out):
                stem = os.path.join(out, os.path.splitext(os.path.basename(path))[0])
                op = ["-sepia-tone", "80%"] if spec["filter"] == "sepia" else ["-blur", "0x2"]
                return [a.magick, path] + op + ([stem + ".png"] if png else ["-quality", str(QUALITY), stem + ".jpg"])
            self.per_photo(work, set_key, files, tool, cores, command, env)

    def missing(self, tool):
        note = f"{tool}: not installed, left out (see the hints bench/run printed)"
        if note not in self.notes:
            self.notes.append(note)

    def run(self):
        log(f"PhotoCluster throughput benchmark: {self.cores} cores, up to {self.args.runs} runs per figure (median)")
        self.load_before = loadavg()
        if self.load_before > 0.5:
            log(f"  note: load average {self.load_before:.2f} before starting: other work on this machine makes the figures noisy")
        log("• making the photo sets")
        self.make_sets()
        self.start_server()
        core_modes = [1] if self.cores == 1 else [1, self.cores]
        only = set(self.args.tools.split(",")) if self.args.tools else None
        try:
            for set_key, files in self.sets:
                for work in WORKS:
                    if self.args.works and work not in self.args.works.split(","):
                        continue
                    log(f"• {WORKS[work]['label']} on {set_key} ({len(files)} photos, {sum(self.megapixels(p) for p in files):.1f} MP)"
                        f"  [{time.time() - self.started:.0f} s]")
                    chosen = [tool for tool, _ in TOOLS if not only or tool in only]
                    # The floor and the in-process pipelines are compared within a few percent,
                    # so they take turns, one run each per round: a noisy minute on a shared
                    # machine then costs every one of them a run instead of one of them all.
                    self.pending = {}
                    for _ in range(self.rounds()):
                        for tool in [t for t in chosen if t in IN_PROCESS]:
                            for cores in core_modes:
                                self.try_measure(work, set_key, files, tool, cores)
                    pending, self.pending = self.pending, None
                    for (tool, cores), p in pending.items():
                        self.record(work, set_key, tool, cores, p["seconds"], p["megapixels"], p["photos"], p["rss"], p["extra"])
                    for tool in [t for t in chosen if t not in IN_PROCESS]:
                        for cores in core_modes:
                            self.try_measure(work, set_key, files, tool, cores)
            self.memory = []
            if not only or "tcp" in only:
                log(f"• worker memory against job size  [{time.time() - self.started:.0f} s]")
                try:
                    self.memory_bound()
                except Exception as error:
                    self.notes.append(f"memory test failed: {error}")
                    log(f"    failed: {error}")
        finally:
            for server in self.servers:
                server.stdin.close()
                server.wait(timeout=10)
        self.elapsed = time.time() - self.started
        self.load_after = loadavg()
        if self.load_before > 0.5:
            self.notes.append(f"load average {self.load_before:.2f} before the run: other processes competed for the cores, "
                              "so treat close figures as noise")
        self.notes.append(scratch_note(os.path.dirname(self.tmp)))
        self.report()
        if not self.args.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def try_measure(self, work, set_key, files, tool, cores):
        try:
            self.measure(work, set_key, files, tool, cores)
        except Exception as error:  # a broken tool costs its row, not the run
            message = f"{tool} ({work}, {set_key}, {cores} cores) failed: {error}"
            log("    " + message)
            self.notes.append(message)

    def rounds(self):
        """Rounds of the interleaved in-process tools: up to 3, so each takes at least one run a round."""
        return max(1, min(3, self.args.runs))

    # ---------- reporting ----------

    def find(self, work, set_key, tool, cores):
        for r in self.results:
            if (r["work"], r["set"], r["tool"], r["cores"]) == (work, set_key, tool, cores):
                return r
        return None

    def targets(self):
        """Each target of the issue, with the figures that decide it; met or not."""
        out = []
        multi = self.cores
        def ratio(a, b):
            return a["mp_per_s_per_core"] / b["mp_per_s_per_core"] if a and b else None
        for set_key, _ in self.sets:
            for cores in sorted({1, multi}):
                floor = self.find("sepia-jpeg", set_key, "floor", cores)
                ours = self.find("sepia-jpeg", set_key, "pipeline", cores)
                for variant, how in (("pipeline", "as the worker runs it"), ("pipeline-copy", "filter as a stage of its own")):
                    mine = self.find("sepia-jpeg", set_key, variant, cores)
                    r = ratio(mine, floor)
                    if r is not None:
                        out.append({"target": f"JPEG sepia within 15% of the floor per core ({how}; {set_key}, {cores} core{'s' if cores > 1 else ''})",
                                    "figure": f"{r * 100:.0f}% of the floor's speed ({mine['mp_per_s_per_core']:.0f} vs {floor['mp_per_s_per_core']:.0f} MP/s/core)",
                                    "met": r >= 1 / 1.15})
                for tool in ("pillow", "vips", "magick"):
                    other = self.find("sepia-jpeg", set_key, tool, cores)
                    r = ratio(ours, other)
                    if r is not None:
                        out.append({"target": f"JPEG sepia well ahead of {tool} ({set_key}, {cores} core{'s' if cores > 1 else ''})",
                                    "figure": f"{r:.2f}× {tool}", "met": r >= 1.2})
                ours_png = self.find("sepia-png", set_key, "pipeline", cores)
                for tool in ("vips", "vips-fast"):
                    other = self.find("sepia-png", set_key, tool, cores)
                    r = ratio(ours_png, other)
                    if r is not None:
                        which = "libvips (default PNG settings)" if tool == "vips" else "libvips with compression=1"
                        out.append({"target": f"PNG output at least 1.5× {which} ({set_key}, {cores} core{'s' if cores > 1 else ''})",
                                    "figure": f"{r:.2f}×", "met": r >= 1.5})
                for work in WORKS:
                    base = self.find(work, set_key, "pipeline", cores)
                    for tool in ("embedded", "tcp"):
                        other = self.find(work, set_key, tool, cores)
                        r = ratio(other, base)
                        if r is not None:
                            # Seconds per megapixel: the cluster's jobs hold the set several times. Judged on
                            # the job alone (the command's process start and manifest are once per job), run
                            # by run against the in-process pipeline timed just before it: through the worker's
                            # engine (the same downloads, stage operations and durable writes as the job), which
                            # leaves what the cluster itself adds; end to end in a plain loop; and its stages
                            # alone, the one comparison that also shows the whole command.
                            jobs = other.get("job_seconds", [])
                            for key, against, whole in (("pipeline_engine_seconds_per_mp_beside", "the worker's engine in-process (same downloads, stages, queues and writes)", False),
                                                        ("pipeline_e2e_seconds_per_mp_beside", "the in-process pipeline end to end (same downloads and writes)", False),
                                                        ("pipeline_seconds_per_mp_beside", "the in-process pipeline's stages alone (no download, no write)", True)):
                                pairs = [j / other["megapixels"] / b for j, b in zip(jobs, other.get(key, []))]
                                if not pairs:
                                    continue
                                job = median(pairs) - 1
                                low, high = middle_half(pairs)
                                spread = f" (middle half of {len(pairs)} pairs {(low - 1) * 100:+.0f}…{(high - 1) * 100:+.0f}%)" if len(pairs) >= 4 else ""
                                out.append({"target": f"{tool} overhead within 10% of {against}, the job alone ({work}, {set_key}, {cores} core{'s' if cores > 1 else ''})",
                                            "figure": f"{job * 100:+.0f}% for the job alone{spread}" + (f", {(1 / r - 1) * 100:+.0f}% for the whole command" if whole else ""),
                                            "met": job <= 0.10})
        # The stage cache fills up to its budget and stops there, so the bound is the worker's
        # peak without a cache, on the same job, plus the budget.
        no_cache = {m["photos"]: m["worker_peak_rss_mb"] for m in self.memory if m["cache_mb"] == 0}
        for i in range(0, len(self.memory) - 1, 2):
            a, b = self.memory[i], self.memory[i + 1]
            growth = b["worker_peak_rss_mb"] / a["worker_peak_rss_mb"]
            bound = no_cache.get(b["photos"], a["worker_peak_rss_mb"]) * 1.1 + a["cache_mb"]
            out.append({"target": f"worker memory bounded by its concurrency, not by the job size (cache {a['cache_mb']} MB)",
                        "figure": f"{a['photos']} photos: {a['worker_peak_rss_mb']:.0f} MB, {b['photos']} photos: {b['worker_peak_rss_mb']:.0f} MB "
                                  f"({(growth - 1) * 100:+.0f}%; bound: the peak without a cache + 10% + the cache, {bound:.0f} MB)",
                        "met": growth < 1.25 or b["worker_peak_rss_mb"] <= bound})
        return out

    def earlier_figures(self, name):
        """bench/results/NAME.json from another benchmark of `make bench`, if it ran."""
        path = os.path.join(self.root, "bench", "results", name + ".json")
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def viewport(self):
        return self.earlier_figures("viewport")

    def report(self):
        results_dir = os.path.join(self.root, "bench", "results")
        os.makedirs(results_dir, exist_ok=True)
        labels = dict(TOOLS)
        set_labels = {key: f"{key} ({len(files)} photos, {sum(self.megapixels(p) for p in files):.1f} MP)" for key, files in self.sets}
        targets = self.targets()
        viewport = self.viewport()
        multi = self.cores

        md = ["# PhotoCluster throughput", ""]
        md.append(f"`bench/run` on {self.cores} cores ({cpu_name()}), {time.strftime('%Y-%m-%d %H:%M')}, {self.elapsed / 60:.1f} min. "
                  f"Median of up to {self.args.runs} runs over the whole set (the cluster rows: up to {self.args.pairs} jobs); MP/s per core = input megapixels / wall time / cores used; "
                  f"one core = pinned with taskset to core 0; JPEG at quality {QUALITY}, 4:2:0. Peak memory = max resident set of the "
                  "process (for command-line tools the largest one; for TCP the worker).")
        md.append("")
        text = []
        for set_key, _ in self.sets:
            for work in WORKS:
                rows = [r for r in self.results if r["work"] == work and r["set"] == set_key]
                if not rows:
                    continue
                md.append(f"## {WORKS[work]['label']} — {set_labels[set_key]}")
                md.append("")
                header = ["tool", "1 core MP/s", "1 core photos/s", f"{multi} cores MP/s/core", f"{multi} cores photos/s", "peak MB", "vs floor (1 core)", "runs"]
                md.append("| " + " | ".join(header) + " |")
                md.append("|" + "---|" * len(header))
                text.append(f"{WORKS[work]['label']} — {set_labels[set_key]}")
                text.append(f"  {'tool':44} {'1c MP/s':>8} {'1c ph/s':>8} {str(multi) + 'c MP/s/c':>10} {str(multi) + 'c ph/s':>8} {'peak MB':>8} {'vs floor':>9}")
                floor = self.find(work, set_key, "floor", 1)
                for tool, label in TOOLS:
                    one, many = self.find(work, set_key, tool, 1), self.find(work, set_key, tool, multi) if multi > 1 else None
                    if not one and not many:
                        continue
                    def f(r, key, fmt):
                        return fmt.format(r[key]) if r else "–"
                    peak = max((r["max_rss_mb"] for r in (one, many) if r), default=float("nan"))
                    vs = f"{one['mp_per_s_per_core'] / floor['mp_per_s_per_core'] * 100:.0f}%" if one and floor else "–"
                    runs = "/".join(str(r["runs"]) for r in (one, many) if r)
                    cells = [label.strip(), f(one, "mp_per_s_per_core", "{:.1f}"), f(one, "photos_per_s", "{:.1f}"),
                             f(many, "mp_per_s_per_core", "{:.1f}"), f(many, "photos_per_s", "{:.1f}"), f"{peak:.0f}", vs, runs]
                    md.append("| " + " | ".join(cells) + " |")
                    text.append(f"  {label[:44]:44} {cells[1]:>8} {cells[2]:>8} {cells[3]:>10} {cells[4]:>8} {cells[5]:>8} {vs:>9}")
                md.append("")
                text.append("")
        if self.memory:
            md += ["## Worker memory against job size", "", "Coordinator + 1 worker over TCP, sepia → JPEG, 12-MP photos.", "", "| photos in the job | worker concurrency | worker cache MB | worker peak MB | coordinator peak MB | client peak MB | seconds |", "|---|---|---|---|---|---|---|"]
            text.append("Worker memory against job size (coordinator + 1 worker over TCP, sepia → JPEG, 12-MP photos)")
            for m in self.memory:
                md.append(f"| {m['photos']} | {m['worker_concurrency']} | {m['cache_mb']} | {m['worker_peak_rss_mb']:.0f} | {m['coordinator_peak_rss_mb']:.0f} | {m['client_peak_rss_mb']:.0f} | {m['seconds']:.2f} |")
                text.append(f"  {m['photos']:4} photos, cache {m['cache_mb']:3} MB: worker {m['worker_peak_rss_mb']:.0f} MB, coordinator {m['coordinator_peak_rss_mb']:.0f} MB, client {m['client_peak_rss_mb']:.0f} MB, {m['seconds']:.2f} s")
            md.append("")
            text.append("")
        if targets:
            md += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
            text.append("Targets")
            for t in targets:
                md.append(f"| {t['target']} | {t['figure']} | {'yes' if t['met'] else 'no'} |")
                text.append(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {t['figure']}")
            md.append("")
            text.append("")
        if viewport:
            md += ["## Viewport (from bench/results/viewport.json, ViewportBenchmark)", "", "| figure | value |", "|---|---|"]
            text.append("Viewport (bench/results/viewport.json)")
            c, s, f = viewport.get("cancel_latency_ms", {}), viewport.get("settle_to_first_visible_ms", {}), viewport.get("fast_fling", {})
            rows = []
            if c:
                rows.append(("cancel latency p50 / p99", f"{c.get('p50', float('nan')):.2f} ms / {c.get('p99', float('nan')):.2f} ms ({c.get('samples', '?')} changes)"))
            if f:
                bw = f.get("bytes_wasted", 0) / max(1, f.get("bytes_downloaded", 1)) * 100
                pw = f.get("pixels_wasted", 0) / max(1, f.get("pixels_processed", 1)) * 100
                rows.append(("fast fling: wasted bytes, pixels", f"{bw:.1f}% of {f.get('bytes_downloaded', 0) / 1e6:.1f} MB, {pw:.1f}% of {f.get('pixels_processed', 0) / 1e6:.1f} MP"))
            if s:
                rows.append(("settle → first visible photo p50 / p99", f"{s.get('p50', float('nan')):.1f} ms / {s.get('p99', float('nan')):.1f} ms"))
            if "workers" in viewport:
                rows.append(("worker processes", str(viewport["workers"])))
            for k, v in rows:
                md.append(f"| {k} | {v} |")
                text.append(f"  {k}: {v}")
            md.append("")
            text.append("")
        dispatch = self.earlier_figures("dispatch")
        if dispatch and dispatch.get("rows"):
            md += [f"## Coordinator dispatch (from bench/results/dispatch.json, DispatchBenchmark; outputs on {dispatch.get('outputs_on', '?')})", "",
                   "| photos | simulated workers | graphs/s end to end | loop busy | loop limit, graphs/s | coordinator peak MB |", "|---|---|---|---|---|---|"]
            text.append("Coordinator dispatch (bench/results/dispatch.json)")
            for r in dispatch["rows"]:
                md.append(f"| {r['photos']} | {r['simulated_workers']} | {r['graphs_per_second']:.0f} | {r['loop_busy'] * 100:.0f}% | "
                          f"{r['loop_limit_graphs_per_second']:.0f} | {r['coordinator_peak_rss_mb']:.0f} |")
                text.append(f"  {r['photos']} photos, {r['simulated_workers']} workers: {r['graphs_per_second']:.0f} graphs/s, loop {r['loop_busy'] * 100:.0f}% busy, "
                            f"{r['coordinator_peak_rss_mb']:.0f} MB")
            md.append("")
            text.append("")
        if self.notes:
            md += ["## Notes", ""] + [f"- {n}" for n in self.notes] + [""]
            text.append("Notes")
            text += [f"  - {n}" for n in self.notes]
            text.append("")
        md += ["How each tool runs: the floor, the C reference, the PhotoCluster pipeline and Pillow hold the photos in memory "
               "and time only decode → filter → encode (N threads or N processes for all cores), except the pipeline end to end, "
               "which downloads each photo from the same loopback server as the cluster and writes each output durably, "
               "a pass holding the set as many times as a cluster job (in a plain loop, or through the worker's own engine: its "
               "stage operations, queues and credit window without ZeroMQ or a coordinator); `vips` and `convert` run one "
               "process per photo (xargs -P N, each single-threaded), as they are used from scripts; `cluster submit` is timed "
               "as a whole command, downloading over loopback HTTP (LoopbackHTTP) and writing files (each flushed to the disk "
               "before it takes its name); the TCP figure is the `cluster submit --coordinator` command against a running "
               "coordinator and worker. A cluster job holds the set several times (at least 3 copies and "
               f"{self.args.job_megapixels:.0f} MP); \"the job alone\" is the coordinator's time from accepting it to its last "
               "photo, and the cluster's overhead is the median, over the row's jobs, of each job against in-process passes made "
               "beside it (just before it or just after, in turn): over the job's photos through the worker's own engine (the "
               "same downloads, stage operations and durable writes, so what remains is the cluster's own cost), over the job's "
               "photos end to end in a plain loop, and the stages alone over the set. A process's first pass is slower than its "
               "later ones, so an embedded job (the first in its process) is set beside the first pass of a fresh process, and a "
               "job on the running TCP worker beside a second pass. The 12-MP photos are the "
               "samples upscaled with Lanczos and saved at quality 90: smoother than camera photos, so every tool decodes "
               "them faster than real 12-MP photos."]
        data = {
            "machine": {"cores": self.cores, "cpu": cpu_name()}, "quality": QUALITY, "runs": self.args.runs, "pairs": self.args.pairs,
            "elapsed_seconds": self.elapsed, "load_average": [self.load_before, self.load_after], "sets": {k: [os.path.basename(p) for p in v] for k, v in self.sets},
            "results": self.results, "memory": self.memory, "targets": targets, "viewport": viewport, "dispatch": dispatch, "notes": self.notes,
        }
        with open(os.path.join(results_dir, "throughput.json"), "w") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
        with open(os.path.join(results_dir, "throughput.md"), "w") as f:
            f.write("\n".join(md) + "\n")
        log("")
        log("\n".join(text))
        plotted = self.plot(os.path.join(results_dir, "throughput.png"))
        log(f"wrote bench/results/throughput.json, throughput.md{', throughput.png' if plotted else ''} in {self.elapsed / 60:.1f} min")

    def plot(self, path):
        """Grouped bars: MP/s per core by tool, one panel per work and photo set."""
        panels = [(s, w) for s, _ in self.sets for w in WORKS if any(r["set"] == s and r["work"] == w for r in self.results)]
        if not panels:
            return False
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return self.gnuplot(path, panels)
        labels = dict(TOOLS)
        columns = len(WORKS)
        rows = len(self.sets)
        fig, axes = plt.subplots(rows, columns, figsize=(6 * columns, 4.2 * rows + 0.6), squeeze=False)
        multi = self.cores
        for (set_key, work), ax in zip([(s, w) for s, _ in self.sets for w in WORKS], axes.flat):
            tools = [t for t, _ in TOOLS if self.find(work, set_key, t, 1) or self.find(work, set_key, t, multi)]
            if not tools:
                ax.axis("off")
                continue
            ys = range(len(tools))
            one = [(self.find(work, set_key, t, 1) or {}).get("mp_per_s_per_core", 0) for t in tools]
            many = [(self.find(work, set_key, t, multi) or {}).get("mp_per_s_per_core", 0) for t in tools]
            h = 0.4
            colours = ["#c0392b" if t.startswith(("pipeline", "embedded", "tcp")) else "#7f8c8d" if t.startswith("floor") else "#2980b9" for t in tools]
            ax.barh([y - h / 2 for y in ys], one, h, color=colours, label="1 core")
            ax.barh([y + h / 2 for y in ys], many, h, color=colours, alpha=0.5, label=f"{multi} cores (per core)")
            for y, v in zip(ys, one):
                if v:
                    ax.text(v, y - h / 2, f" {v:.0f}", va="center", fontsize=8)
            ax.set_yticks(list(ys))
            ax.set_yticklabels([SHORT[t] for t in tools], fontsize=8)
            ax.invert_yaxis()
            ax.set_xlabel("megapixels per second per core (higher is better)", fontsize=8)
            ax.set_title(f"{WORKS[work]['label']} — {set_key}", fontsize=10)
            ax.grid(axis="x", alpha=0.3)
            ax.set_xlim(0, max(one + many) * 1.18)
        axes.flat[0].legend(fontsize=8, loc="lower right")
        fig.suptitle(f"PhotoCluster throughput by tool and photo size ({self.cores} cores; red: PhotoCluster, grey: libjpeg-turbo floor)", fontsize=11)
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        return True

    def gnuplot(self, path, panels):
        if not shutil.which("gnuplot"):
            self.notes.append("no plot: neither matplotlib nor gnuplot is installed")
            return False
        data = os.path.join(self.tmp, "plot.dat")
        with open(data, "w") as f:
            for set_key, work in panels:
                for tool, label in TOOLS:
                    r = self.find(work, set_key, tool, 1)
                    if r:
                        f.write(f"\"{set_key} {work} {tool}\" {r['mp_per_s_per_core']:.1f}\n")
        script = (f"set terminal pngcairo size 1200,{200 + 16 * len(self.results)}; set output '{path}';"
                  "set style fill solid; set xtics rotate by -60 font ',7'; set ylabel 'MP/s per core (1 core)';"
                  f"plot '{data}' using 2:xtic(1) with boxes notitle")
        return subprocess.run(["gnuplot", "-e", script]).returncode == 0


def shlex_quote(text):
    import shlex
    return shlex.quote(text)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return 0.0


def file_system(path):
    """The mount holding `path`: (mount point, device, type), from /proc/mounts."""
    path, best = os.path.realpath(path), ("/", "?", "?")
    try:
        with open("/proc/mounts") as f:
            for line in f:
                device, point, kind = line.split()[:3]
                inside = path == point or path.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best[0]):
                    best = (point, device, kind)
    except OSError:
        pass
    return best


def scratch_note(path):
    """Where the photos and every tool's outputs were written. Output files cost more on some file
    systems than on others; on ext4 without a journal, creating a file soon after many were deleted
    costs far more (the allocator reads each inode freed in the last seconds before it skips it):
    with the samples' small photos on 2 cores, a fifth to a quarter of a photo's time in every tool
    that writes files, and varying with how many files were just deleted."""
    point, device, kind = file_system(path)
    note = f"outputs written under {path}, on {kind} ({device} at {point})"
    # A journaled ext4 has /proc/fs/jbd2/DEVICE-INODE (the journal's inode, usually 8).
    if kind == "ext4" and not glob.glob(f"/proc/fs/jbd2/{os.path.basename(device)}-*"):
        note += (": ext4 without a journal makes creating files slow after many were deleted, and by an amount that varies "
                 "from run to run; `bench/run --scratch /dev/shm` leaves the disk out of the figures")
    return note


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=".")
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--floor", required=True)
    parser.add_argument("--time", default="/usr/bin/time")
    parser.add_argument("--vips", default="")
    parser.add_argument("--magick", default="")
    parser.add_argument("--pillow", dest="has_pillow", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--large", type=int, default=4, help="how many samples to upscale to 12 MP (0: none)")
    parser.add_argument("--job-copies", type=int, default=3,
                        help="embedded and tcp jobs hold each photo set this many times (each copy its own URLs), "
                             "so a job lasts long enough that its start-up is amortised as in real jobs")
    parser.add_argument("--job-megapixels", type=float, default=40,
                        help="and at least this many megapixels (small photos take milliseconds each: a job of a few "
                             "dozen would be timed mostly by its start and its end)")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds one figure may take before runs are cut")
    parser.add_argument("--pairs", type=int, default=9,
                        help="cluster jobs per embedded and tcp figure, each beside its own in-process passes; the overhead "
                             "is the median of these pairs (single jobs on a shared machine differ by up to a quarter)")
    parser.add_argument("--pair-budget", type=float, default=60.0, help="seconds one cluster figure may take before its pairs are cut (at least 3)")
    parser.add_argument("--tools", default="", help="comma-separated subset of: " + ",".join(t for t, _ in TOOLS))
    parser.add_argument("--works", default="", help="comma-separated subset of: " + ",".join(WORKS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--scratch", default="", help="directory to make the temporary directory in (photos and every tool's "
                                                      "outputs); default: the system's temporary directory")
    Bench(parser.parse_args()).run()


if __name__ == "__main__":
    main()
