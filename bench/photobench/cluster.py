"""What the cluster tools (embedded, tcp) share: the photo server, manifests, `cluster submit`'s
arguments, a coordinator and worker over TCP, and the in-process passes each job is set beside."""
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import time

from .machine import log, median
from .settings import QUALITY, WORKS
from .tool_pipeline import end_to_end, pipeline_command


def start_server(bench):
    """Serves the photo sets over loopback HTTP (PipelineBenchmark serve); sets bench.base_url."""
    process = subprocess.Popen([bench.args.pipeline, "serve", bench.serve_dir], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    bench.base_url = process.stdout.readline().strip()
    bench.servers.append(process)
    log(f"  serving the photos at {bench.base_url} (LoopbackHTTP)")


def stop_servers(bench):
    for server in bench.servers:
        server.stdin.close()
        server.wait(timeout=10)


def manifest(bench, files, tag, copies=1):
    """A JSON manifest; each run gets its own URLs (?run=…) so no worker cache helps."""
    entries = []
    for copy in range(copies):
        for path in files:
            name = os.path.basename(path)
            label = name if copies == 1 else f"{copy}-{name}"
            entries.append({"name": label, "url": f"{bench.base_url}/{name}?run={tag}-{copy}"})
    path = os.path.join(bench.tmp, f"manifest-{tag}.json")
    with open(path, "w") as f:
        json.dump(entries, f)
    return path


def submit_args(work, manifest_path, out):
    spec = WORKS[work]
    return ["submit", manifest_path, "--filter", spec["filter"], "--format", spec["format"], "--quality", str(QUALITY),
            "--out", out, "--replace-outputs", "--json"]


def pipeline_beside(bench, work, files, cores, first_job):
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
        command = bench.pin(cores) + pipeline_command(bench, work, cores, runs=runs, copy="stream")
        command += files if mode == "stages" else end_to_end(bench, files, engine=mode == "engine")
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pipeline beside the cluster exited {done.returncode}: {done.stderr.strip()[-300:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        seconds = median(result["seconds"]) if mode == "stages" else result["seconds"][-1]
        figures.append(seconds / result["megapixels"])
    return figures


def cluster_runs(bench, kind, work, set_key, files, cores, copies, command):
    """Runs a cluster job (`command(manifest, out)`) --pairs times, each beside its own
    in-process passes (before the job in even pairs, after it in odd ones, so a machine that
    speeds up or slows down during the row weighs on both sides alike); stops early once the
    row has taken --pair-budget seconds. Returns the jobs' wall seconds, the command's peak
    memory and the record's fields for the jobs' own seconds and the passes' figures (stages
    alone, end to end, end to end through the worker's engine)."""
    seconds, inner, beside, beside_e2e, beside_engine, peak = [], [], [], [], [], 0.0
    started = time.perf_counter()
    for pair in range(max(1, bench.args.pairs)):
        out = os.path.join(bench.tmp, f"out-{kind}")
        shutil.rmtree(out, ignore_errors=True)
        job = manifest(bench, files, f"{kind}{work}{set_key}{cores}{pair}", copies=copies)
        passes_first = pair % 2 == 0
        if passes_first:
            passes = pipeline_beside(bench, work, files, cores, first_job=kind == "embedded")
        wall, rss, stdout = bench.timed(command(job, out))
        if not passes_first:
            passes = pipeline_beside(bench, work, files, cores, first_job=kind == "embedded")
        report = json.loads(stdout)
        if report["succeeded"] != len(files) * copies:
            raise RuntimeError(f"{kind} submit: {report['failed']}")
        for figures, figure in zip((beside, beside_e2e, beside_engine), passes):
            figures.append(figure)
        seconds.append(wall)
        inner.append(report["elapsed_seconds"])
        peak = max(peak, rss)
        if len(seconds) >= 3 and time.perf_counter() - started > bench.args.pair_budget:
            break
    extra = {"job_seconds": inner, "pipeline_seconds_per_mp_beside": beside, "pipeline_e2e_seconds_per_mp_beside": beside_e2e,
             "pipeline_engine_seconds_per_mp_beside": beside_engine}
    return seconds, peak, extra


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(bench, cores, concurrency, cache_mb=None):
    """A coordinator and one worker process on loopback TCP; the worker on the cores counted, the coordinator elsewhere when it can."""
    port = free_port()
    client_port = free_port()
    workers_ep, client_ep = f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.1:{client_port}"
    logs = open(os.path.join(bench.tmp, "cluster.log"), "a")
    cluster = bench.args.cluster
    # Plain TCP on loopback (--insecure), metrics served as in a deployment, no dashboard; jobs
    # write under the bench's scratch directory.
    coordinator = subprocess.Popen(bench.pin_elsewhere(cores) + [cluster, "coordinator", "--insecure", "--bind", workers_ep, "--client-bind", client_ep,
                                                                 "--heartbeat-ms", "250", "--metrics-bind", f"127.0.0.1:{free_port()}", "--http", "off",
                                                                 "--output-root", bench.tmp],
                                   stdout=logs, stderr=logs)
    worker = subprocess.Popen(bench.pin(cores) + [cluster, "worker", "--insecure", "--coordinator", workers_ep, "--concurrency", str(concurrency),
                                                  "--id", f"bench-{cores}", "--metrics-bind", f"127.0.0.1:{free_port()}",
                                                  # The photos are served on loopback, which a worker refuses by default.
                                                  "--allow-loopback"]
                              + ([] if cache_mb is None else ["--cache-mb", str(cache_mb)])
                              # Options to compare, such as `--stage-priority normal`.
                              + shlex.split(os.environ.get("BENCH_WORKER_ARGS", "")),
                              stdout=logs, stderr=logs)
    deadline = time.time() + 20
    while time.time() < deadline:
        status = subprocess.run([cluster, "status", "--coordinator", client_ep, "--json"], capture_output=True, text=True)
        if status.returncode == 0 and "bench-" in status.stdout:
            return coordinator, worker, client_ep
        time.sleep(0.2)
    stop(coordinator, worker)
    raise RuntimeError("the worker did not register with the coordinator within 20 s (see " + logs.name + ")")


def stop(*processes):
    for p in processes:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in processes:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def peak_rss(process):
    """VmHWM of a running process, in MB."""
    try:
        with open(f"/proc/{process.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
