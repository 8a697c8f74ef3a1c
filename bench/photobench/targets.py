"""The targets the report judges: JPEG sepia near the floor and ahead of the other tools, PNG
output ahead of libvips, the cluster's overhead, and the worker's memory bound."""
from .machine import median, middle_half
from .settings import WORKS


def cores_label(cores):
    return f"{cores} core{'s' if cores > 1 else ''}"


def ratio(a, b):
    return a["mp_per_s_per_core"] / b["mp_per_s_per_core"] if a and b else None


def targets(bench):
    """Each target, with the figures that decide it; met or not."""
    out = []
    for set_key, _ in bench.sets:
        for cores in sorted({1, bench.cores}):
            out += speed_targets(bench, set_key, cores)
            for work in WORKS:
                out += overhead_targets(bench, work, set_key, cores)
    out += memory_targets(bench.memory)
    return out


def speed_targets(bench, set_key, cores):
    out = []
    find = bench.find
    floor = find("sepia-jpeg", set_key, "floor", cores)
    ours = find("sepia-jpeg", set_key, "pipeline", cores)
    for variant, how in (("pipeline", "as the worker runs it"), ("pipeline-copy", "filter as a stage of its own")):
        mine = find("sepia-jpeg", set_key, variant, cores)
        r = ratio(mine, floor)
        if r is not None:
            out.append({"target": f"JPEG sepia within 15% of the floor per core ({how}; {set_key}, {cores_label(cores)})",
                        "figure": f"{r * 100:.0f}% of the floor's speed ({mine['mp_per_s_per_core']:.0f} vs {floor['mp_per_s_per_core']:.0f} MP/s/core)",
                        "met": r >= 1 / 1.15})
    for tool in ("pillow", "vips", "magick"):
        other = find("sepia-jpeg", set_key, tool, cores)
        r = ratio(ours, other)
        if r is not None:
            out.append({"target": f"JPEG sepia well ahead of {tool} ({set_key}, {cores_label(cores)})",
                        "figure": f"{r:.2f}× {tool}", "met": r >= 1.2})
    ours_png = find("sepia-png", set_key, "pipeline", cores)
    for tool in ("vips", "vips-fast"):
        other = find("sepia-png", set_key, tool, cores)
        r = ratio(ours_png, other)
        if r is not None:
            which = "libvips (default PNG settings)" if tool == "vips" else "libvips with compression=1"
            out.append({"target": f"PNG output at least 1.5× {which} ({set_key}, {cores_label(cores)})",
                        "figure": f"{r:.2f}×", "met": r >= 1.5})
    return out


def overhead_targets(bench, work, set_key, cores):
    """Seconds per megapixel: the cluster's jobs hold the set several times. Judged on the job
    alone (the command's process start and manifest are once per job), run by run against the
    in-process pipeline timed just before it: through the worker's engine (the same downloads,
    stage operations and durable writes as the job), which leaves what the cluster itself adds;
    end to end in a plain loop; and its stages alone, the one comparison that also shows the
    whole command."""
    out = []
    base = bench.find(work, set_key, "pipeline", cores)
    for tool in ("embedded", "tcp"):
        other = bench.find(work, set_key, tool, cores)
        r = ratio(other, base)
        if r is None:
            continue
        jobs = other.get("job_seconds", [])
        for key, against, whole in (("pipeline_engine_seconds_per_mp_beside", "the worker's engine in-process (same downloads, stages, queues and writes)", False),
                                    ("pipeline_e2e_seconds_per_mp_beside", "the in-process pipeline end to end (same downloads and writes)", False),
                                    ("pipeline_seconds_per_mp_beside", "the in-process pipeline's stages alone (no download, no write)", True)):
            pairs = [j / other["megapixels"] / b for j, b in zip(jobs, other.get(key, []))]
            if not pairs:
                continue
            job = median(pairs) - 1
            spread = ""
            if len(pairs) >= 4:
                low, high = middle_half(pairs)
                spread = f" (middle half of {len(pairs)} pairs {(low - 1) * 100:+.0f}…{(high - 1) * 100:+.0f}%)"
            out.append({"target": f"{tool} overhead within 10% of {against}, the job alone ({work}, {set_key}, {cores_label(cores)})",
                        "figure": f"{job * 100:+.0f}% for the job alone{spread}" + (f", {(1 / r - 1) * 100:+.0f}% for the whole command" if whole else ""),
                        "met": job <= 0.10})
    return out


def memory_targets(memory):
    """The stage cache fills up to its budget and stops there, so the bound is the worker's
    peak without a cache, on the same job, plus the budget."""
    out = []
    no_cache = {m["photos"]: m["worker_peak_rss_mb"] for m in memory if m["cache_mb"] == 0}
    for i in range(0, len(memory) - 1, 2):
        a, b = memory[i], memory[i + 1]
        growth = b["worker_peak_rss_mb"] / a["worker_peak_rss_mb"]
        bound = no_cache.get(b["photos"], a["worker_peak_rss_mb"]) * 1.1 + a["cache_mb"]
        out.append({"target": f"worker memory bounded by its concurrency, not by the job size (cache {a['cache_mb']} MB)",
                    "figure": f"{a['photos']} photos: {a['worker_peak_rss_mb']:.0f} MB, {b['photos']} photos: {b['worker_peak_rss_mb']:.0f} MB "
                              f"({(growth - 1) * 100:+.0f}%; bound: the peak without a cache + 10% + the cache, {bound:.0f} MB)",
                    "met": growth < 1.25 or b["worker_peak_rss_mb"] <= bound})
    return out
