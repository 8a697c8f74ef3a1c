"""A worker's peak memory against the size of its job."""
import json
import math
import os
import shutil

from .cluster import manifest, peak_rss, start_cluster, stop, submit_args
from .machine import log


def memory_bound(bench):
    """Worker peak memory for a job of n and of 4n 12-MP photos, with the default stage cache
    (256 MB) and with none: bounded by concurrency (+ the cache cap), not by the job size.
    n is at least 4 photos, so even the smaller job fills the default cache."""
    key, files = bench.sets[-1]
    base = max(1, math.ceil(4 / len(files)))
    rows = []
    for cache in (None, 0):
        for copies in (base, 4 * base):
            coordinator, worker, client_ep = start_cluster(bench, bench.cores, bench.cores, cache_mb=cache)
            try:
                job = manifest(bench, files, f"mem{cache}-{copies}", copies=copies)
                wall, submit_rss, stdout = bench.timed([bench.args.cluster] + submit_args("sepia-jpeg", job, os.path.join(bench.tmp, "out-mem"))
                                                       + ["--coordinator", client_ep])
                report = json.loads(stdout)
                rows.append({"set": key, "photos": report["succeeded"], "worker_concurrency": bench.cores,
                             "cache_mb": 256 if cache is None else cache,
                             "worker_peak_rss_mb": peak_rss(worker), "coordinator_peak_rss_mb": peak_rss(coordinator),
                             "client_peak_rss_mb": submit_rss, "seconds": wall})
            finally:
                stop(worker, coordinator)
            shutil.rmtree(os.path.join(bench.tmp, "out-mem"), ignore_errors=True)
            row = rows[-1]
            log(f"    job of {row['photos']:3} photos ({key}), worker cache {row['cache_mb']} MB: worker peak {row['worker_peak_rss_mb']:.0f} MB, "
                f"coordinator {row['coordinator_peak_rss_mb']:.0f} MB, client {row['client_peak_rss_mb']:.0f} MB")
    bench.memory = rows
