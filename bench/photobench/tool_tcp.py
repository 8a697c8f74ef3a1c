"""A coordinator and a worker process over TCP on loopback, timed as `cluster submit
--coordinator`: the worker on the cores counted, the coordinator and client elsewhere."""
import os

from .cluster import cluster_runs, manifest, peak_rss, start_cluster, stop, submit_args
from .photos import total_megapixels


def measure(bench, work, set_key, files, tool, cores):
    copies = bench.job_copies(files)
    coordinator, worker, client_ep = start_cluster(bench, cores, cores)
    try:
        mp = total_megapixels(files)
        # The whole set once first: connections made, code paged in, the worker's heap grown.
        warm = manifest(bench, files, f"warm{work}{set_key}{cores}")
        bench.timed([bench.args.cluster] + submit_args(work, warm, os.path.join(bench.tmp, "out-warm")) + ["--coordinator", client_ep])
        seconds, _, extra = cluster_runs(
            bench, "tcp", work, set_key, files, cores, copies,
            lambda job, out: bench.pin_elsewhere(cores) + [bench.args.cluster] + submit_args(work, job, out) + ["--coordinator", client_ep])
        worker_rss, coordinator_rss = peak_rss(worker), peak_rss(coordinator)
    finally:
        stop(worker, coordinator)
    bench.record(work, set_key, "tcp", cores, seconds, mp * copies, len(files) * copies, worker_rss,
                 dict(extra, coordinator_rss_mb=coordinator_rss,
                      note=f"wall time of `cluster submit --coordinator`, the set {copies}× in one job; the worker pinned to the "
                           "cores counted, the coordinator and client on the others (their own host) where there are any; memory is the worker's peak"))
