"""PhotoCluster's `cluster submit` with an embedded cluster, timed as a whole command."""
from .cluster import cluster_runs, submit_args
from .photos import total_megapixels


def measure(bench, work, set_key, files, tool, cores):
    copies = bench.job_copies(files)
    mp = total_megapixels(files)
    seconds, peak, extra = cluster_runs(
        bench, "embedded", work, set_key, files, cores, copies,
        lambda manifest, out: bench.pin(cores) + [bench.args.cluster] + submit_args(work, manifest, out) + ["--workers", str(cores)])
    bench.record(work, set_key, "embedded", cores, seconds, mp * copies, len(files) * copies, peak,
                 dict(extra, note=f"whole command: process start, manifest, HTTP, outputs written; the set {copies}× in one job"))
