"""PhotoCluster's stages in one process (PipelineBenchmark): as the worker runs them, their
variants (fast DCT, the filter as a stage of its own, in place), and end to end (downloads from
the bench's server and durable writes), in a plain loop or through the worker's own engine."""
import os

from .photos import total_megapixels
from .settings import QUALITY, WORKS


def pipeline_command(bench, work, cores, runs, copy):
    """PipelineBenchmark's command for `work` on `cores` threads (the photo files go after it)."""
    spec = WORKS[work]
    return [bench.args.pipeline, "pipeline", "--filter", spec["filter"], "--format", spec["format"], "--quality", str(QUALITY),
            "--threads", str(cores), "--runs", str(runs), "--copy", copy]


def end_to_end(bench, files, engine=False):
    """PipelineBenchmark's end-to-end arguments and photos: downloads from the bench's server
    (the same URLs as the cluster's manifests), outputs written under the scratch directory.
    A pass holds the set as many times as a cluster job, so the pass and the job download and
    write the same photos, and a job's start and end (the first download's wait, the last
    flush) weigh the same on both. With `engine`, the worker's engine runs the photos."""
    return (["--source", bench.base_url, "--out", os.path.join(bench.tmp, "out-e2e")] + (["--engine"] if engine else [])
            + files * bench.job_copies(files))


def measure(bench, work, set_key, files, tool, cores):
    mp = total_megapixels(files)
    if tool in ("pipeline-e2e", "pipeline-engine"):
        command = pipeline_command(bench, work, cores, runs=bench.runs_for_in_process(mp * bench.job_copies(files) / 50), copy="stream")
        bench.in_process(work, set_key, files, tool, cores, command + end_to_end(bench, files, engine=tool == "pipeline-engine"))
        return
    if tool != "pipeline" and work != "sepia-jpeg":
        return
    copy = {"pipeline": "stream", "pipeline-fast": "stream", "pipeline-copy": "fused", "pipeline-nocopy": "none"}[tool]
    command = pipeline_command(bench, work, cores, runs=bench.runs_for_in_process(mp / 60), copy=copy)
    command += ["--fast-dct"] if tool == "pipeline-fast" else []
    bench.in_process(work, set_key, files, tool, cores, command + files)
