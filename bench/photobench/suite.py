"""The order of the suite: the photo sets, each work, each tool on one core and on all, the
worker's memory against job size, then the report."""
import os
import shutil
import time

from . import tool_embedded, tool_floor, tool_magick, tool_pillow, tool_pipeline, tool_tcp, tool_vips
from .cluster import start_server, stop_servers
from .machine import loadavg, log, scratch_note
from .memory import memory_bound
from .photos import make_sets, total_megapixels
from .report import report
from .settings import IN_PROCESS, TOOLS, WORKS

# Each tool's key (settings.TOOLS) and the module that measures it.
MEASURE = {
    "floor": tool_floor, "floor-sepia": tool_floor,
    "pipeline": tool_pipeline, "pipeline-fast": tool_pipeline, "pipeline-copy": tool_pipeline, "pipeline-nocopy": tool_pipeline,
    "pipeline-e2e": tool_pipeline, "pipeline-engine": tool_pipeline,
    "embedded": tool_embedded, "tcp": tool_tcp, "pillow": tool_pillow, "vips": tool_vips, "vips-fast": tool_vips, "magick": tool_magick,
}


def try_measure(bench, work, set_key, files, tool, cores):
    try:
        MEASURE[tool].measure(bench, work, set_key, files, tool, cores)
    except Exception as error:  # a broken tool costs its row, not the run
        message = f"{tool} ({work}, {set_key}, {cores} cores) failed: {error}"
        log("    " + message)
        bench.notes.append(message)


def run(bench):
    log(f"PhotoCluster throughput benchmark: {bench.cores} cores, up to {bench.args.runs} runs per figure (median)")
    bench.load_before = loadavg()
    if bench.load_before > 0.5:
        log(f"  note: load average {bench.load_before:.2f} before starting: other work on this machine makes the figures noisy")
    log("• making the photo sets")
    make_sets(bench)
    start_server(bench)
    only = set(bench.args.tools.split(",")) if bench.args.tools else None
    try:
        for set_key, files in bench.sets:
            for work in WORKS:
                if bench.args.works and work not in bench.args.works.split(","):
                    continue
                log(f"• {WORKS[work]['label']} on {set_key} ({len(files)} photos, {total_megapixels(files):.1f} MP)"
                    f"  [{time.time() - bench.started:.0f} s]")
                measure_work(bench, work, set_key, files, [tool for tool, _ in TOOLS if not only or tool in only])
        bench.memory = []
        if not only or "tcp" in only:
            log(f"• worker memory against job size  [{time.time() - bench.started:.0f} s]")
            try:
                memory_bound(bench)
            except Exception as error:
                bench.notes.append(f"memory test failed: {error}")
                log(f"    failed: {error}")
    finally:
        stop_servers(bench)
    bench.elapsed = time.time() - bench.started
    bench.load_after = loadavg()
    if bench.load_before > 0.5:
        bench.notes.append(f"load average {bench.load_before:.2f} before the run: other processes competed for the cores, "
                           "so treat close figures as noise")
    bench.notes.append(scratch_note(os.path.dirname(bench.tmp)))
    report(bench)
    if not bench.args.keep:
        shutil.rmtree(bench.tmp, ignore_errors=True)


def measure_work(bench, work, set_key, files, chosen):
    """Every chosen tool on one work and set, on one core and on all."""
    core_modes = [1] if bench.cores == 1 else [1, bench.cores]
    # The floor and the in-process pipelines are compared within a few percent, so they take
    # turns, one run each per round: a noisy minute on a shared machine then costs every one of
    # them a run instead of one of them all.
    bench.pending = {}
    for _ in range(bench.rounds()):
        for tool in [t for t in chosen if t in IN_PROCESS]:
            for cores in core_modes:
                try_measure(bench, work, set_key, files, tool, cores)
    pending, bench.pending = bench.pending, None
    for (tool, cores), p in pending.items():
        bench.record(work, set_key, tool, cores, p["seconds"], p["megapixels"], p["photos"], p["rss"], p["extra"])
    for tool in [t for t in chosen if t not in IN_PROCESS]:
        for cores in core_modes:
            try_measure(bench, work, set_key, files, tool, cores)
